package expr

// Condition grammar (ConditionExpression, FilterExpression and
// KeyConditionExpression), from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
//
//	condition := and { OR and }
//	and       := not { AND not }
//	not       := NOT cmp | cmp
//	cmp       := primary [ comparator operand
//	                     | BETWEEN operand AND operand
//	                     | IN ( operand {, operand} ) ]
//	primary   := ( condition ) | operand
//	operand   := path | :value | function ( operand {, operand} ) | ( operand )
//
// Precedence, highest first: comparators, IN, BETWEEN, functions,
// parentheses, NOT, AND, OR. A primary in parentheses may be an operand
// ("(a) = :v") or a condition; which one is settled by what follows it.

// parseConditionSyntax parses src into an unresolved syntax tree.
func parseConditionSyntax(src string, kind Kind) (*syntax, error) {
	if err := checkSource(src, kind); err != nil {
		return nil, err
	}
	p := newParser(src, kind)
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if !condLike(n) || p.peek().kind != tkEOF {
		return nil, p.syntaxErr()
	}
	return &syntax{root: n, redundant: p.redundant}, nil
}

// condLike reports whether n may stand where a condition is expected as far
// as syntax goes: any function call may (size() and unknown functions are
// rejected later with DynamoDB's semantic messages).
func condLike(n *node) bool { return n.isCondition() || n.kind == nFunc }

func (p *parser) parseOr() (*node, error)  { return p.parseLogical("OR", nOr, p.parseAnd) }
func (p *parser) parseAnd() (*node, error) { return p.parseLogical("AND", nAnd, p.parseNot) }

// parseLogical parses operand {keyword operand}, left-associative, into
// nodes of kind; both sides of each keyword must be conditions.
func (p *parser) parseLogical(keyword string, kind nodeKind, operand func() (*node, error)) (*node, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for condLike(l) && p.keywordAt(p.peek(), keyword) {
		p.next()
		if err := p.countOp(); err != nil {
			return nil, err
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		if !condLike(r) {
			return nil, p.syntaxErr()
		}
		l = &node{kind: kind, args: []*node{l, r}}
	}
	return l, nil
}

func (p *parser) parseNot() (*node, error) {
	if !p.keywordAt(p.peek(), "NOT") {
		return p.parseCmp()
	}
	p.next()
	if err := p.countOp(); err != nil {
		return nil, err
	}
	if p.keywordAt(p.peek(), "NOT") {
		return nil, p.syntaxErr()
	}
	x, err := p.parseCmp()
	if err != nil {
		return nil, err
	}
	if !condLike(x) {
		return nil, p.syntaxErr()
	}
	return &node{kind: nNot, args: []*node{x}}, nil
}

func comparatorOf(k tokKind) (compOp, bool) {
	switch k {
	case tkEq:
		return opEq, true
	case tkNe:
		return opNe, true
	case tkLt:
		return opLt, true
	case tkLe:
		return opLe, true
	case tkGt:
		return opGt, true
	case tkGe:
		return opGe, true
	}
	return 0, false
}

func (p *parser) parseCmp() (*node, error) {
	left, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	op, isCmp := comparatorOf(t.kind)
	isBetween := p.keywordAt(t, "BETWEEN")
	isIn := p.keywordAt(t, "IN")
	if !isCmp && !isBetween && !isIn {
		if condLike(left) || t.kind == tkRParen && p.depth > 0 {
			return left, nil
		}
		return nil, p.syntaxErr()
	}
	if left.isCondition() && left.kind != nFunc {
		return nil, p.syntaxErr()
	}
	p.next()
	if err := p.countOp(); err != nil {
		return nil, err
	}
	switch {
	case isCmp:
		r, err := p.parseCondOperand()
		if err != nil {
			return nil, err
		}
		return &node{kind: nCompare, op: op, args: []*node{left, r}}, nil
	case isBetween:
		lo, err := p.parseCondOperand()
		if err != nil {
			return nil, err
		}
		if !p.keywordAt(p.peek(), "AND") {
			return nil, p.syntaxErr()
		}
		p.next()
		hi, err := p.parseCondOperand()
		if err != nil {
			return nil, err
		}
		return &node{kind: nBetween, args: []*node{left, lo, hi}}, nil
	default:
		if err := p.expect(tkLParen); err != nil {
			return nil, err
		}
		list, err := commaList(p, p.parseCondOperand)
		if err != nil {
			return nil, err
		}
		n := &node{kind: nIn, args: append([]*node{left}, list...)}
		if err := p.expect(tkRParen); err != nil {
			return nil, err
		}
		if len(n.args)-1 > MaxInOperands {
			return nil, p.kind.errf("The IN operator is provided with too many operands; number of operands: %d", len(n.args)-1)
		}
		return n, nil
	}
}

// parsePrimary parses a parenthesized condition-or-operand, or an operand.
func (p *parser) parsePrimary() (*node, error) {
	return p.parenthesized(p.parseCondOperand, func() (*node, error) {
		p.depth++
		defer func() { p.depth-- }()
		return p.parseOr()
	})
}

// parseCondOperand parses an operand, possibly in parentheses.
func (p *parser) parseCondOperand() (*node, error) {
	return p.parenthesized(p.parseCondOperand, p.parseCondOperand)
}
