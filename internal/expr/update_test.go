package expr

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// Sources:
//
//	upd  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
//	rv   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues
//	dyn  architect/dynalite test/updateItem.js (cases run against the service)

var updValues = vals{
	":s": S("a"), ":n": N("1"), ":n2": N("2"), ":b": B([]byte("a")), ":t": Bo(true), ":null": Nul(),
	":l": L(N("9")), ":m": M(), ":ss": SS("a"), ":ss2": SS("b", "c"), ":ns": NS("1"), ":bs": BS([]byte("a")),
	":big": N("99999999999999999999999999999999999999"), ":frac": N("0.000000000000000000000000000000000001"),
	":lempty": L(),
}

var updErrCases = []struct {
	src  string
	expr string
	want string // after "Invalid UpdateExpression: "
}{
	{"dyn syntax errors", "whatever", `Syntax error; token: "whatever", near: "whatever"`},
	{"dyn", "set a", `Syntax error; token: "<EOF>", near: "a"`},
	{"dyn", "add a", `Syntax error; token: "<EOF>", near: "a"`},
	{"dyn", "delete a", `Syntax error; token: "<EOF>", near: "a"`},
	{"dyn", "set a=set", `Syntax error; token: "set", near: "=set"`},
	{"dyn", "remove a = b", `Syntax error; token: "=", near: "a = b"`},
	{"dyn", "add a = b", `Syntax error; token: "=", near: "a = b"`},
	{"dyn", "delete a b", `Syntax error; token: "b", near: "a b"`},
	{"dyn", "remove a b", `Syntax error; token: "b", near: "a b"`},
	{"dyn", "set a b", `Syntax error; token: "b", near: "a b"`},
	{"dyn", "set :a = b", `Syntax error; token: ":a", near: "set :a ="`},
	{"dyn", "remove :a", `Syntax error; token: ":a", near: "remove :a"`},
	{"dyn", "set a = b / c", `Syntax error; token: "/", near: "b / c"`},
	{"dyn", "set a = b * c", `Syntax error; token: "*", near: "b * c"`},
	{"dyn", `set a[1] = "eight"`, `Syntax error; token: """, near: "= "eight"`},
	{"dyn", "set a[1] = 1", `Syntax error; token: "1", near: "= 1"`},
	{"dyn", "set (a = (b + c))", `Syntax error; token: "(", near: "set (a"`},
	{"dyn", "set a = b + c + d", `Syntax error; token: "+", near: "c + d"`},
	{"dyn", "set a = (b.c).d + e", `Syntax error; token: ".", near: ").d"`},
	{"dyn", "SET if_not_exist(a, b) = a", `Syntax error; token: "(", near: "if_not_exist(a"`},
	{"moto test_update_expression_with_trailing_comma", "SET a = :s,", `Syntax error; token: "<EOF>", near: ","`},
	{"upd", "SET a = :s REMOVE", `Syntax error; token: "<EOF>", near: "REMOVE"`},
	{"upd", "a = :s", `Syntax error; token: "a", near: "a ="`},
	{"upd", "SET a = a + (b + c)", `Syntax error; token: "+", near: "b + c"`},
	{"dyn empty UpdateExpression", "", "The expression can not be empty;"},
	{"dyn reserved keywords", " set #c = :s set abOrt = :s ", "Attribute name is a reserved keyword; reserved keyword: abOrt"},
	{"dyn", " remove Absolute ", "Attribute name is a reserved keyword; reserved keyword: Absolute"},
	{"dyn invalid functions", "set #c = if_not_exist(:c) set c = d", "Invalid function name; function: if_not_exist"},
	// An unknown function is named, not a syntax error: scylladb's
	// test_update_expression_unknown_function (run against the service),
	// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_update_expression.py
	{"scylla", "SET a = f(b, c, d)", "Invalid function name; function: f"},
	{"scylla", "SET a = list_remove(a, :n)", "Invalid function name; function: list_remove"},
	// The index is echoed in brackets, as written; 2^31-1 is the largest
	// allowed (DynamoDB Local's DbValidationError.LIST_INDEX_OUTSIDE_RANGE).
	{"ddblocal", "SET l[2147483648] = :n", "List index is not within the allowable range; index: [2147483648]"},
	{"ddblocal", "REMOVE a.l[99999999999]", "List index is not within the allowable range; index: [99999999999]"},
	{"DynamoDB Local DbValidationError INVALID_VALUE_FUNCTION", "set a = size(b)", "The function is not allowed in an update expression; function: size"},
	{"dyn multiple sections", "set a = #c set c = :d", `The "SET" section can only be used once in an update expression;`},
	{"dyn", "remove #d set a = b remove e", `The "REMOVE" section can only be used once in an update expression;`},
	{"dyn", "add #d :e set a = b add e :f", `The "ADD" section can only be used once in an update expression;`},
	{"dyn", "delete #d :e set a = b delete #e :f", `The "DELETE" section can only be used once in an update expression;`},
	{"dyn undefined names", "SET #x = if_not_exists(:c)", "An expression attribute name used in the document path is not defined; attribute name: #x"},
	{"dyn undefined values", "SET #a = if_not_exists(:x)", "An expression attribute value used in expression is not defined; attribute value: :x"},
	{"dyn overlapping paths", "set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [1], a], path two: [c]"},
	{"dyn", "set c.b.#c = a, c = a, #d = a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, b, c], path two: [c]"},
	{"dyn", "set a = b remove a, #c, #d", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
	{"dyn", "set #c[3].#d = a, #c[3] = a", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]"},
	{"dyn", "remove c, #c.a, #d", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c], path two: [c, a]"},
	{"brief", "SET a = :s, a.b = :s", "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
	{"dyn conflicting paths", "set #c[3].#d = a, #c.#d[3] = if_not_exists(a, a)", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3], [3]]"},
	{"dyn", "remove a.#c set a[1] = #d", "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, c], path two: [a, [1]]"},
	{"dyn incorrect types", "set b = list_append(:l, a), c = if_not_exists(a, :n) add a.b :s", "Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
	{"dyn", "delete a.b :s", "Incorrect operand type for operator or function; operator: DELETE, operand type: STRING"},
	{"dyn", "add a.b :null", "Incorrect operand type for operator or function; operator: ADD, operand type: NULL"},
	{"dyn", "delete a.b :t", "Incorrect operand type for operator or function; operator: DELETE, operand type: BOOLEAN"},
	{"dyn", "add a.b :b", "Incorrect operand type for operator or function; operator: ADD, operand type: BINARY"},
	{"dyn", "delete a.b :m", "Incorrect operand type for operator or function; operator: DELETE, operand type: MAP"},
	{"dyn", "add a.b :l", "Incorrect operand type for operator or function; operator: ADD, operand type: LIST"},
	{"dyn", "delete a.b :n", "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
	{"dyn operand counts", "set a = if_not_exists(c)", "Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
	{"dyn", "set a = list_append(c)", "Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
	{"dyn document path operands", "set a = if_not_exists(:s, c)", "Operator or function requires a document path; operator or function: if_not_exists"},
	{"dyn", "set a = if_not_exists(if_not_exists(a, b), c)", "Operator or function requires a document path; operator or function: if_not_exists"},
	{"dyn function operand types", "set a = list_append(:s, a)", "Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
	{"dyn", "set a = list_append(a, :n)", "Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
	{"dyn", "set a = list_append(:ss, a)", "Incorrect operand type for operator or function; operator or function: list_append, operand type: SS"},
	{"dyn", "set a = list_append(:m, a)", "Incorrect operand type for operator or function; operator or function: list_append, operand type: M"},
	{"dyn", "set a = a + :s", "Incorrect operand type for operator or function; operator or function: +, operand type: S"},
	{"dyn", "set a = :b + a", "Incorrect operand type for operator or function; operator or function: +, operand type: B"},
	{"dyn", "set a = a + :l", "Incorrect operand type for operator or function; operator or function: +, operand type: L"},
	{"dyn", "set a = a - :t", "Incorrect operand type for operator or function; operator or function: -, operand type: BOOL"},
	{"dyn", "set a = a - :ns", "Incorrect operand type for operator or function; operator or function: -, operand type: NS"},
	{"quota", "SET a = :s, " + strings.Repeat("b = :s, ", 510) + "c = :s", "Expression size has exceeded the maximum allowed size; expression size: 4098"},
	{"quota", "SET " + strings.Repeat("a = a + :n, ", 300) + "b = b + :n", "The expression contains too many operators; operator count: 301"},
}

func TestUpdateErrors(t *testing.T) {
	ns := names{"#a": "a", "#b": "b", "#c": "c", "#d": "[3]", "#e": "e"}
	for _, c := range updErrCases {
		_, err := ParseUpdate(c.expr, ns, updValues, nil)
		want := "Invalid UpdateExpression: " + c.want
		if got := errMsg(t, err); got != want {
			t.Errorf("%s: %.80q\n got %q\nwant %q", c.src, c.expr, got, want)
		}
	}
}

var updCases = []struct {
	src  string
	expr string
	old  item.Item
	want item.Item
	err  string // a runtime error message instead of want
}{
	{"upd SET", "SET a = :s", It("k", S("x")), It("k", S("x"), "a", S("a")), ""},
	{"upd SET replaces", "SET k = :n", It("k", S("x")), It("k", N("1")), ""},
	{"upd SET copies", "SET a = k", It("k", S("x")), It("k", S("x"), "a", S("x")), ""},
	{"upd SET nested", "SET m.x = :n", It("m", M("y", N("2"))), It("m", M("y", N("2"), "x", N("1"))), ""},
	{"upd SET list element", "SET l[1] = :s", It("l", L(N("1"), N("2"))), It("l", L(N("1"), S("a"))), ""},
	{"upd SET beyond the end appends", "SET l[10] = :s", It("l", L(N("1"))), It("l", L(N("1"), S("a"))), ""},
	{"upd +", "SET a = a + :n", It("a", N("5")), It("a", N("6")), ""},
	{"upd -", "SET a = a - :n2", It("a", N("5")), It("a", N("3")), ""},
	{"upd - into negatives", "SET a = :n - a", It("a", N("5")), It("a", N("-4")), ""},
	{"upd 38-digit precision", "SET a = a + :frac", It("a", N("1")), It("a", N("1.000000000000000000000000000000000001")), ""},
	{"https://github.com/nubo-db/dynoxide/issues/35 parenthesized arithmetic", "SET c = (c - :n)", It("c", N("10")), It("c", N("9")), ""},
	{"upd", "SET c = (c) + (:n)", It("c", N("10")), It("c", N("11")), ""},
	{"upd list_append", "SET l = list_append(l, :l)", It("l", L(N("1"))), It("l", L(N("1"), N("9"))), ""},
	{"upd list_append prepends", "SET l = list_append(:l, l)", It("l", L(N("1"))), It("l", L(N("9"), N("1"))), ""},
	{"upd if_not_exists missing", "SET a = if_not_exists(a, :n)", It(), It("a", N("1")), ""},
	{"upd if_not_exists present", "SET a = if_not_exists(a, :n)", It("a", N("7")), It("a", N("7")), ""},
	{"upd counter idiom", "SET a = if_not_exists(a, :n) + :n2", It(), It("a", N("3")), ""},
	{"upd list_append(if_not_exists)", "SET l = list_append(if_not_exists(l, :lempty), :l)", It(), It("l", L(N("9"))), ""},
	{"https://github.com/nubo-db/dynoxide/issues/35 operands read the old item", "SET a = :s, b = a", It("a", S("old")), It("a", S("a"), "b", S("old")), ""},
	{"upd swap", "SET a = b, b = a", It("a", N("1"), "b", N("2")), It("a", N("2"), "b", N("1")), ""},
	{"upd REMOVE", "REMOVE a, b", It("a", N("1"), "b", N("2"), "c", N("3")), It("c", N("3")), ""},
	{"upd REMOVE missing is fine", "REMOVE z", It("c", N("3")), It("c", N("3")), ""},
	{"upd REMOVE nested", "REMOVE m.x", It("m", M("x", N("1"), "y", N("2"))), It("m", M("y", N("2"))), ""},
	{"upd REMOVE list elements shifts the rest", "REMOVE l[1], l[2]", It("l", L(N("0"), N("1"), N("2"), N("3"))), It("l", L(N("0"), N("3"))), ""},
	{"upd REMOVE beyond the end", "REMOVE l[9]", It("l", L(N("0"))), It("l", L(N("0"))), ""},
	{"upd ADD number", "ADD a :n", It("a", N("5")), It("a", N("6")), ""},
	{"upd ADD creates a number", "ADD a :n2", It(), It("a", N("2")), ""},
	{"upd ADD set union", "ADD s :ss2", It("s", SS("a", "b")), It("s", SS("a", "b", "c")), ""},
	{"upd ADD creates a set", "ADD s :ss", It(), It("s", SS("a")), ""},
	{"upd ADD nested", "ADD m.c :n", It("m", M()), It("m", M("c", N("1"))), ""},
	{"upd DELETE members", "DELETE s :ss", It("s", SS("a", "b")), It("s", SS("b")), ""},
	{"upd DELETE last member removes the attribute", "DELETE s :ss", It("s", SS("a"), "k", N("1")), It("k", N("1")), ""},
	{"upd SET far past the end appends", "SET l[2000000000] = :s", It("l", L(N("1"))), It("l", L(N("1"), S("a"))), ""},
	{"upd SET at the largest index appends", "SET l[2147483647] = :s", It("l", L()), It("l", L(S("a"))), ""},
	{"upd REMOVE far past the end is a no-op", "REMOVE l[2000000000]", It("l", L(N("1"))), It("l", L(N("1"))), ""},
	{"upd DELETE from missing", "DELETE s :ss", It("k", N("1")), It("k", N("1")), ""},
	{"upd DELETE number set", "DELETE s :ns", It("s", NS("1", "2")), It("s", NS("2")), ""},
	{"upd DELETE binary set", "DELETE s :bs", It("s", BS([]byte("a"))), It(), ""},
	{"upd all clauses", "SET a = :s REMOVE b ADD c :n DELETE d :ss", It("b", N("1"), "c", N("1"), "d", SS("a", "z")), It("a", S("a"), "c", N("2"), "d", SS("z")), ""},
	{"dyn nested update ordering (updateItem.js 'should update nested attributes')",
		"set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, c[4] = b.a - b.b, c[2] = b.c add c[8] :ss, c[6] :n2",
		It("a", S("k"), "b", M("a", N("1"), "b", N("2"), "c", N("3")), "c", L(N("1"), N("3"))),
		It("a", S("k"), "b", M("a", S("k"), "b", N("2"), "c", N("4")), "c", L(N("1"), S("k"), N("3"), N("-1"), N("2"), SS("a"))), ""},
	// Runtime errors (dynalite updateItem.js against the service).
	{"dyn: operand of the wrong type", "SET e = a + :n", It("a", S("x")), nil, msgIncorrectType},
	{"dyn", "SET e = list_append(a, :l)", It("a", SS("x")), nil, msgIncorrectType},
	{"dyn", "ADD a :n", It("a", S("x")), nil, msgIncorrectType},
	{"dyn", "ADD a :ns", It("a", SS("x")), nil, msgIncorrectType},
	{"dyn", "ADD a :n", It("a", NS("1")), nil, msgIncorrectType},
	{"dyn", "DELETE a :ns", It("a", SS("x")), nil, msgIncorrectType},
	{"dyn", "DELETE a :ns", It("a", N("1")), nil, msgIncorrectType},
	{"dyn: missing operand", "SET c = b", It(), nil, msgMissingOperand},
	{"dyn", "SET e = list_append(b, c)", It(), nil, msgMissingOperand},
	{"dyn: missing parent", "SET b.a = :s", It(), nil, msgInvalidPath},
	{"dyn", "SET b[1] = :s", It(), nil, msgInvalidPath},
	{"dyn: parent of the wrong type", "SET b.a = :s", It("b", S("x")), nil, msgInvalidPath},
	{"dyn", "SET c[1] = :s", It("c", M("1", S("a"))), nil, msgInvalidPath},
	{"dyn", "SET d.x = :s", It("d", L(S("a"))), nil, msgInvalidPath},
	{"dyn", "REMOVE y.a", It(), nil, msgInvalidPath},
	{"dyn", "REMOVE c[1]", It("c", M("1", S("a"))), nil, msgInvalidPath},
	{"dyn", "ADD y.a :ss", It(), nil, msgInvalidPath},
	{"dyn", "DELETE y.a :ss", It(), nil, msgInvalidPath},
	{"dyn", "SET a.b.c = :s", It("a", M()), nil, msgInvalidPath},
}

func TestUpdateApply(t *testing.T) {
	for _, c := range updCases {
		u, err := ParseUpdate(c.expr, nil, updValues, nil)
		if err != nil {
			t.Errorf("%s: %q: %v", c.src, c.expr, err)
			continue
		}
		before := item.CloneItem(c.old)
		got, err := u.Apply(c.old)
		if !itemEqual(c.old, before) {
			t.Errorf("%s: %q modified the old item", c.src, c.expr)
		}
		if c.err != "" {
			if msg := errMsg(t, err); msg != c.err {
				t.Errorf("%s: %q: error %q, want %q", c.src, c.expr, msg, c.err)
			}
			continue
		}
		if err != nil || !itemEqual(got, c.want) {
			t.Errorf("%s: %q:\n got %v, %v\nwant %v", c.src, c.expr, got, err, c.want)
		}
	}
}

func TestUpdatedValues(t *testing.T) {
	// dyn "should update nested attributes": UPDATED_NEW holds only the updated paths;
	// https://github.com/nubo-db/dynoxide/pull/51: a nested SET returns only that element.
	old := It("a", S("k"), "b", M("a", N("1"), "b", N("2"), "c", N("3")), "c", L(N("1"), N("3")))
	u, err := ParseUpdate("set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, c[4] = b.a - b.b, c[2] = b.c add c[8] :ss, c[6] :n2", nil, updValues, nil)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := u.Apply(old)
	if err != nil {
		t.Fatal(err)
	}
	want := It("b", M("a", S("k"), "c", N("4")), "c", L(S("k"), N("3"), N("2")))
	if got := u.Updated(nw); !itemEqual(got, want) {
		t.Errorf("UPDATED_NEW %v want %v", got, want)
	}
	wantOld := It("b", M("a", N("1"), "c", N("3")), "c", L(N("3")))
	if got := u.Updated(old); !itemEqual(got, wantOld) {
		t.Errorf("UPDATED_OLD %v want %v", got, wantOld)
	}
	// rv: a REMOVE-only update has no UPDATED_NEW attributes.
	u, _ = ParseUpdate("REMOVE b", nil, nil, nil)
	nw, _ = u.Apply(old)
	if got := u.Updated(nw); len(got) != 0 {
		t.Errorf("UPDATED_NEW after REMOVE: %v", got)
	}
	if got := u.Updated(old); !itemEqual(got, It("b", old["b"])) {
		t.Errorf("UPDATED_OLD after REMOVE: %v", got)
	}
}

func TestCheckKeyUpdate(t *testing.T) {
	// dyn "should return ValidationException if trying to update key".
	for _, e := range []string{"add a.b :n", "delete a :ns", "remove d set b = :n, a = :n", "set a = a.b + a[1]"} {
		u, err := ParseUpdate(e, nil, updValues, nil)
		if err != nil {
			t.Fatal(e, err)
		}
		want := "One or more parameter values were invalid: Cannot update attribute a. This attribute is part of the key"
		if got := errMsg(t, u.CheckKeyUpdate("a", "z")); got != want {
			t.Errorf("%q: %q", e, got)
		}
	}
	u, _ := ParseUpdate("SET b = :n", nil, updValues, nil)
	if err := u.CheckKeyUpdate("a"); err != nil {
		t.Error(err)
	}
}

// TestRemovesOnly: updates that only take something away do not create a
// missing item (https://github.com/scylladb/scylladb/issues/5862 quotes the
// service's behaviour).
func TestRemovesOnly(t *testing.T) {
	for e, want := range map[string]bool{
		"REMOVE a":                     true,
		"REMOVE a, b.c[1]":             true,
		"DELETE s :ss":                 true,
		"REMOVE a DELETE s :ns":        true,
		"REMOVE a SET b = :n":          false,
		"ADD n :n":                     false,
		"ADD s :ss REMOVE a":           false,
		"SET a = if_not_exists(a, :n)": false,
	} {
		u, err := ParseUpdate(e, nil, updValues, nil)
		if err != nil {
			t.Fatal(e, err)
		}
		if got := u.RemovesOnly(); got != want {
			t.Errorf("%q: RemovesOnly = %v, want %v", e, got, want)
		}
	}
	for _, tc := range []struct {
		updates map[string]AttributeValueUpdate
		want    bool
	}{
		{map[string]AttributeValueUpdate{}, false},
		{map[string]AttributeValueUpdate{"a": {Action: "DELETE"}}, true},
		{map[string]AttributeValueUpdate{"a": {Action: "DELETE", Value: ptr(SS("x"))}}, true},
		{map[string]AttributeValueUpdate{"a": {Action: "DELETE"}, "b": {Action: "PUT", Value: ptr(N("1"))}}, false},
	} {
		u, err := ConvertAttributeUpdates(tc.updates)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.RemovesOnly(); got != tc.want {
			t.Errorf("%v: RemovesOnly = %v, want %v", tc.updates, got, tc.want)
		}
	}
}
