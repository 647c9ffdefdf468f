package expr

import (
	"fmt"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// Kind names the request parameter an expression came from; DynamoDB's
// messages start with "Invalid <Kind>: ".
type Kind string

// The expression parameters of the DynamoDB API.
const (
	KindCondition    Kind = "ConditionExpression"
	KindFilter       Kind = "FilterExpression"
	KindKeyCondition Kind = "KeyConditionExpression"
	KindUpdate       Kind = "UpdateExpression"
	KindProjection   Kind = "ProjectionExpression"
)

// Limits from https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-expression-parameters
const (
	MaxExpressionSize = 4096 // bytes of any expression string
	MaxOperators      = 300  // operators and functions in one expression
	MaxInOperands     = 100  // operands of IN
	MaxPathDepth      = 32   // elements of one document path
)

// errf returns DynamoDB's ValidationException "Invalid <Kind>: <msg>".
func (k Kind) errf(format string, args ...any) *ddberr.Error {
	return ddberr.Validation("%s", "Invalid "+string(k)+": "+fmt.Sprintf(format, args...))
}

var (
	conditionKeywords = []string{"AND", "OR", "NOT", "BETWEEN", "IN"}
	updateKeywords    = []string{"SET", "REMOVE", "ADD", "DELETE"}
)

// parser is a recursive-descent parser over the token stream of one
// expression. Whitespace tokens stay in toks (for the "near" text of syntax
// errors); pos always rests on a significant token.
type parser struct {
	src       string
	toks      []token
	pos       int
	kind      Kind
	keywords  []string // the grammar's keywords
	depth     int      // open parentheses around the current condition
	ops       int      // operators and functions seen
	redundant bool     // "The expression has redundant parentheses;"
	dupClause string
}

func newParser(src string, kind Kind) *parser {
	p := &parser{src: src, toks: lex(src), kind: kind}
	switch kind {
	case KindUpdate:
		p.keywords = updateKeywords
	case KindProjection:
	default:
		p.keywords = conditionKeywords
	}
	p.skipSpace()
	return p
}

func (p *parser) skipSpace() {
	for p.toks[p.pos].kind == tkSpace {
		p.pos++
	}
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tkEOF {
		p.pos++
		p.skipSpace()
	}
	return t
}

func (p *parser) text(t token) string { return p.src[t.start:t.end] }

// keywordAt reports whether t is one of the grammar's keywords; kw, if not
// empty, narrows the test to that keyword. Keywords are case-insensitive.
func (p *parser) keywordAt(t token, kw string) bool {
	if t.kind != tkIdent {
		return false
	}
	s := p.text(t)
	if kw != "" {
		return strings.EqualFold(s, kw)
	}
	for _, k := range p.keywords {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

// syntaxErr reports the current token as DynamoDB does: the token's text (or
// <EOF>) and the text near it: the previous token (with the token before
// that when whitespace separates them), the token itself and the following
// token (likewise).
func (p *parser) syntaxErr() *ddberr.Error {
	i := p.pos
	t := p.toks[i]
	tok := "<EOF>"
	if t.kind != tkEOF {
		tok = p.text(t)
	}
	start, end := t.start, t.end
	if i > 0 {
		start = p.toks[i-1].start
		if p.toks[i-1].kind == tkSpace && i > 1 {
			start = p.toks[i-2].start
		}
	}
	if t.kind != tkEOF && i+1 < len(p.toks) {
		end = p.toks[i+1].end
		if p.toks[i+1].kind == tkSpace && i+2 < len(p.toks) {
			end = p.toks[i+2].end
		}
	}
	return p.kind.errf("Syntax error; token: \"%s\", near: \"%s\"", tok, p.src[start:end])
}

func (p *parser) expect(k tokKind) error {
	if p.peek().kind != k {
		return p.syntaxErr()
	}
	p.next()
	return nil
}

// countOp counts one operator or function against MaxOperators.
func (p *parser) countOp() error {
	p.ops++
	if p.ops > MaxOperators {
		return p.kind.errf("The expression contains too many operators; operator count: %d", p.ops)
	}
	return nil
}

// checkSource applies the checks DynamoDB makes before parsing.
func checkSource(src string, kind Kind) error {
	if strings.TrimLeft(src, " \t\r\n") == "" {
		return kind.errf("The expression can not be empty;")
	}
	if len(src) > MaxExpressionSize {
		return kind.errf("Expression size has exceeded the maximum allowed size; expression size: %d", len(src))
	}
	return nil
}

// parsePath parses identifier-or-#name { .identifier-or-#name | [digits] }.
func (p *parser) parsePath() (*node, error) {
	t := p.peek()
	if !(t.kind == tkIdent && !p.keywordAt(t, "") || t.kind == tkName) {
		return nil, p.syntaxErr()
	}
	p.next()
	return p.pathTail(&node{kind: nPath, raw: []rawElem{{text: p.text(t), isName: t.kind == tkName}}})
}

// parseCall parses name ( operand {, operand} ) with the name already read.
// arg parses one argument.
func (p *parser) parseCall(name string, arg func() (*node, error)) (*node, error) {
	if err := p.expect(tkLParen); err != nil {
		return nil, err
	}
	if err := p.countOp(); err != nil {
		return nil, err
	}
	args, err := commaList(p, arg)
	if err != nil {
		return nil, err
	}
	if err := p.expect(tkRParen); err != nil {
		return nil, err
	}
	return &node{kind: nFunc, fn: name, args: args}, nil
}

// parseOperand parses a :value, a function call or a document path.
func (p *parser) parseOperand(arg func() (*node, error)) (*node, error) {
	t := p.peek()
	switch t.kind {
	case tkValue:
		p.next()
		return &node{kind: nValue, ph: p.text(t)}, nil
	case tkIdent:
		if p.keywordAt(t, "") {
			return nil, p.syntaxErr()
		}
		if p.toks[p.pos+1].kind == tkLParen || p.toks[p.pos+1].kind == tkSpace && p.toks[p.pos+2].kind == tkLParen {
			p.next()
			return p.parseCall(p.text(t), arg)
		}
		return p.parsePath()
	case tkName:
		return p.parsePath()
	}
	return nil, p.syntaxErr()
}

// parenthesized parses an operand (whose own operands, as of a function,
// are parsed by operand) or, after "(", what inner parses and the ")".
func (p *parser) parenthesized(operand, inner func() (*node, error)) (*node, error) {
	if p.peek().kind != tkLParen {
		return p.parseOperand(operand)
	}
	p.next()
	n, err := inner()
	if err != nil {
		return nil, err
	}
	if err := p.expect(tkRParen); err != nil {
		return nil, err
	}
	p.markParens(n)
	return n, nil
}

// markParens records that n was written in parentheses, noting redundant
// double parentheses.
func (p *parser) markParens(n *node) {
	if n.parens {
		p.redundant = true
	}
	n.parens = true
}

// commaList parses one or more elements, separated by commas, with elem.
func commaList[T any](p *parser, elem func() (T, error)) ([]T, error) {
	var out []T
	for {
		e, err := elem()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.peek().kind != tkComma {
			return out, nil
		}
		p.next()
	}
}
