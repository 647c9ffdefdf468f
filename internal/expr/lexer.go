package expr

import "unicode/utf8"

// tokKind classifies a token of DynamoDB's expression language.
type tokKind uint8

const (
	tkEOF      tokKind = iota
	tkSpace            // a run of whitespace; kept only for error context
	tkIdent            // letters, digits and '_' starting with a letter or '_'
	tkName             // #name, an ExpressionAttributeNames placeholder
	tkValue            // :value, an ExpressionAttributeValues placeholder
	tkNumber           // digits (only meaningful inside [ ])
	tkLParen           // (
	tkRParen           // )
	tkLBracket         // [
	tkRBracket         // ]
	tkComma            // ,
	tkDot              // .
	tkEq               // =
	tkNe               // <>
	tkLt               // <
	tkLe               // <=
	tkGt               // >
	tkGe               // >=
	tkPlus             // +
	tkMinus            // -
	tkOther            // any other single character
)

// token is one lexeme: its kind and its byte range in the source.
type token struct {
	kind       tokKind
	start, end int
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWordChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lex splits src into tokens, whitespace included, ending with tkEOF.
// Lexing never fails: a character outside the language becomes a tkOther
// token so the parser reports it as DynamoDB does ("Syntax error; token: ...").
func lex(src string) []token {
	toks := make([]token, 0, len(src)/3+2)
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		kind := tkOther
		switch {
		case isSpace(c):
			for i < len(src) && isSpace(src[i]) {
				i++
			}
			kind = tkSpace
		case isLetter(c) || c == '_':
			for i < len(src) && isWordChar(src[i]) {
				i++
			}
			kind = tkIdent
		case isDigit(c):
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			kind = tkNumber
		case (c == '#' || c == ':') && i+1 < len(src) && isWordChar(src[i+1]):
			i++
			for i < len(src) && isWordChar(src[i]) {
				i++
			}
			kind = tkName
			if c == ':' {
				kind = tkValue
			}
		default:
			i++
			switch c {
			case '(':
				kind = tkLParen
			case ')':
				kind = tkRParen
			case '[':
				kind = tkLBracket
			case ']':
				kind = tkRBracket
			case ',':
				kind = tkComma
			case '.':
				kind = tkDot
			case '=':
				kind = tkEq
			case '+':
				kind = tkPlus
			case '-':
				kind = tkMinus
			case '<':
				kind = tkLt
				if i < len(src) && src[i] == '=' {
					kind = tkLe
					i++
				} else if i < len(src) && src[i] == '>' {
					kind = tkNe
					i++
				}
			case '>':
				kind = tkGt
				if i < len(src) && src[i] == '=' {
					kind = tkGe
					i++
				}
			default:
				if c >= utf8.RuneSelf {
					_, n := utf8.DecodeRuneInString(src[start:])
					i = start + n
				}
			}
		}
		toks = append(toks, token{kind: kind, start: start, end: i})
	}
	return append(toks, token{kind: tkEOF, start: len(src), end: len(src)})
}
