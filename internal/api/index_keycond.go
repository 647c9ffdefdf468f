package api

import (
	"bytes"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Key conditions of a Query on a global secondary index with a
// multi-attribute key: equality on every partition-key attribute, and
// conditions on the sort-key attributes from left to right, all equalities
// but the last, which may be any sort-key comparison.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html
//
// The expression's syntax, names and values are checked by the expr package
// before this runs (query calls exprEnv.condition on it first); here it is
// read again to collect its conditions, which expr.KeyCondition cannot hold.

// multiKeyCond is one condition on one key attribute.
type multiKeyCond struct {
	attr string
	op   expr.SortOp
	vals []item.AttributeValue
}

// multiQuery is a multi-attribute key condition resolved against the index:
// the storage request and the encoded sort-key bounds it covers.
type multiQuery struct {
	req    *storage.QueryRequest
	pkVals map[string]item.AttributeValue
	lo, hi []byte // inclusive bounds of the encoded index sort key; nil hi: none
}

// multiKeyQuery parses a Query's key condition (expression or legacy
// KeyConditions) against the multi-attribute key of p's index.
func multiKeyQuery(p *readPlan, kce *string, names map[string]string, values map[string]item.AttributeValue, legacy map[string]expr.LegacyCondition) (*multiQuery, error) {
	var conds []multiKeyCond
	if kce != nil {
		ps := &kcParser{toks: kcLex(*kce), names: names, values: values}
		if err := ps.conjunction(&conds); err != nil {
			return nil, err
		}
	} else {
		if _, err := expr.ConvertFilter("KeyConditions", legacy, "AND"); err != nil {
			return nil, err
		}
		ops := map[string]expr.SortOp{"EQ": expr.SortEQ, "LT": expr.SortLT, "LE": expr.SortLE, "GT": expr.SortGT, "GE": expr.SortGE, "BETWEEN": expr.SortBetween, "BEGINS_WITH": expr.SortBeginsWith}
		attrs := make([]string, 0, len(legacy))
		for a := range legacy {
			attrs = append(attrs, a)
		}
		sort.Strings(attrs)
		for _, a := range attrs {
			op, ok := ops[legacy[a].ComparisonOperator]
			if !ok {
				return nil, ddberr.Validation("Attempted conditional constraint is not an indexable operation")
			}
			conds = append(conds, multiKeyCond{attr: a, op: op, vals: legacy[a].AttributeValueList})
		}
	}
	return buildMultiQuery(p, conds)
}

func errKeyCondNotSupported() error { return ddberr.Validation("Query key condition not supported") }

// buildMultiQuery applies the multi-attribute key rules to conds and
// encodes the storage request.
func buildMultiQuery(p *readPlan, conds []multiKeyCond) (*multiQuery, error) {
	byAttr := map[string]*multiKeyCond{}
	for i := range conds {
		byAttr[conds[i].attr] = &conds[i]
	}
	var hashes, ranges []keyPart
	for _, k := range p.iks.multi {
		if k.hash {
			hashes = append(hashes, k)
		} else {
			ranges = append(ranges, k)
		}
	}
	if len(conds) == 0 || len(conds) > len(p.iks.multi) {
		return nil, ddberr.Validation("Conditions can be of length 1 to %d only", len(p.iks.multi))
	}
	q := &multiQuery{req: &storage.QueryRequest{Index: p.ix.IndexName}, pkVals: map[string]item.AttributeValue{}}
	var pk []item.AttributeValue
	for _, k := range hashes {
		c := byAttr[k.name]
		if c == nil {
			return nil, ddberr.Validation("%s", "Query condition missed key schema element: "+k.name)
		}
		if c.op != expr.SortEQ {
			return nil, errKeyCondNotSupported()
		}
		if err := checkMultiValues(c, k); err != nil {
			return nil, err
		}
		pk = append(pk, c.vals[0])
		q.pkVals[k.name] = c.vals[0]
	}
	if len(pk) == 1 {
		q.req.PK = item.EncodeKey(pk[0])
	} else {
		q.req.PK = storage.EncodeComposite(pk)
	}
	// Sort-key attributes: a prefix of the schema, every one but the last
	// an equality.
	used := len(hashes)
	var prefix []byte
	var last *multiKeyCond
	for _, k := range ranges {
		c := byAttr[k.name]
		if c == nil {
			break
		}
		if last != nil && last.op != expr.SortEQ {
			return nil, errKeyCondNotSupported()
		}
		if err := checkMultiValues(c, k); err != nil {
			return nil, err
		}
		if last != nil {
			prefix = storage.AppendComponent(prefix, item.EncodeKey(last.vals[0]))
		}
		last = c
		used++
	}
	if used != len(conds) {
		return nil, errKeyCondNotSupported()
	}
	if last == nil {
		return q, nil
	}
	if len(ranges) == 1 {
		// A single sort-key attribute is encoded and compared as on any
		// other index.
		q.req.SK.Op = sortOps[last.op]
		for _, v := range last.vals {
			q.req.SK.Values = append(q.req.SK.Values, item.EncodeKey(v))
		}
		q.lo, q.hi = singleBounds(last.op, q.req.SK.Values)
		return q, nil
	}
	q.lo, q.hi = compositeBounds(prefix, last)
	q.req.SK = storage.KeyCondition{Op: "BETWEEN", Values: [][]byte{q.lo, q.hi}}
	return q, nil
}

// compositeBounds are the inclusive byte bounds of a condition on the last
// attribute used of a multi-attribute sort key, after the equalities that
// encode to prefix.
func compositeBounds(prefix []byte, last *multiKeyCond) (lo, hi []byte) {
	comp := func(v item.AttributeValue) []byte { return storage.AppendComponent(clone(prefix), item.EncodeKey(v)) }
	upper := func(b []byte) []byte { return append(b, storage.CompositeMax...) }
	switch last.op {
	case expr.SortEQ:
		lo, hi = comp(last.vals[0]), upper(comp(last.vals[0]))
	case expr.SortLT:
		// Every key below prefix+component(v) (which ends in 00 00) is at
		// most that string without its last byte.
		c := comp(last.vals[0])
		lo, hi = clone(prefix), c[:len(c)-1]
	case expr.SortLE:
		lo, hi = clone(prefix), upper(comp(last.vals[0]))
	case expr.SortGT:
		// The smallest key above every key with this value: the value
		// followed by a 0x00 byte.
		c := comp(last.vals[0])
		lo, hi = append(c[:len(c)-1], 0x01), upper(clone(prefix))
	case expr.SortGE:
		lo, hi = comp(last.vals[0]), upper(clone(prefix))
	case expr.SortBetween:
		lo, hi = comp(last.vals[0]), upper(comp(last.vals[1]))
	case expr.SortBeginsWith:
		b := storage.AppendEscaped(clone(prefix), item.EncodeKey(last.vals[0]))
		lo, hi = b, upper(clone(b))
	}
	return lo, hi
}

func clone(b []byte) []byte { return append([]byte{}, b...) }

// singleBounds are the inclusive byte bounds of a single-attribute sort-key
// condition (nil hi: unbounded), used to check an ExclusiveStartKey.
func singleBounds(op expr.SortOp, vals [][]byte) (lo, hi []byte) {
	switch op {
	case expr.SortEQ:
		return vals[0], vals[0]
	case expr.SortBetween:
		return vals[0], vals[1]
	}
	return nil, nil
}

// checkMultiValues applies the type, emptiness and begins_with rules to the
// values of one condition on key attribute k.
func checkMultiValues(c *multiKeyCond, k keyPart) error {
	for _, v := range c.vals {
		if v.Type != k.typ {
			return ddberr.Validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
		if err := checkEmptyKeyValue(v, k.name); err != nil {
			return err
		}
		if err := checkKeyValueSize(v, k.hash); err != nil {
			return err
		}
	}
	if c.op == expr.SortBeginsWith && k.typ == item.TypeN {
		return ddberr.Validation("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
	}
	return nil
}

// startInside reports whether an ExclusiveStartKey lies within the query:
// its partition-key attributes equal the condition's and its encoded index
// sort key is within the bounds.
func (q *multiQuery) startInside(pos *storage.Position, esk item.Item) (inPartition, inRange bool) {
	for name, v := range q.pkVals {
		if !item.Equal(esk[name], v) {
			return false, false
		}
	}
	sk := pos.IndexKey.SK
	if q.lo != nil && bytes.Compare(sk, q.lo) < 0 {
		return true, false
	}
	if q.hi != nil && bytes.Compare(sk, q.hi) > 0 {
		return true, false
	}
	return true, true
}

// encodeMultiKey encodes the index key of a multi-attribute schema held by
// it; ok is false when an attribute is missing or of another type.
func encodeMultiKey(s keySchema, it item.Item) (k storage.Key, ok bool) {
	var hv, rv []item.AttributeValue
	for _, p := range s.multi {
		v, found := it[p.name]
		if !found || v.Type != p.typ {
			return k, false
		}
		if p.hash {
			hv = append(hv, v)
		} else {
			rv = append(rv, v)
		}
	}
	k.PK = encodeSide(hv)
	if len(rv) > 0 {
		k.SK = encodeSide(rv)
	}
	return k, true
}

func encodeSide(vals []item.AttributeValue) []byte {
	if len(vals) == 1 {
		return item.EncodeKey(vals[0])
	}
	return storage.EncodeComposite(vals)
}

// A small reader of key condition expressions whose syntax expr has
// already accepted.

type kcTok struct {
	kind byte // 'n' name/path part, 'v' :value, 'o' operator, 'k' keyword, or the punctuation itself
	text string
}

func kcLex(s string) []kcTok {
	var out []kcTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.ContainsRune("(),.[]", rune(c)):
			out = append(out, kcTok{kind: c, text: string(c)})
			i++
		case c == '<' || c == '>' || c == '=':
			j := i + 1
			if j < len(s) && (s[j] == '=' || (c == '<' && s[j] == '>')) {
				j++
			}
			out = append(out, kcTok{kind: 'o', text: s[i:j]})
			i = j
		default:
			j := i + 1
			for j < len(s) && (isWord(s[j])) {
				j++
			}
			w := s[i:j]
			switch {
			case c == ':':
				out = append(out, kcTok{kind: 'v', text: w})
			case c == '#':
				out = append(out, kcTok{kind: 'n', text: w})
			default:
				switch strings.ToUpper(w) {
				case "AND", "OR", "NOT", "BETWEEN", "IN":
					out = append(out, kcTok{kind: 'k', text: strings.ToUpper(w)})
				default:
					out = append(out, kcTok{kind: 'n', text: w})
				}
			}
			i = j
		}
	}
	return out
}

func isWord(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

type kcParser struct {
	toks   []kcTok
	pos    int
	names  map[string]string
	values map[string]item.AttributeValue
}

func (p *kcParser) peek() kcTok {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return kcTok{}
}

func (p *kcParser) next() kcTok { t := p.peek(); p.pos++; return t }

func kcErr(msg string) error { return ddberr.Validation("%s", msg) }

// conjunction reads conditions joined by AND, and rejects OR.
func (p *kcParser) conjunction(out *[]multiKeyCond) error {
	for {
		if err := p.unary(out); err != nil {
			return err
		}
		switch t := p.peek(); {
		case t.kind == 'k' && t.text == "AND":
			p.next()
		case t.kind == 'k' && t.text == "OR":
			return kcErr("Invalid operator used in KeyConditionExpression: OR")
		default:
			return nil
		}
	}
}

func (p *kcParser) unary(out *[]multiKeyCond) error {
	t := p.peek()
	if t.kind == 'k' && t.text == "NOT" {
		return kcErr("Invalid operator used in KeyConditionExpression: NOT")
	}
	if t.kind == '(' {
		p.next()
		if err := p.conjunction(out); err != nil {
			return err
		}
		p.next() // ')'
		return nil
	}
	return p.condition(out)
}

// kcOperand is a path (attr set, nested when it has more than one element)
// or a value.
type kcOperand struct {
	attr   string
	nested bool
	val    item.AttributeValue
	isFunc bool
}

func (p *kcParser) operand() kcOperand {
	t := p.next()
	if t.kind == 'v' {
		return kcOperand{val: p.values[t.text]}
	}
	name := t.text
	if strings.HasPrefix(name, "#") {
		name = p.names[name]
	}
	if p.peek().kind == '(' { // a function used as an operand: size(...)
		p.skipParens()
		return kcOperand{isFunc: true}
	}
	o := kcOperand{attr: name}
	for p.peek().kind == '.' || p.peek().kind == '[' {
		o.nested = true
		if p.next().kind == '[' {
			p.next()
			p.next()
		} else {
			p.next()
		}
	}
	return o
}

func (p *kcParser) skipParens() {
	depth := 0
	for {
		t := p.next()
		switch t.kind {
		case '(':
			depth++
		case ')':
			depth--
		case 0:
			return
		}
		if depth == 0 {
			return
		}
	}
}

func (p *kcParser) add(out *[]multiKeyCond, ops []kcOperand, op expr.SortOp, flip bool) error {
	attr, nested, attrIx := "", false, 0
	var vals []item.AttributeValue
	for i, o := range ops {
		switch {
		case o.isFunc:
			return kcErr("KeyConditionExpressions cannot contain nested operations")
		case o.attr != "":
			if attr != "" {
				return kcErr("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
			}
			attr, nested, attrIx = o.attr, o.nested, i
		default:
			vals = append(vals, o.val)
		}
	}
	if attr == "" {
		return kcErr("Invalid condition in KeyConditionExpression: No key attribute specified")
	}
	if nested {
		return kcErr("KeyConditionExpressions cannot have conditions on nested attributes")
	}
	for _, c := range *out {
		if c.attr == attr {
			return kcErr("KeyConditionExpressions must only contain one condition per key")
		}
	}
	if flip && attrIx != 0 {
		op = map[expr.SortOp]expr.SortOp{expr.SortEQ: expr.SortEQ, expr.SortLT: expr.SortGT, expr.SortLE: expr.SortGE, expr.SortGT: expr.SortLT, expr.SortGE: expr.SortLE}[op]
	}
	*out = append(*out, multiKeyCond{attr: attr, op: op, vals: vals})
	return nil
}

func (p *kcParser) condition(out *[]multiKeyCond) error {
	t := p.peek()
	if t.kind == 'n' && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == '(' && !strings.HasPrefix(t.text, "#") {
		fn := t.text
		p.next()
		p.next() // '('
		switch fn {
		case "begins_with":
		case "size":
			return kcErr("KeyConditionExpressions cannot contain nested operations")
		default:
			return kcErr("Invalid operator used in KeyConditionExpression: " + fn)
		}
		a := p.operand()
		p.next() // ','
		b := p.operand()
		p.next() // ')'
		if a.attr == "" || a.isFunc {
			return kcErr("Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand")
		}
		return p.add(out, []kcOperand{a, b}, expr.SortBeginsWith, false)
	}
	a := p.operand()
	op := p.next()
	switch {
	case op.kind == 'k' && op.text == "BETWEEN":
		lo := p.operand()
		p.next() // AND
		hi := p.operand()
		if a.attr == "" {
			return kcErr("Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand")
		}
		return p.add(out, []kcOperand{a, lo, hi}, expr.SortBetween, false)
	case op.kind == 'k' && op.text == "IN":
		return kcErr("Invalid operator used in KeyConditionExpression: IN")
	case op.kind == 'o':
		b := p.operand()
		ops := map[string]expr.SortOp{"=": expr.SortEQ, "<": expr.SortLT, "<=": expr.SortLE, ">": expr.SortGT, ">=": expr.SortGE}
		sop, ok := ops[op.text]
		if !ok {
			return kcErr("Invalid operator used in KeyConditionExpression: " + op.text)
		}
		return p.add(out, []kcOperand{a, b}, sop, true)
	}
	return kcErr("Invalid KeyConditionExpression: Syntax error")
}

// multiIndexQuery is query's key-condition step for an index with a
// multi-attribute key.
func multiIndexQuery(p *readPlan, in *queryInput, start *storage.Position) (*storage.QueryRequest, error) {
	mq, err := multiKeyQuery(p, in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.KeyConditions)
	if err != nil {
		return nil, err
	}
	if start != nil {
		inPart, inRange := mq.startInside(start, in.ExclusiveStartKey)
		if !inPart {
			return nil, ddberr.Validation("The provided starting key is outside query boundaries based on provided conditions")
		}
		if !inRange {
			return nil, ddberr.Validation("The provided starting key does not match the range key predicate")
		}
		mq.req.ExclusiveStart = start
	}
	return mq.req, nil
}
