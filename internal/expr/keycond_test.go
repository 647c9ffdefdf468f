package expr

import (
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// Sources:
//
//	kce  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
//	dyn  architect/dynalite validations/index.js convertKeyCondition and actions/query.js
//	moto getmoto/moto moto/dynamodb/parsing/key_condition_expression.py (validate_schema)

var kcValues = vals{":p": S("p1"), ":s": S("a"), ":s2": S("c"), ":n": N("1"), ":pn": N("5")}
var kcSchema = KeySchema{PartitionKey: "pk", SortKey: "sk"}

var kcCases = []struct {
	src    string
	expr   string
	schema KeySchema
	want   KeyCondition
}{
	{"kce", "pk = :p", kcSchema, KeyCondition{PartitionKey: "pk", PartitionValue: S("p1")}},
	{"kce", "pk = :p AND sk = :s", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortEQ, []item.AttributeValue{S("a")}}},
	{"kce", "sk < :s AND pk = :p", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortLT, []item.AttributeValue{S("a")}}},
	{"kce", "pk = :p AND sk <= :s", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortLE, []item.AttributeValue{S("a")}}},
	{"kce", "pk = :p AND sk > :s", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortGT, []item.AttributeValue{S("a")}}},
	{"kce", "pk = :p AND sk >= :s", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortGE, []item.AttributeValue{S("a")}}},
	{"dyn: operands flip", ":s > sk AND :p = pk", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortLT, []item.AttributeValue{S("a")}}},
	{"kce", "pk = :p AND sk BETWEEN :s AND :s2", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortBetween, []item.AttributeValue{S("a"), S("c")}}},
	{"kce", "pk = :p AND begins_with(sk, :s)", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortBeginsWith, []item.AttributeValue{S("a")}}},
	{"kce", "(pk = :p) AND (begins_with(#s, :s))", kcSchema, KeyCondition{"pk", S("p1"), "sk", SortBeginsWith, []item.AttributeValue{S("a")}}},
}

func TestKeyCondition(t *testing.T) {
	for _, c := range kcCases {
		kc, err := ParseKeyCondition(c.expr, names{"#s": "sk"}, kcValues, nil, c.schema)
		if err != nil {
			t.Errorf("%s: %q: %v", c.src, c.expr, err)
			continue
		}
		w := c.want
		ok := kc.PartitionKey == w.PartitionKey && item.Equal(kc.PartitionValue, w.PartitionValue) &&
			kc.SortKey == w.SortKey && kc.SortOp == w.SortOp && len(kc.SortValues) == len(w.SortValues)
		for i := range w.SortValues {
			ok = ok && item.Equal(kc.SortValues[i], w.SortValues[i])
		}
		if !ok {
			t.Errorf("%s: %q: got %+v want %+v", c.src, c.expr, *kc, w)
		}
	}
}

var kcErrCases = []struct {
	src    string
	expr   string
	schema KeySchema
	want   string
}{
	{"dyn", "pk = :p OR sk = :s", kcSchema, "Invalid operator used in KeyConditionExpression: OR"},
	{"dyn", "NOT pk = :p", kcSchema, "Invalid operator used in KeyConditionExpression: NOT"},
	{"dyn", "pk IN (:p)", kcSchema, "Invalid operator used in KeyConditionExpression: IN"},
	{"dyn", "pk <> :p", kcSchema, "Invalid operator used in KeyConditionExpression: <>"},
	{"dyn", "pk = :p AND attribute_exists(sk)", kcSchema, "Invalid operator used in KeyConditionExpression: attribute_exists"},
	{"dyn", "pk = :p AND contains(sk, :s)", kcSchema, "Invalid operator used in KeyConditionExpression: contains"},
	{"dyn", "pk = :p AND size(sk) = :n", kcSchema, "KeyConditionExpressions cannot contain nested operations"},
	{"dyn", "pk = :p AND :s BETWEEN sk AND :s2", kcSchema, "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"},
	{"dyn", "pk = :p AND begins_with(:s, sk)", kcSchema, "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"},
	{"dyn", "pk = sk", kcSchema, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
	{"dyn", "pk.x = :p", kcSchema, "KeyConditionExpressions cannot have conditions on nested attributes"},
	{"dyn", ":p = :p", kcSchema, "Invalid condition in KeyConditionExpression: No key attribute specified"},
	{"dyn", "pk = :p AND pk = :p", kcSchema, "KeyConditionExpressions must only contain one condition per key"},
	{"moto validate_schema", "sk = :s", kcSchema, "Query condition missed key schema element: pk"},
	{"moto validate_schema", "pk = :p AND attr1 = :s", kcSchema, "Query condition missed key schema element: sk"},
	{"moto validate_schema", "pk > :p", kcSchema, "Query key condition not supported"},
	{"https://github.com/ (Query key condition not supported on a begins_with partition key)", "begins_with(pk, :p)", kcSchema, "Query key condition not supported"},
	{"dyn actions/query.js: hash-only schema", "pk = :p AND sk = :s", KeySchema{PartitionKey: "pk"}, "Query key condition not supported"},
	{"dyn", "pk = :p AND sk = :s AND x = :s", kcSchema, "Conditions can be of length 1 or 2 only"},
	{"kce: value type must match the key type", "pk = :pn", KeySchema{PartitionKey: "pk", PartitionType: item.TypeS}, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
	{"kce", "pk = :p AND sk > :s", KeySchema{PartitionKey: "pk", SortKey: "sk", SortType: item.TypeN}, "One or more parameter values were invalid: Condition parameter type does not match schema type"},
	{"https://github.com/ExtendDB/extenddb/issues/130", "((pk = :p))", kcSchema, "Invalid KeyConditionExpression: The expression has redundant parentheses;"},
	{"kce", "pk = :p AND", kcSchema, `Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
	{"kce", "", kcSchema, "Invalid KeyConditionExpression: The expression can not be empty;"},
	{"kce", "pk = :p AND begins_with(sk, :n)", kcSchema, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
}

func TestKeyConditionErrors(t *testing.T) {
	for _, c := range kcErrCases {
		_, err := ParseKeyCondition(c.expr, nil, kcValues, nil, c.schema)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%s: %q\n got %q\nwant %q", c.src, c.expr, got, c.want)
		}
	}
}

func TestKeyConditionMatch(t *testing.T) {
	// kce: sort key comparisons.
	vs := vals{":p": S("p"), ":lo": N("2"), ":hi": N("4"), ":pre": S("ab")}
	check := func(expr string, it item.Item, want bool) {
		t.Helper()
		kc, err := ParseKeyCondition(expr, nil, vs, nil, kcSchema)
		if err != nil {
			t.Fatal(err)
		}
		if got := kc.Match(it); got != want {
			t.Errorf("%q on %v = %v", expr, it, got)
		}
	}
	check("pk = :p", It("pk", S("p")), true)
	check("pk = :p", It("pk", S("q")), false)
	check("pk = :p", It(), false)
	check("pk = :p AND sk BETWEEN :lo AND :hi", It("pk", S("p"), "sk", N("3")), true)
	check("pk = :p AND sk BETWEEN :lo AND :hi", It("pk", S("p"), "sk", N("4")), true)
	check("pk = :p AND sk BETWEEN :lo AND :hi", It("pk", S("p"), "sk", N("5")), false)
	check("pk = :p AND sk > :lo", It("pk", S("p"), "sk", N("10")), true)
	check("pk = :p AND sk < :lo", It("pk", S("p"), "sk", N("10")), false)
	check("pk = :p AND sk <= :lo", It("pk", S("p"), "sk", N("2")), true)
	check("pk = :p AND sk >= :hi", It("pk", S("p"), "sk", N("2")), false)
	check("pk = :p AND sk = :lo", It("pk", S("p"), "sk", N("2")), true)
	check("pk = :p AND begins_with(sk, :pre)", It("pk", S("p"), "sk", S("abc")), true)
	check("pk = :p AND begins_with(sk, :pre)", It("pk", S("p"), "sk", S("b")), false)
	check("pk = :p AND sk = :lo", It("pk", S("p")), false)
}
