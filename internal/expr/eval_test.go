package expr

import (
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// Evaluation cases. Sources:
//
//	cmp  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Comparators
//	fn   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Functions
//	path https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.Attributes.html
//	cond https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html

var evalItem = It(
	"s", S("hello"),
	"n", N("10"),
	"neg", N("-2.5"),
	"b", B([]byte{1, 2, 3}),
	"t", Bo(true),
	"nul", Nul(),
	"ss", SS("x", "y"),
	"ns", NS("1", "2"),
	"bs", BS([]byte{1}, []byte{2}),
	"l", L(S("a"), N("1"), M("k", S("v"))),
	"m", M("a", M("b", L(N("1"), N("2"))), "c", S("z")),
	"uni", S("é𝄞"),
	"blank", S(""),
	"status", S("active"),
)

var evalValues = vals{
	":hello": S("hello"), ":he": S("he"), ":ell": S("ell"), ":zz": S("zz"), ":a": S("a"), ":x": S("x"),
	":10": N("10"), ":9": N("9"), ":11": N("11"), ":1": N("1"), ":2": N("2"), ":3": N("3"), ":0": N("0"), ":m3": N("-3"),
	":b12": B([]byte{1, 2}), ":b2": B([]byte{2}), ":b123": B([]byte{1, 2, 3}), ":b1": B([]byte{1}),
	":t": Bo(true), ":f": Bo(false), ":null": Nul(),
	":ssxy": SS("y", "x"), ":nsl": NS("2", "1"), ":l": L(S("a"), N("1"), M("k", S("v"))),
	":m": M("a", M("b", L(N("1"), N("2"))), "c", S("z")), ":kv": M("k", S("v")),
	":S": S("S"), ":N": S("N"), ":B": S("B"), ":BOOL": S("BOOL"), ":NULL": S("NULL"), ":SS": S("SS"), ":NS": S("NS"),
	":BS": S("BS"), ":L": S("L"), ":M": S("M"), ":active": S("active"),
}

var evalCases = []struct {
	src  string
	expr string
	want bool
}{
	{"cmp", "s = :hello", true},
	{"cmp", "s = :he", false},
	{"cmp", "s <> :he", true},
	{"cmp: <> with a nope attribute is true", "nope <> :he", true},
	{"cmp: = with a nope attribute is false", "nope = :he", false},
	{"cmp", "nope < :1", false},
	{"cmp: across types false", "n = :hello", false},
	{"cmp: across types false", "n < :hello", false},
	{"cmp: across types, <> true", "n <> :hello", true},
	{"cmp", "n = :10", true},
	{"cmp", "n < :11", true},
	{"cmp", "n <= :10", true},
	{"cmp", "n > :9", true},
	{"cmp", "n >= :11", false},
	{"cmp: numbers compare numerically", "neg < :0", true},
	{"cmp", "neg > :m3", true},
	{"cmp: strings compare by UTF-8 bytes", "s > :he", true},
	{"cmp", "s < :zz", true},
	{"cmp: binary compares unsigned bytes", "b > :b12", true},
	{"cmp", "b < :b2", true},
	{"cmp: BOOL has no order (a path is false, a literal is refused)", "t > nul", false},
	{"cmp", "t = :t", true},
	{"cmp", "t <> :f", true},
	{"cmp", "nul = :null", true},
	{"cmp: sets are equal as sets", "ss = :ssxy", true},
	{"cmp", "ns = :nsl", true},
	{"cmp: lists compare element-wise", "l = :l", true},
	{"cmp: maps compare deeply", "m = :m", true},
	{"cmp", "m <> :m", false},
	{"cmp: sets have no order (a path is false, a literal is refused)", "ss < ns", false},
	{"cmp", "n BETWEEN :9 AND :11", true},
	{"cmp", "n BETWEEN :10 AND :10", true},
	{"cmp", "n BETWEEN :1 AND :9", false},
	{"cmp", "s BETWEEN :a AND :zz", true},
	{"cmp", "b BETWEEN :b1 AND :b2", true},
	{"cmp: BETWEEN across types false", "s BETWEEN :1 AND :2", false},
	{"cmp", "nope BETWEEN :1 AND :2", false},
	{"cmp", "n IN (:1, :10)", true},
	{"cmp", "n IN (:1, :2)", false},
	{"cmp", "s IN (:he, :hello)", true},
	{"cmp: IN compares whole values", "l IN (:l)", true},
	{"cmp", "nope IN (:1)", false},
	{"path", "m.a.b[1] = :2", true},
	{"path", "m.a.b[2] = :2", false},
	{"path", "m.c = :zz", false},
	{"path", "l[2].k = :x", false},
	{"path", "l[0] = :a", true},
	{"path: index on a map is nope", "m[0] = :a", false},
	{"path: key on a list is nope", "l.k = :a", false},
	{"path", "#st = :active", true},
	{"fn", "attribute_exists(s)", true},
	{"fn", "attribute_exists(nope)", false},
	{"fn", "attribute_exists(m.a.b[0])", true},
	{"fn", "attribute_exists(m.a.b[5])", false},
	{"fn", "attribute_not_exists(nope)", true},
	{"fn", "attribute_not_exists(nul)", false},
	{"fn", "attribute_type(s, :S)", true},
	{"fn", "attribute_type(n, :N)", true},
	{"fn", "attribute_type(b, :B)", true},
	{"fn", "attribute_type(t, :BOOL)", true},
	{"fn", "attribute_type(nul, :NULL)", true},
	{"fn", "attribute_type(ss, :SS)", true},
	{"fn", "attribute_type(ns, :NS)", true},
	{"fn", "attribute_type(bs, :BS)", true},
	{"fn", "attribute_type(l, :L)", true},
	{"fn", "attribute_type(m, :M)", true},
	{"fn", "attribute_type(m, :L)", false},
	{"fn", "attribute_type(nope, :S)", false},
	{"fn", "begins_with(s, :he)", true},
	{"fn", "begins_with(s, :ell)", false},
	{"fn", "begins_with(b, :b12)", true},
	{"fn", "begins_with(b, :b2)", false},
	{"fn: begins_with on N is false", "begins_with(n, :he)", false},
	{"fn", "begins_with(nope, :he)", false},
	{"fn: contains substring", "contains(s, :ell)", true},
	{"fn", "contains(s, :zz)", false},
	{"fn: contains set member", "contains(ss, :x)", true},
	{"fn", "contains(ss, :a)", false},
	{"fn", "contains(ns, :2)", true},
	{"fn", "contains(ns, :3)", false},
	{"fn: member of wrong type", "contains(ns, :x)", false},
	{"fn", "contains(bs, :b2)", true},
	{"fn: contains list element", "contains(l, :a)", true},
	{"fn", "contains(l, :1)", true},
	{"fn", "contains(l, :kv)", true},
	{"fn", "contains(l, :x)", false},
	{"fn", "contains(b, :b12)", true},
	{"fn", "contains(nope, :a)", false},
	{"fn: size of string", "size(s) = :2", false},
	{"fn", "size(blank) = :0", true},
	{"fn", "size(l) = :3", true},
	{"fn", "size(m) = :2", true},
	{"fn", "size(ss) = :2", true},
	{"fn", "size(bs) = :2", true},
	{"fn", "size(b) = :3", true},
	{"fn: size of N has no value", "size(n) = :2", false},
	{"fn", "size(n) <> :2", true},
	{"fn", "size(nope) = :0", false},
	{"fn", "size(m.a.b) = :2", true},
	{"fn", "size(s) > size(l)", true},
	{"https://github.com/ExtendDB/extenddb/pull/67: size counts UTF-16 code units", "size(uni) = :3", true},
	{"fn", "size(:hello) = :3", false},
	{"cond", "s = :hello AND n = :10", true},
	{"cond", "s = :hello AND n = :9", false},
	{"cond", "s = :he OR n = :10", true},
	{"cond", "NOT s = :he", true},
	{"cond", "NOT (s = :hello AND n = :10)", false},
	{"cond: AND before OR", "s = :he AND n = :9 OR t = :t", true},
	{"cond", "s = :he AND (n = :9 OR t = :t)", false},
	{"cond", ":1 = :1", true},
	{"cond", "NOT attribute_exists(nope) AND contains(ss, :x)", true},
}

func TestEval(t *testing.T) {
	for _, c := range evalCases {
		cond, err := ParseCondition(KindFilter, c.expr, names{"#st": "status"}, evalValues, nil)
		if err != nil {
			t.Errorf("%s: %q: %v", c.src, c.expr, err)
			continue
		}
		got, err := cond.Eval(evalItem)
		if err != nil || got != c.want {
			t.Errorf("%s: %q = %v, %v; want %v", c.src, c.expr, got, err, c.want)
		}
	}
	// A nope item is an empty item (cond page: attribute_not_exists on a new item).
	cond, _ := ParseCondition(KindCondition, "attribute_not_exists(pk)", nil, nil, nil)
	if ok, _ := cond.Eval(nil); !ok {
		t.Error("attribute_not_exists on a nope item")
	}
	var none *Condition
	if ok, _ := none.Eval(item.Item{}); !ok {
		t.Error("nil condition")
	}
}
