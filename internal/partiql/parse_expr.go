package partiql

import (
	"math"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// functions are the functions DynamoDB's PartiQL knows, by lower-case name.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-functions.html
var functions = map[string]bool{
	"begins_with": true, "contains": true, "attribute_type": true, "exists": true,
	"missing": true, "size": true, "list_append": true, "set_add": true, "set_delete": true,
}

// isTypes are the type names IS accepts, as DynamoDB lists them.
var isTypes = map[string]bool{
	"MISSING": true, "NULL": true, "BOOLEAN": true, "BLOB": true, "STRING": true,
	"NUMERIC": true, "STRUCT": true, "TUPLE": true, "LIST": true,
}

// enter guards recursion depth.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return Malformed("")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// condition parses a WHERE condition; an empty one is "Unexpected term".
func (p *parser) condition() (Expr, error) { return p.expr() }

// expr parses OR, the loosest operator.
func (p *parser) expr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.binary("OR", OpOr, p.and)
}

// rhs parses the right operand of an infix operator.
func (p *parser) rhs(f func() (Expr, error)) (Expr, error) {
	if t := p.peek(); t.kind == tkEOF || t.kind == tkPunct && (t.text == ";" || t.text == ")") {
		return nil, Malformed(detailMissingRight)
	}
	return f()
}

func (p *parser) and() (Expr, error) { return p.binary("AND", OpAnd, p.not) }

// binary parses operand {keyword operand}, left-associative, into Binary
// expressions of op.
func (p *parser) binary(keyword string, op Op, operand func() (Expr, error)) (Expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.acceptKw(keyword) {
		r, err := p.rhs(operand)
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) not() (Expr, error) {
	if p.acceptKw("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &Not{X: x}, nil
	}
	return p.comparison()
}

var comparisons = map[string]Op{"=": OpEq, "<>": OpNe, "!=": OpNe, "<": OpLt, "<=": OpLe, ">": OpGt, ">=": OpGe}

// comparison parses an operand optionally followed by a comparison,
// [NOT] BETWEEN, [NOT] IN or IS [NOT].
func (p *parser) comparison() (Expr, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tkOp {
		if op, ok := comparisons[t.text]; ok {
			p.i++
			r, err := p.rhs(p.additive)
			if err != nil {
				return nil, err
			}
			return &Binary{Op: op, L: l, R: r}, nil
		}
	}
	negate := false
	if p.kw("NOT") && p.i+1 < len(p.toks) {
		if n := p.toks[p.i+1]; n.kind == tkIdent && (strings.EqualFold(n.text, "BETWEEN") || strings.EqualFold(n.text, "IN")) {
			p.i++
			negate = true
		}
	}
	var x Expr
	switch {
	case p.acceptKw("BETWEEN"):
		x, err = p.between(l)
	case p.acceptKw("IN"):
		x, err = p.in(l)
	case p.acceptKw("IS"):
		return p.isType(l)
	default:
		return l, nil
	}
	if err != nil || !negate {
		return x, err
	}
	return &Not{X: x}, nil
}

func (p *parser) between(l Expr) (Expr, error) {
	lo, err := p.rhs(p.additive)
	if err != nil {
		return nil, err
	}
	if !p.acceptKw("AND") {
		return nil, p.unexpected()
	}
	hi, err := p.rhs(p.additive)
	if err != nil {
		return nil, err
	}
	return &Between{X: l, Lo: lo, Hi: hi}, nil
}

// in parses the list of IN: [a, b] or (a, b).
func (p *parser) in(l Expr) (Expr, error) {
	var closeTok string
	switch {
	case p.accept(tkPunct, "["):
		closeTok = "]"
	case p.accept(tkPunct, "("):
		closeTok = ")"
	case p.peek().kind == tkEOF:
		return nil, Malformed(detailMissingRight)
	default:
		return nil, errBadIn()
	}
	list, err := p.elements(closeTok)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errBadIn()
	}
	return &In{X: l, List: list}, nil
}

func errBadIn() error {
	return ddberr.Validation("IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member")
}

// is parses what follows IS: [NOT] type.
func (p *parser) isType(l Expr) (Expr, error) {
	x := &Is{X: l}
	x.Not = p.acceptKw("NOT")
	t := p.peek()
	if t.kind != tkIdent || !isTypes[strings.ToUpper(t.text)] {
		if t.kind == tkEOF {
			return nil, Malformed(detailMissingRight)
		}
		return nil, Malformed(detailTypeName)
	}
	p.i++
	x.Type = strings.ToUpper(t.text)
	return x, nil
}

// additive parses + and - chains.
func (p *parser) additive() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		var op Op
		switch {
		case p.accept(tkOp, "+"):
			op = OpAdd
		case p.accept(tkOp, "-"):
			op = OpSub
		default:
			return l, nil
		}
		r, err := p.rhs(p.unary)
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
}

// unary parses a signed number literal or a primary.
func (p *parser) unary() (Expr, error) {
	if p.is(tkOp, "-") || p.is(tkOp, "+") {
		sign := p.next().text
		if t := p.peek(); t.kind == tkNumber {
			if !numberFits(t.text) {
				return nil, Malformed("")
			}
			p.i++
			text := t.text
			if sign == "-" {
				text = "-" + text
			}
			return &Lit{V: item.AttributeValue{Type: item.TypeN, S: text}}, nil
		}
		return nil, Malformed(detailOperator)
	}
	return p.primary()
}

// primary parses a literal, a parameter, a parenthesised condition, a
// function call or a path.
func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tkString:
		p.i++
		return &Lit{V: item.AttributeValue{Type: item.TypeS, S: t.text}}, nil
	case tkNumber:
		if !numberFits(t.text) {
			return nil, Malformed("")
		}
		p.i++
		return &Lit{V: item.AttributeValue{Type: item.TypeN, S: t.text}}, nil
	case tkBagOpen:
		p.i++
		elems, err := p.nested(">>")
		if err != nil {
			return nil, err
		}
		return &BagExpr{Elems: elems}, nil
	case tkPunct:
		return p.punctPrimary(t)
	case tkIdent:
		if p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tkPunct && p.toks[p.i+1].text == "(" {
			return p.call(t)
		}
		if x, ok := p.wordLiteral(t); ok {
			return x, nil
		}
	}
	if t.kind == tkQuoted || t.kind == tkIdent && !isKeyword(t) {
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		return &PathExpr{Path: path}, nil
	}
	return nil, p.unexpected()
}

// wordLiteral reads TRUE, FALSE, NULL and MISSING.
func (p *parser) wordLiteral(t token) (Expr, bool) {
	var x Expr
	switch strings.ToUpper(t.text) {
	case "TRUE":
		x = &Lit{V: item.AttributeValue{Type: item.TypeBOOL, Bool: true}}
	case "FALSE":
		x = &Lit{V: item.AttributeValue{Type: item.TypeBOOL}}
	case "NULL":
		x = &Lit{V: item.AttributeValue{Type: item.TypeNULL, Bool: true}}
	case "MISSING":
		x = &Missing{}
	default:
		return nil, false
	}
	p.i++
	return x, true
}

func (p *parser) punctPrimary(t token) (Expr, error) {
	switch t.text {
	case "?":
		p.i++
		p.params++
		return &Param{N: p.params - 1}, nil
	case "(":
		p.i++
		if p.kw("SELECT") {
			return nil, ddberr.Validation("Unsupported operation: nested SELECT")
		}
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.accept(tkPunct, ")") {
			if p.peek().kind == tkEOF {
				return nil, Malformed(detailRightParen)
			}
			return nil, p.leftover()
		}
		return x, nil
	case "[":
		p.i++
		elems, err := p.nested("]")
		if err != nil {
			return nil, err
		}
		return &ListExpr{Elems: elems}, nil
	case "{":
		p.i++
		return p.mapLiteral()
	}
	return nil, p.unexpected()
}

// nested parses the elements of a list or bag literal, guarding depth.
func (p *parser) nested(closeTok string) ([]Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.elements(closeTok)
}

// elements parses "a, b, c" up to the closing token (consumed).
func (p *parser) elements(closeTok string) ([]Expr, error) {
	var out []Expr
	if p.closes(closeTok) {
		return out, nil
	}
	for {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		if p.closes(closeTok) {
			return out, nil
		}
		if !p.accept(tkPunct, ",") {
			return nil, p.unexpected()
		}
	}
}

func (p *parser) closes(closeTok string) bool {
	if closeTok == ">>" {
		if p.peek().kind == tkBagClose {
			p.i++
			return true
		}
		return false
	}
	return p.accept(tkPunct, closeTok)
}

// mapLiteral parses what follows '{': 'key': value, ... }.
func (p *parser) mapLiteral() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	m := &MapExpr{}
	if p.accept(tkPunct, "}") {
		return m, nil
	}
	for {
		k := p.peek()
		if k.kind != tkString {
			return nil, p.unexpected()
		}
		p.i++
		if !p.accept(tkPunct, ":") {
			return nil, p.unexpected()
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		m.Keys = append(m.Keys, k.text)
		m.Vals = append(m.Vals, v)
		if p.accept(tkPunct, "}") {
			return m, nil
		}
		if !p.accept(tkPunct, ",") {
			return nil, p.unexpected()
		}
	}
}

// call parses name(args...).
func (p *parser) call(t token) (Expr, error) {
	name := strings.ToLower(t.text)
	if name == "exists" && p.i+2 < len(p.toks) && strings.EqualFold(p.toks[p.i+2].text, "SELECT") {
		return nil, ddberr.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	if !functions[name] {
		return nil, ddberr.Validation("Unrecognized function: " + t.text)
	}
	p.i += 2
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	args, err := p.elements(")")
	if err != nil {
		return nil, err
	}
	return &Call{Name: name, Args: args, At: p.position(t)}, nil
}

// numberFits reports whether a number literal's exponent, and its scale (the
// digits after the point less the exponent), fit 32-bit integers, as
// DynamoDB's reader needs; a literal that does not is not well formed.
func numberFits(text string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(text), "e")
	var e int64
	if hasExp {
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(exp, "+-")
		for _, c := range exp {
			e = e*10 + int64(c-'0')
			if e > 1<<32 {
				return false
			}
		}
		if neg {
			e = -e
		}
	}
	if e > math.MaxInt32 || e < math.MinInt32 {
		return false
	}
	scale := int64(0)
	if _, frac, ok := strings.Cut(mant, "."); ok {
		scale = int64(len(frac))
	}
	scale -= e
	return scale <= math.MaxInt32 && scale >= math.MinInt32
}
