package partiql

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
)

// FuzzParse checks that no statement makes the parser or the planner panic,
// that every error is a ValidationException or ResourceNotFoundException,
// and that every plan's expressions are well formed in DynamoDB's expression
// language (the engine parses them again). Seeds cover the grammar of
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM t WHERE pk = 'x' AND sk = 1`,
		`SELECT a.b[1], "c" FROM "t"."byG" WHERE g = ? AND sk BETWEEN 1 AND 2 ORDER BY sk DESC`,
		`SELECT * FROM t WHERE a IS NOT MISSING OR NOT (b IN [1, 'x', ?]) AND size(c) >= 2`,
		`INSERT INTO t VALUE {'pk': 'a', 'm': {'l': [1, <<'x'>>, null, true]}}`,
		`UPDATE t SET a = a - 1, b = list_append(b, [1]) SET s = set_add(s, <<1>>) REMOVE c WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`,
		`DELETE FROM t WHERE pk = 'a' AND sk = 1 AND begins_with(x, 'y') RETURNING ALL OLD *`,
		`EXISTS(SELECT * FROM t WHERE pk = 'a' AND sk = 1 AND attribute_type(x, 'S'))`,
		`SELECT * FROM t WHERE`, `select * from t where a = 1e999`, `'`, `"`, `/*`, `<<`, `[[[`,
	} {
		f.Add(s)
	}
	params := []item.AttributeValue{{Type: item.TypeS, S: "p"}, {Type: item.TypeN, S: "1"}, {Type: item.TypeSS, SS: []string{"a"}}}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		if err != nil {
			checkError(t, s, err)
			return
		}
		if CheckParams(st, len(params)) != nil {
			return
		}
		pl, err := PlanStatement(st, params, testSchema)
		if err != nil {
			checkError(t, s, err)
			return
		}
		checkPlan(t, s, pl)
	})
}

func checkError(t *testing.T, s string, err error) {
	de, ok := err.(*ddberr.Error)
	if !ok || de.Name() != "ValidationException" && de.Name() != "ResourceNotFoundException" {
		t.Fatalf("%q: unexpected error %v", s, err)
	}
}

// checkPlan parses a plan's expressions with the engine's parser: they must
// never be syntax errors.
func checkPlan(t *testing.T, s string, pl *Plan) {
	check := func(what string, err error) {
		if err != nil && strings.Contains(ddberr.As(err).Message, "Syntax error") {
			t.Fatalf("%q: %s of the plan is malformed: %v\n%+v", s, what, err, pl)
		}
	}
	for _, c := range []struct {
		kind expr.Kind
		text string
	}{{expr.KindFilter, pl.Filter}, {expr.KindCondition, pl.Condition}, {expr.KindKeyCondition, pl.KeyCondition}} {
		if c.text != "" {
			_, err := expr.ParseCondition(c.kind, c.text, pl.Names, pl.Values, nil)
			check("a condition", err)
		}
	}
	if pl.Update != "" {
		_, err := expr.ParseUpdate(pl.Update, pl.Names, pl.Values, nil)
		check("the update", err)
	}
	if pl.Projection != "" {
		_, err := expr.ParseProjection(pl.Projection, pl.Names, nil)
		check("the projection", err)
	}
	// The engine refuses placeholders no expression uses.
	all := pl.Filter + " " + pl.Condition + " " + pl.KeyCondition + " " + pl.Update + " " + pl.Projection + " "
	for ph := range pl.Names {
		if !containsPlaceholder(all, ph) {
			t.Fatalf("%q: name %s unused in %q", s, ph, all)
		}
	}
	for ph := range pl.Values {
		if !containsPlaceholder(all, ph) {
			t.Fatalf("%q: value %s unused in %q", s, ph, all)
		}
	}
}

// containsPlaceholder reports whether text uses placeholder ph (not merely
// a longer one that starts with it).
func containsPlaceholder(text, ph string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], ph)
		if j < 0 {
			return false
		}
		end := i + j + len(ph)
		if end >= len(text) || text[end] < '0' || text[end] > '9' {
			return true
		}
		i = end
	}
}
