package partiql

import "strings"

// tokKind classifies a token of a PartiQL statement.
type tokKind uint8

const (
	tkEOF      tokKind = iota
	tkIdent            // an unquoted identifier or keyword
	tkQuoted           // a "double-quoted" identifier
	tkString           // a 'single-quoted' string literal
	tkNumber           // 12, 1.5, 1e3
	tkPunct            // ( ) [ ] { } , . : ; * ?
	tkOp               // = <> != < <= > >= + - / % ||
	tkBagOpen          // <<
	tkBagClose         // >>
	tkBad              // an unterminated string, identifier or comment, or a stray character
)

// token is one lexeme. text is the identifier or string with its quotes
// removed and doubled quotes undone; for other kinds it is the source text.
type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the statement
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWordChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$'
}
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// lex splits src into tokens ending with tkEOF. Lexing never fails: what it
// cannot read becomes a tkBad token for the parser to report.
func lex(src string) []token {
	toks := make([]token, 0, len(src)/4+2)
	i := 0
	for {
		i = skipSpaceAndComments(src, i)
		if i < 0 {
			return append(toks, token{kind: tkBad, pos: len(src)})
		}
		if i >= len(src) {
			return append(toks, token{kind: tkEOF, pos: len(src)})
		}
		t, next := lexOne(src, i)
		toks = append(toks, t)
		if t.kind == tkBad {
			return append(toks, token{kind: tkEOF, pos: len(src)})
		}
		i = next
	}
}

// skipSpaceAndComments skips whitespace, -- line comments and /* block
// comments */; it returns -1 for an unterminated block comment.
func skipSpaceAndComments(src string, i int) int {
	for i < len(src) {
		switch {
		case isSpace(src[i]):
			i++
		case strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return -1
			}
			i += end + 4
		default:
			return i
		}
	}
	return i
}

// lexOne reads the token starting at i and returns it with the offset after it.
func lexOne(src string, i int) (token, int) {
	c := src[i]
	switch {
	case isLetter(c) || c == '_' || c == '$':
		j := i + 1
		for j < len(src) && isWordChar(src[j]) {
			j++
		}
		return token{tkIdent, src[i:j], i}, j
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		return lexNumber(src, i)
	case c == '\'' || c == '"':
		return lexQuoted(src, i)
	}
	two := ""
	if i+1 < len(src) {
		two = src[i : i+2]
	}
	switch two {
	case "<<":
		return token{tkBagOpen, two, i}, i + 2
	case ">>":
		return token{tkBagClose, two, i}, i + 2
	case "<>", "!=", "<=", ">=", "||":
		return token{tkOp, two, i}, i + 2
	}
	switch c {
	case '(', ')', '[', ']', '{', '}', ',', '.', ':', ';', '*', '?':
		return token{tkPunct, src[i : i+1], i}, i + 1
	case '=', '<', '>', '+', '-', '/', '%':
		return token{tkOp, src[i : i+1], i}, i + 1
	}
	return token{tkBad, src[i : i+1], i}, i + 1
}

// lexNumber reads digits with an optional fraction and exponent.
func lexNumber(src string, i int) (token, int) {
	j := i
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j = k
		}
	}
	return token{tkNumber, src[i:j], i}, j
}

// lexQuoted reads a '...' string or a "..." identifier; a doubled quote
// inside stands for one.
func lexQuoted(src string, i int) (token, int) {
	q := src[i]
	kind := tkString
	if q == '"' {
		kind = tkQuoted
	}
	var b strings.Builder
	j := i + 1
	for j < len(src) {
		if src[j] == q {
			if j+1 < len(src) && src[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			return token{kind, b.String(), i}, j + 1
		}
		b.WriteByte(src[j])
		j++
	}
	return token{tkBad, src[i:], i}, len(src)
}
