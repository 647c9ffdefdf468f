package expr

import (
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// Sources:
//
//	proj https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html
//	path https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.Attributes.html

var projItem = It(
	"a", S("x"),
	"m", M("b", N("1"), "c", M("d", S("deep"), "e", S("other")), "l", L(N("0"), N("1"), N("2"))),
	"l", L(M("x", N("1"), "y", N("2")), M("x", N("3")), S("s")),
	"n", N("5"),
)

var projCases = []struct {
	src  string
	expr string
	want item.Item
}{
	{"proj top-level", "a, n", It("a", S("x"), "n", N("5"))},
	{"proj missing attributes are skipped", "a, zz", It("a", S("x"))},
	{"proj nothing", "zz", nil},
	{"path nested map", "m.b", It("m", M("b", N("1")))},
	{"path nested maps merge", "m.b, m.c.d", It("m", M("b", N("1"), "c", M("d", S("deep"))))},
	{"path list element", "l[1]", It("l", L(M("x", N("3"))))},
	{"path list elements compact in index order", "l[2], l[0]", It("l", L(M("x", N("1"), "y", N("2")), S("s")))},
	{"path list out of range", "l[7]", nil},
	{"path element of list element", "l[0].y, l[1].y", It("l", L(M("y", N("2"))))},
	{"path list in map", "m.l[2]", It("m", M("l", L(N("2"))))},
	{"path mismatched container", "a.b, n[0]", nil},
	{"proj #names", "#m.#c.d", It("m", M("c", M("d", S("deep"))))},
}

func TestProjection(t *testing.T) {
	for _, c := range projCases {
		p, err := ParseProjection(c.expr, names{"#m": "m", "#c": "c"}, nil)
		if err != nil {
			t.Errorf("%s: %q: %v", c.src, c.expr, err)
			continue
		}
		if got := p.Project(projItem); !itemEqual(got, c.want) {
			t.Errorf("%s: %q:\n got %v\nwant %v", c.src, c.expr, got, c.want)
		}
	}
}

var projErrCases = []struct {
	src, expr, want string
}{
	{"brief / proj", "a, a.b", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
	{"proj", "a.b, a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
	{"proj", "a, a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
	{"proj", "a.b, a[0]", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]"},
	{"ExtendDB projection tests quoting the service", "!!!", `Syntax error; token: "!", near: "!!"`},
	{"ExtendDB projection tests quoting the service", "a b", `Syntax error; token: "b", near: "a b"`},
	{"ExtendDB projection tests quoting the service", "a,", `Syntax error; token: "<EOF>", near: ","`},
	{"ExtendDB projection tests quoting the service", "", "The expression can not be empty;"},
	{"ExtendDB projection tests quoting the service", "   ", "The expression can not be empty;"},
	{"proj", "#undef", "An expression attribute name used in the document path is not defined; attribute name: #undef"},
	{"proj reserved words", "a, Name", "Attribute name is a reserved keyword; reserved keyword: Name"},
	{"proj: condition keywords are only reserved words here", "a, and", "Attribute name is a reserved keyword; reserved keyword: and"},
	{"proj", "a.:v", `Syntax error; token: ":v", near: ".:v"`},
	{"proj", "a[-1]", `Syntax error; token: "-", near: "[-1"`},
	{"scylladb alternator test_projection_expression: 32 levels work, 33 do not", "a" + repeat(".b", 32), "The document path has too many nesting levels; nesting levels: 33"},
}

func repeat(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

func TestProjectionErrors(t *testing.T) {
	for _, c := range projErrCases {
		_, err := ParseProjection(c.expr, names{"#a": "a"}, nil)
		want := "Invalid ProjectionExpression: " + c.want
		if got := errMsg(t, err); got != want {
			t.Errorf("%s: %.80q\n got %q\nwant %q", c.src, c.expr, got, want)
		}
	}
	if _, err := ParseProjection("a"+repeat(".b", 31), nil, nil); err != nil {
		t.Errorf("32 levels: %v", err)
	}
}

func TestProjectHelpers(t *testing.T) {
	p := NewProjection(Attr("a"), Path{{Name: "m"}, {Name: "b"}}, Path{{Name: "m"}, {Name: "c"}})
	if got := p.TopLevelNames(); len(got) != 2 || got[0] != "a" || got[1] != "m" {
		t.Errorf("TopLevelNames %v", got)
	}
	got := Project(projItem, []Path{Attr("n")})
	if !itemEqual(got, It("n", N("5"))) {
		t.Errorf("Project %v", got)
	}
	if s := (Path{{Name: "a"}, {Index: 3, IsIndex: true}, {Name: "b"}}).String(); s != "[a, [3], b]" {
		t.Errorf("String %q", s)
	}
	var nilProj *Projection
	if got := nilProj.Project(projItem); len(got) != len(projItem) {
		t.Error("nil projection returns the item")
	}
}
