package expr

import (
	"testing"
)

// The fuzz targets check that no input makes parsing, evaluation, update
// application or projection panic. Seeds cover the grammar of
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.html

var fuzzNames = names{"#a": "a", "#b": "b", "#s": "status", "#pk": "pk", "#sk": "sk"}
var fuzzValues = vals{":s": S("x"), ":n": N("1"), ":n2": N("2"), ":l": L(N("1")), ":ss": SS("a"), ":ns": NS("1"), ":b": B([]byte("a")), ":t": S("S"), ":m": M("k", N("1"))}
var fuzzItem = It("pk", S("p"), "sk", N("1"), "a", M("b", L(N("1"), S("x"))), "b", SS("a", "b"), "c", N("5"), "l", L(N("1"), N("2"), N("3")))

func FuzzParseCondition(f *testing.F) {
	for _, s := range append(append([]string{}, condOK...), "((a = :n))", "a = :x", "size(a)", "NOT NOT a = :n", "a IN (:n,:n2", "(a) = (b)", "#a.#b[0] = :s") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCondition(KindFilter, s, fuzzNames, fuzzValues, NewUsage())
		if err == nil {
			_, _ = c.Eval(fuzzItem)
			_, _ = c.Eval(nil)
		}
	})
}

func FuzzParseUpdate(f *testing.F) {
	for _, c := range updCases {
		f.Add(c.expr)
	}
	for _, c := range updErrCases {
		f.Add(c.expr)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUpdate(s, fuzzNames, fuzzValues, NewUsage())
		if err == nil {
			if nw, err := u.Apply(fuzzItem); err == nil {
				_ = u.Updated(nw)
			}
			_, _ = u.Apply(nil)
			_ = u.Updated(fuzzItem)
		}
	})
}

func FuzzParseProjection(f *testing.F) {
	for _, c := range projCases {
		f.Add(c.expr)
	}
	for _, s := range []string{"a, a.b", "a[0], a.b", "#a[1][2].c", "a,,b", "a[99999999999]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProjection(s, fuzzNames, NewUsage())
		if err == nil {
			_ = p.Project(fuzzItem)
		}
	})
}

func FuzzParseKeyCondition(f *testing.F) {
	for _, c := range kcCases {
		f.Add(c.expr)
	}
	for _, c := range kcErrCases {
		f.Add(c.expr)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kc, err := ParseKeyCondition(s, fuzzNames, fuzzValues, NewUsage(), KeySchema{PartitionKey: "pk", SortKey: "sk"})
		if err == nil {
			_ = kc.Match(fuzzItem)
		}
	})
}
