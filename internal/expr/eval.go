package expr

import (
	"github.com/extenddb/extenddb/internal/item"
)

// Condition is a parsed ConditionExpression or FilterExpression, or a legacy
// Expected, QueryFilter or ScanFilter parameter translated onto the same
// evaluator. It is immutable and safe for concurrent use.
type Condition struct {
	root *node
}

// ParseCondition parses a ConditionExpression (kind KindCondition) or a
// FilterExpression (KindFilter), resolving its #name and :value placeholders
// from names and values and recording their use in usage (which may be nil).
//
// Errors are ValidationExceptions with DynamoDB's messages, prefixed
// "Invalid ConditionExpression: " or "Invalid FilterExpression: ", e.g.
//
//	Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a ="
//	Invalid FilterExpression: Attribute name is a reserved keyword; reserved keyword: status
//	Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size
//
// Grammar and functions:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
func ParseCondition(kind Kind, expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage) (*Condition, error) {
	return (*Cache)(nil).ParseCondition(kind, expression, names, values, usage)
}

// bindCondition parses (through the cache, when there is one) and binds a
// condition expression.
func (c *Cache) bindCondition(kind Kind, expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage) (*node, error) {
	syn, err := c.syntax(kind, expression)
	if err != nil {
		return nil, err
	}
	b := &binder{kind: kind, names: names, values: values, usage: usage}
	root := b.bind(syn.root)
	b.checkCond(root, true)
	redundant := ""
	if syn.redundant {
		redundant = "The expression has redundant parentheses;"
	}
	if err := b.first(redundant, b.errUnknownFn, b.errMisuse, b.errReserved, b.errRef, b.errOperand, b.errDistinct, b.errFunction); err != nil {
		return nil, err
	}
	return root, nil
}

// Eval reports whether it satisfies the condition. A missing item is an
// empty Item. Comparisons across types, or with a missing attribute, are
// false, except <> which is then true.
func (c *Condition) Eval(it item.Item) (bool, error) {
	if c == nil || c.root == nil {
		return true, nil
	}
	return evalCond(c.root, it), nil
}

// evalOperand computes an operand's value; ok is false when it has none (a
// missing attribute, or size() of a value without a size).
func evalOperand(n *node, it item.Item) (item.AttributeValue, bool) {
	switch n.kind {
	case nPath:
		return lookup(it, n.path)
	case nValue:
		return n.val, true
	case nFunc:
		if n.fn == "size" {
			v, ok := evalOperand(n.args[0], it)
			if !ok {
				return v, false
			}
			sz, ok := sizeOf(v)
			if !ok {
				return item.AttributeValue{}, false
			}
			return item.N(itoa(sz)), true
		}
	}
	return item.AttributeValue{}, false
}

func evalCond(n *node, it item.Item) bool {
	switch n.kind {
	case nAnd:
		return evalCond(n.args[0], it) && evalCond(n.args[1], it)
	case nOr:
		return evalCond(n.args[0], it) || evalCond(n.args[1], it)
	case nNot:
		return !evalCond(n.args[0], it)
	case nCompare:
		l, lok := evalOperand(n.args[0], it)
		r, rok := evalOperand(n.args[1], it)
		switch n.op {
		case opEq:
			return lok && rok && item.Equal(l, r)
		case opNe:
			return !(lok && rok && item.Equal(l, r))
		}
		if !lok || !rok {
			return false
		}
		c, ok := compareScalar(l, r)
		if !ok {
			return false
		}
		switch n.op {
		case opLt:
			return c < 0
		case opLe:
			return c <= 0
		case opGt:
			return c > 0
		default:
			return c >= 0
		}
	case nBetween:
		x, ok1 := evalOperand(n.args[0], it)
		lo, ok2 := evalOperand(n.args[1], it)
		hi, ok3 := evalOperand(n.args[2], it)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		c1, ok1 := compareScalar(lo, x)
		c2, ok2 := compareScalar(x, hi)
		return ok1 && ok2 && c1 <= 0 && c2 <= 0
	case nIn:
		x, ok := evalOperand(n.args[0], it)
		if !ok {
			return false
		}
		for _, a := range n.args[1:] {
			if v, ok := evalOperand(a, it); ok && item.Equal(x, v) {
				return true
			}
		}
		return false
	case nLegacyNotContains:
		v, ok := evalOperand(n.args[0], it)
		w, _ := evalOperand(n.args[1], it)
		return ok && !contains(v, w)
	case nFunc:
		v, ok := evalOperand(n.args[0], it)
		switch n.fn {
		case "attribute_exists":
			return ok
		case "attribute_not_exists":
			return !ok
		}
		if !ok {
			return false
		}
		w, ok := evalOperand(n.args[1], it)
		if !ok {
			return false
		}
		switch n.fn {
		case "attribute_type":
			return w.Type == item.TypeS && v.Type.String() == w.S
		case "begins_with":
			return beginsWith(v, w)
		case "contains":
			return contains(v, w)
		}
	}
	return false
}
