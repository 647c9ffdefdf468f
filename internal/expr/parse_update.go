package expr

import "strings"

// actionKind is the clause an update action belongs to.
type actionKind uint8

const (
	actSet actionKind = iota
	actRemove
	actAdd
	actDelete
)

var actionNames = [...]string{"SET", "REMOVE", "ADD", "DELETE"}

// action is one action of an UpdateExpression: target path and, for SET,
// ADD and DELETE, the value operand.
type action struct {
	kind   actionKind
	target *node
	value  *node
}

// syntax is a parsed, unresolved expression: the result of the syntax phase,
// cacheable by expression text.
type syntax struct {
	root      *node    // condition expressions
	actions   []action // update expressions
	paths     []*node  // projection expressions
	redundant bool
	dupClause string
}

// Update grammar, from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
//
//	update  := clause { clause }
//	clause  := SET path = value {, path = value}
//	         | REMOVE path {, path}
//	         | ADD path :value {, path :value}
//	         | DELETE path :value {, path :value}
//	value   := operand [ (+|-) operand ] | ( value )
//	operand := path | :value | function ( operand {, operand} ) | ( operand )
//
// Each clause may appear once; keywords are case-insensitive.
func parseUpdateSyntax(src string) (*syntax, error) {
	if err := checkSource(src, KindUpdate); err != nil {
		return nil, err
	}
	p := newParser(src, KindUpdate)
	s := &syntax{}
	var seen [4]bool
	for p.peek().kind != tkEOF {
		t := p.peek()
		kind := -1
		for i, name := range actionNames {
			if p.keywordAt(t, name) {
				kind = i
			}
		}
		if kind < 0 {
			return nil, p.syntaxErr()
		}
		p.next()
		if seen[kind] && s.dupClause == "" {
			s.dupClause = actionNames[kind]
		}
		seen[kind] = true
		actions, err := commaList(p, func() (action, error) { return p.parseAction(actionKind(kind)) })
		if err != nil {
			return nil, err
		}
		s.actions = append(s.actions, actions...)
		if t := p.peek(); t.kind != tkEOF && !p.keywordAt(t, "") {
			return nil, p.syntaxErr()
		}
	}
	s.redundant = p.redundant
	return s, nil
}

func (p *parser) parseAction(kind actionKind) (action, error) {
	target, err := p.parsePath()
	if err != nil {
		return action{}, err
	}
	a := action{kind: kind, target: target}
	switch kind {
	case actSet:
		if err := p.expect(tkEq); err != nil {
			return a, err
		}
		a.value, err = p.parseSetValue()
	case actAdd, actDelete:
		t := p.peek()
		if t.kind != tkValue {
			return a, p.syntaxErr()
		}
		p.next()
		a.value = &node{kind: nValue, ph: p.text(t)}
	}
	return a, err
}

// parseSetValue parses operand [ (+|-) operand ].
func (p *parser) parseSetValue() (*node, error) {
	left, err := p.parseSetOperand(true)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind != tkPlus && t.kind != tkMinus {
		return left, nil
	}
	if left.kind == nPlus || left.kind == nMinus {
		return nil, p.syntaxErr()
	}
	p.next()
	if err := p.countOp(); err != nil {
		return nil, err
	}
	right, err := p.parseSetOperand(false)
	if err != nil {
		return nil, err
	}
	kind := nPlus
	if t.kind == tkMinus {
		kind = nMinus
	}
	return &node{kind: kind, args: []*node{left, right}}, nil
}

// parseSetOperand parses an operand of SET; arith allows a parenthesized
// "a + b" (only as the whole value or its left operand).
func (p *parser) parseSetOperand(arith bool) (*node, error) {
	operand := func() (*node, error) { return p.parseSetOperand(false) }
	if arith {
		return p.parenthesized(operand, p.parseSetValue)
	}
	return p.parenthesized(operand, operand)
}

// parseProjectionSyntax parses path {, path}. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html
func parseProjectionSyntax(src string) (*syntax, error) {
	if err := checkSource(src, KindProjection); err != nil {
		return nil, err
	}
	p := newParser(src, KindProjection)
	paths, err := commaList(p, p.parsePath)
	if err != nil {
		return nil, err
	}
	s := &syntax{paths: paths}
	if p.peek().kind != tkEOF {
		return nil, p.syntaxErr()
	}
	return s, nil
}

// pathTail parses { .elem | [n] } after the first element of n.
func (p *parser) pathTail(n *node) (*node, error) {
	for {
		switch p.peek().kind {
		case tkDot:
			p.next()
			t := p.peek()
			if !(t.kind == tkIdent && !p.keywordAt(t, "") || t.kind == tkName) {
				return nil, p.syntaxErr()
			}
			p.next()
			n.raw = append(n.raw, rawElem{text: p.text(t), isName: t.kind == tkName})
		case tkLBracket:
			p.next()
			t := p.peek()
			if t.kind != tkNumber {
				return nil, p.syntaxErr()
			}
			p.next()
			ix, ok := atoiSmall(p.text(t))
			if !ok {
				return nil, p.kind.errf("List index is not within the allowable range; index: [%s]", p.text(t))
			}
			if err := p.expect(tkRBracket); err != nil {
				return nil, err
			}
			n.raw = append(n.raw, rawElem{index: ix, isIndex: true})
		default:
			if len(n.raw) > MaxPathDepth {
				return nil, p.kind.errf("The document path has too many nesting levels; nesting levels: %d", len(n.raw))
			}
			return n, nil
		}
	}
}

// maxListIndex is the largest list index a document path may name
// (2^31-1); DynamoDB refuses larger ones with "List index is not within the
// allowable range; index: [N]". Assigning past a list's end appends.
const maxListIndex = 1<<31 - 1

// atoiSmall parses a list index, reporting false when it exceeds maxListIndex.
func atoiSmall(s string) (int, bool) {
	s = strings.TrimLeft(s, "0")
	if len(s) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, n <= maxListIndex
}
