package expr

import (
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// KeySchema names the key attributes of the table or index a Query reads.
// The types are optional: when set (not TypeInvalid) condition values are
// checked against them.
type KeySchema struct {
	PartitionKey  string
	PartitionType item.Type
	SortKey       string // "" for a schema with a partition key only
	SortType      item.Type
}

// SortOp is the comparison a key condition applies to the sort key.
type SortOp uint8

// Sort key comparisons, from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
const (
	SortNone       SortOp = iota // no sort key condition
	SortEQ                       // sk = :v
	SortLT                       // sk < :v
	SortLE                       // sk <= :v
	SortGT                       // sk > :v
	SortGE                       // sk >= :v
	SortBetween                  // sk BETWEEN :lo AND :hi
	SortBeginsWith               // begins_with(sk, :prefix)
)

// KeyCondition is a parsed KeyConditionExpression (or legacy KeyConditions):
// equality on the partition key and at most one condition on the sort key.
type KeyCondition struct {
	PartitionKey   string
	PartitionValue item.AttributeValue
	SortKey        string                // set when SortOp != SortNone
	SortOp         SortOp                //
	SortValues     []item.AttributeValue // one value, two for SortBetween
}

// keyCond is one condition found in a key condition expression.
type keyCond struct {
	attr string
	op   SortOp
	vals []item.AttributeValue
}

// ParseKeyCondition parses a Query's KeyConditionExpression against the key
// schema of the table or index queried. Besides the errors of
// ParseCondition (prefixed "Invalid KeyConditionExpression: ") it returns
// DynamoDB's key condition errors, such as
//
//	Invalid operator used in KeyConditionExpression: OR
//	KeyConditionExpressions must only contain one condition per key
//	Query condition missed key schema element: pk
//	Query key condition not supported
//
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
func ParseKeyCondition(expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage, schema KeySchema) (*KeyCondition, error) {
	return (*Cache)(nil).ParseKeyCondition(expression, names, values, usage, schema)
}

// ParseKeyCondition is the package's ParseKeyCondition through the cache.
func (c *Cache) ParseKeyCondition(expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage, schema KeySchema) (*KeyCondition, error) {
	root, err := c.bindCondition(KindKeyCondition, expression, names, values, usage)
	if err != nil {
		return nil, err
	}
	var conds []keyCond
	if msg := collectKeyConds(root, &conds); msg != "" {
		return nil, ddberr.Validation("%s", msg)
	}
	return buildKeyCondition(conds, schema)
}

var sortOpOf = [...]SortOp{opEq: SortEQ, opLt: SortLT, opLe: SortLE, opGt: SortGT, opGe: SortGE}

// flipped maps an operator to its mirror for ":v < sk" written the other way round.
var flipped = [...]SortOp{SortEQ: SortEQ, SortLT: SortGT, SortLE: SortGE, SortGT: SortLT, SortGE: SortLE}

func collectKeyConds(n *node, out *[]keyCond) string {
	switch n.kind {
	case nOr:
		return "Invalid operator used in KeyConditionExpression: OR"
	case nNot:
		return "Invalid operator used in KeyConditionExpression: NOT"
	case nIn:
		return "Invalid operator used in KeyConditionExpression: IN"
	case nAnd:
		if msg := collectKeyConds(n.args[0], out); msg != "" {
			return msg
		}
		return collectKeyConds(n.args[1], out)
	case nCompare:
		if n.op == opNe {
			return "Invalid operator used in KeyConditionExpression: <>"
		}
	case nFunc:
		switch n.fn {
		case "begins_with":
			if n.args[0].kind != nPath {
				return "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"
			}
		case "size":
			return "KeyConditionExpressions cannot contain nested operations"
		default:
			return "Invalid operator used in KeyConditionExpression: " + n.fn
		}
	case nBetween:
		if n.args[0].kind != nPath {
			return "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"
		}
	}
	attr, attrIx := "", 0
	var vals []item.AttributeValue
	for i, a := range n.args {
		switch a.kind {
		case nPath:
			if attr != "" {
				return "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
			}
			if len(a.path) > 1 {
				return "KeyConditionExpressions cannot have conditions on nested attributes"
			}
			attr, attrIx = a.path[0].Name, i
		case nFunc:
			return "KeyConditionExpressions cannot contain nested operations"
		default:
			vals = append(vals, a.val)
		}
	}
	if attr == "" {
		return "Invalid condition in KeyConditionExpression: No key attribute specified"
	}
	for _, c := range *out {
		if c.attr == attr {
			return "KeyConditionExpressions must only contain one condition per key"
		}
	}
	c := keyCond{attr: attr, vals: vals}
	switch n.kind {
	case nCompare:
		c.op = sortOpOf[n.op]
		if attrIx != 0 {
			c.op = flipped[c.op]
		}
	case nBetween:
		c.op = SortBetween
	default:
		c.op = SortBeginsWith
	}
	*out = append(*out, c)
	return ""
}

// buildKeyCondition applies the key schema to the conditions found.
func buildKeyCondition(conds []keyCond, schema KeySchema) (*KeyCondition, error) {
	if len(conds) != 1 && len(conds) != 2 {
		return nil, ddberr.Validation("Conditions can be of length 1 or 2 only")
	}
	find := func(name string) *keyCond {
		for i := range conds {
			if conds[i].attr == name {
				return &conds[i]
			}
		}
		return nil
	}
	pk := find(schema.PartitionKey)
	if pk == nil {
		return nil, ddberr.Validation("%s", "Query condition missed key schema element: "+schema.PartitionKey)
	}
	var sk *keyCond
	if len(conds) == 2 {
		if schema.SortKey == "" {
			return nil, ddberr.Validation("Query key condition not supported")
		}
		if sk = find(schema.SortKey); sk == nil {
			return nil, ddberr.Validation("%s", "Query condition missed key schema element: "+schema.SortKey)
		}
	}
	if pk.op != SortEQ {
		return nil, ddberr.Validation("Query key condition not supported")
	}
	kc := &KeyCondition{PartitionKey: pk.attr, PartitionValue: pk.vals[0]}
	if err := checkKeyType(pk.vals, schema.PartitionType); err != nil {
		return nil, err
	}
	if sk != nil {
		if err := checkKeyType(sk.vals, schema.SortType); err != nil {
			return nil, err
		}
		kc.SortKey, kc.SortOp, kc.SortValues = sk.attr, sk.op, sk.vals
	}
	return kc, nil
}

func checkKeyType(vals []item.AttributeValue, t item.Type) error {
	if t == item.TypeInvalid {
		return nil
	}
	for _, v := range vals {
		if v.Type != t {
			return ddberr.Validation("One or more parameter values were invalid: Condition parameter type does not match schema type")
		}
	}
	return nil
}

// MatchSort reports whether a sort key value satisfies the sort key condition.
func (k *KeyCondition) MatchSort(v item.AttributeValue) bool {
	if k.SortOp == SortNone {
		return true
	}
	if k.SortOp == SortBeginsWith {
		return beginsWith(v, k.SortValues[0])
	}
	c, ok := compareScalar(v, k.SortValues[0])
	if !ok {
		return false
	}
	switch k.SortOp {
	case SortEQ:
		return c == 0
	case SortLT:
		return c < 0
	case SortLE:
		return c <= 0
	case SortGT:
		return c > 0
	case SortGE:
		return c >= 0
	case SortBetween:
		c2, ok := compareScalar(v, k.SortValues[1])
		return c >= 0 && ok && c2 <= 0
	}
	return false
}

// Match reports whether an item satisfies the key condition.
func (k *KeyCondition) Match(it item.Item) bool {
	pv, ok := it[k.PartitionKey]
	if !ok || !item.Equal(pv, k.PartitionValue) {
		return false
	}
	if k.SortOp == SortNone {
		return true
	}
	sv, ok := it[k.SortKey]
	return ok && k.MatchSort(sv)
}
