package expr

import (
	"testing"
)

// Typical request shapes: a conditional write and a counter update, as in
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html

var benchItem = It("pk", S("user#1"), "sk", S("profile"), "#status", S("active"), "status", S("active"),
	"version", N("41"), "tags", SS("a", "b", "c"), "profile", M("name", S("Ann"), "age", N("33"), "emails", L(S("a@x"), S("b@x"))))

const benchCond = "attribute_exists(pk) AND #st = :active AND version = :v AND size(profile.emails) < :max AND NOT contains(tags, :banned)"

var benchNames = names{"#st": "status"}
var benchValues = vals{":active": S("active"), ":v": N("41"), ":max": N("10"), ":banned": S("z"), ":one": N("1"), ":email": L(S("c@x")), ":now": S("2024-01-01"), ":tag": SS("d")}

func BenchmarkParseEvalCondition(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		c, err := ParseCondition(KindCondition, benchCond, benchNames, benchValues, nil)
		if err != nil {
			b.Fatal(err)
		}
		if ok, _ := c.Eval(benchItem); !ok {
			b.Fatal("false")
		}
	}
}

func BenchmarkParseEvalConditionUncached(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		syn, err := parseConditionSyntax(benchCond, KindCondition)
		if err != nil {
			b.Fatal(err)
		}
		bd := &binder{kind: KindCondition, names: benchNames, values: benchValues}
		if !evalCond(bd.bind(syn.root), benchItem) {
			b.Fatal("false")
		}
	}
}

func BenchmarkEvalCondition(b *testing.B) {
	c, err := ParseCondition(KindCondition, benchCond, benchNames, benchValues, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := c.Eval(benchItem); !ok {
			b.Fatal("false")
		}
	}
}

const benchUpdate = "SET version = version + :one, profile.emails = list_append(profile.emails, :email), updated = :now ADD tags :tag REMOVE profile.age"

func BenchmarkParseApplyUpdate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		u, err := ParseUpdate(benchUpdate, nil, benchValues, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := u.Apply(benchItem); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseApplyUpdateUncached(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseUpdateSyntax(benchUpdate); err != nil {
			b.Fatal(err)
		}
		u, err := ParseUpdate(benchUpdate, nil, benchValues, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := u.Apply(benchItem); err != nil {
			b.Fatal(err)
		}
	}
}
