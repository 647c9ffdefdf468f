package expr

import (
	"strings"
	"testing"
)

// Sources cited by the cases below:
//
//	ops   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
//	names https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeNames.html
//	vals  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeValues.html
//	resv  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ReservedWords.html
//	quota https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-expression-parameters
//	dyn   architect/dynalite test/updateItem.js and validations/index.js (messages checked against the service)
//	moto  getmoto/moto tests (messages checked against the service)
//	iss   GitHub threads quoting the service, cited by URL in the case

type condErrCase struct {
	src  string // where the expected message comes from
	kind Kind
	expr string
	want string // message after "Invalid <Kind>: ", or full message when starting with "!"
}

var condValues = vals{":s": S("a"), ":n": N("1"), ":n2": N("2"), ":b": B([]byte("a")), ":t": Bo(true), ":null": Nul(), ":l": L(), ":m": M(), ":ss": SS("a"), ":type": S("S"), ":badtype": S("X")}
var condNames = names{"#a": "a", "#s": "status", "#d": "[3]"}

var condErrCases = []condErrCase{
	// Syntax errors name the token and the text around it.
	{"moto test_dynamodb_condition_expressions (DynamoDB Local and real DynamoDB)", KindCondition, "foo", `Syntax error; token: "<EOF>", near: "foo"`},
	{"https://github.com/aws/aws-sdk-js issue quoting FilterExpression errors", KindFilter, "contains (themes, :s", `Syntax error; token: "<EOF>", near: ":s"`},
	{"dynalite ConditionCheck test (attribute_not_exists()", KindCondition, "attribute_not_exists(", `Syntax error; token: "<EOF>", near: "("`},
	{"ops: a function needs at least one operand", KindCondition, "attribute_type()", `Syntax error; token: ")", near: "()"`},
	{"ops: a bare path is not a condition", KindFilter, "NOT (#a)", `Syntax error; token: "<EOF>", near: ")"`},
	{"ops", KindCondition, "a b", `Syntax error; token: "b", near: "a b"`},
	{"ops", KindCondition, "a = ", `Syntax error; token: "<EOF>", near: "= "`},
	{"ops", KindCondition, "a =", `Syntax error; token: "<EOF>", near: "="`},
	{"ops", KindCondition, "a = :n AND", `Syntax error; token: "<EOF>", near: "AND"`},
	{"ops: no literals in expressions", KindCondition, "a = 1", `Syntax error; token: "1", near: "= 1"`},
	{"ops", KindCondition, "a == :n", `Syntax error; token: "=", near: "== :n"`},
	{"ops", KindCondition, "a != :n", `Syntax error; token: "!", near: "a !="`},
	{"ops", KindCondition, "(a = :n", `Syntax error; token: "<EOF>", near: ":n"`},
	{"ops", KindCondition, "a = :n)", `Syntax error; token: ")", near: ":n)"`},
	{"ops", KindCondition, "a = :n OR", `Syntax error; token: "<EOF>", near: "OR"`},
	{"ops: NOT applies to a condition", KindCondition, "NOT a", `Syntax error; token: "<EOF>", near: "a"`},
	{"ops", KindCondition, "a BETWEEN :n", `Syntax error; token: "<EOF>", near: ":n"`},
	{"ops", KindCondition, "a BETWEEN :n OR :n2", `Syntax error; token: "OR", near: ":n OR :n2"`},
	{"ops", KindCondition, "a IN :n", `Syntax error; token: ":n", near: "IN :n"`},
	{"ops", KindCondition, "a IN ()", `Syntax error; token: ")", near: "()"`},
	{"ops", KindCondition, "a = :n = :n", `Syntax error; token: "=", near: ":n = :n"`},
	{"ops: keywords are not paths", KindCondition, "and = :n", `Syntax error; token: "and", near: "and ="`},
	{"ops", KindCondition, "a.b. = :n", `Syntax error; token: "=", near: ". = :n"`},
	{"ops", KindCondition, "a[x] = :n", `Syntax error; token: "x", near: "[x]"`},
	{"ops", KindCondition, "a[1 = :n", `Syntax error; token: "=", near: "1 = :n"`},
	{"ops", KindCondition, "# = :n", `Syntax error; token: "#", near: "# ="`},
	{"ops", KindCondition, "a = :", `Syntax error; token: ":", near: "= :"`},
	{"ops: a parenthesized condition is not an operand", KindCondition, "(a = :n) = :n", `Syntax error; token: "=", near: ") = :n"`},
	{"ops", KindCondition, "a = (b = :n)", `Syntax error; token: "=", near: "b = :n"`},
	{"ops", KindCondition, "a = :n AND (b)", `Syntax error; token: "<EOF>", near: ")"`},
	{"dyn conditionParser: NOT takes no NOT", KindCondition, "NOT NOT a = :n", `Syntax error; token: "NOT", near: "NOT NOT a"`},
	{"ops", KindCondition, "a = :n ,", `Syntax error; token: ",", near: ":n ,"`},
	{"ops", KindCondition, "a < = :n", `Syntax error; token: "=", near: "< = :n"`},
	{"ops", KindCondition, "é = :n", `Syntax error; token: "é", near: "é ="`},
	// Empty and oversized expressions.
	{"dyn test/updateItem.js empty ConditionExpression", KindCondition, "", "The expression can not be empty;"},
	{"dyn", KindFilter, "  ", "The expression can not be empty;"},
	{"https://github.com/pynamodb/PynamoDB/issues/979", KindFilter, "a = :n OR " + strings.Repeat("a = :n OR ", 410) + "a = :n", "Expression size has exceeded the maximum allowed size; expression size: 4116"},
	{"https://github.com/aws/aws-sdk-js/issues/3721", KindFilter, strings.Repeat("a < :n OR ", 150) + "a < :n", "The expression contains too many operators; operator count: 301"},
	{"https://github.com/reapit/foundations/issues/8255", KindFilter, "a IN (" + strings.Repeat(":n, ", 100) + ":n)", "The IN operator is provided with too many operands; number of operands: 101"},
	{"scylladb alternator test_projection_expression (service message)", KindCondition, "a" + strings.Repeat(".b", 32) + " = :n", "The document path has too many nesting levels; nesting levels: 33"},
	// Redundant parentheses.
	{"https://github.com/ExtendDB/extenddb/issues/130", KindFilter, "((a = :n))", "The expression has redundant parentheses;"},
	{"dyn conditionParser", KindCondition, "((a)) = :n", "The expression has redundant parentheses;"},
	// Functions.
	{"dyn conditionParser", KindCondition, "foo(a)", "Invalid function name; function: foo"},
	{"ops: size() must be compared", KindCondition, "size(a)", "The function is not allowed to be used this way in an expression; function: size"},
	{"ops", KindCondition, "begins_with(a, :s) = :t", "The function is not allowed to be used this way in an expression; function: begins_with"},
	{"ops", KindCondition, "contains(attribute_exists(a), :s)", "The function is not allowed to be used this way in an expression; function: attribute_exists"},
	{"DynamoDB Local DbValidationError INVALID_CONDITION_FUNCTION", KindCondition, "if_not_exists(a, :n) = :n", "The function is not allowed in a condition expression; function: if_not_exists"},
	{"dyn", KindCondition, "contains(a)", "Incorrect number of operands for operator or function; operator or function: contains, number of operands: 1"},
	{"dyn", KindCondition, "begins_with(a, :s, :s)", "Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 3"},
	{"dyn", KindCondition, "size(a, b) = :n", "Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"},
	{"dyn", KindCondition, "attribute_exists(:s)", "Operator or function requires a document path; operator or function: attribute_exists"},
	{"dyn", KindCondition, "attribute_not_exists(size(a))", "Operator or function requires a document path; operator or function: attribute_not_exists"},
	{"brief / dyn", KindCondition, "begins_with(a, :n)", "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
	{"dyn", KindCondition, "begins_with(:t, a)", "Incorrect operand type for operator or function; operator or function: begins_with, operand type: BOOL"},
	{"dyn", KindCondition, "begins_with(a, size(b))", "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
	{"dyn", KindCondition, "size(:n) = :n", "Incorrect operand type for operator or function; operator or function: size, operand type: N"},
	{"dyn", KindCondition, "size(:t) = :n", "Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
	{"dyn", KindCondition, "size(:null) = :n", "Incorrect operand type for operator or function; operator or function: size, operand type: NULL"},
	{"dyn", KindCondition, "size(size(a)) = :n", "Incorrect operand type for operator or function; operator or function: size, operand type: N"},
	{"dyn", KindCondition, "attribute_type(a, :n)", "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
	{"dyn", KindCondition, "attribute_type(a, b)", "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"},
	{"dyn", KindCondition, "attribute_type(a, :badtype)", "Invalid attribute type name found; type: X, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
	{"dyn", KindCondition, "a = a", "The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
	{"dyn", KindCondition, "a.b[1] <> #a.b[1]", "The first operand must be distinct from the remaining operands for this operator or function; operator: <>, first operand: [a, b, [1]]"},
	{"dyn", KindCondition, "begins_with(a, a)", "The first operand must be distinct from the remaining operands for this operator or function; operator: begins_with, first operand: [a]"},
	{"dyn", KindCondition, "a BETWEEN :n AND :s", "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}"},
	{"dyn", KindCondition, "a BETWEEN :n2 AND :n", "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}"},
	// Ordering comparisons take only strings, numbers and binaries; a literal
	// of another type is the request's fault, for every operator and type.
	// iss https://github.com/scylladb/scylladb/issues/8043 (Expected and expressions alike)
	// and https://github.com/scylladb/scylladb/issues/14592 (the message's form).
	{"iss", KindCondition, "a < :t", "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
	{"iss", KindCondition, "a <= :null", "Incorrect operand type for operator or function; operator or function: <=, operand type: NULL"},
	{"iss", KindCondition, "a > :l", "Incorrect operand type for operator or function; operator or function: >, operand type: L"},
	{"iss", KindCondition, "a >= :m", "Incorrect operand type for operator or function; operator or function: >=, operand type: M"},
	{"iss", KindFilter, ":ss < a", "Incorrect operand type for operator or function; operator or function: <, operand type: SS"},
	{"iss", KindCondition, "a BETWEEN :t AND :t", "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL"},
	{"iss", KindCondition, "a BETWEEN :n AND :l", "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L"},
	{"iss: a failed sibling does not hide it", KindCondition, "a = :n OR NOT a > :ss", "Incorrect operand type for operator or function; operator or function: >, operand type: SS"},
	// Names, values and reserved words.
	{"resv / brief", KindFilter, "status = :s", "Attribute name is a reserved keyword; reserved keyword: status"},
	{"resv: case-insensitive, reported as written", KindCondition, "a.Size = :n", "Attribute name is a reserved keyword; reserved keyword: Size"},
	{"resv", KindCondition, "attribute_exists(data)", "Attribute name is a reserved keyword; reserved keyword: data"},
	{"names", KindCondition, "#x = :n", "An expression attribute name used in the document path is not defined; attribute name: #x"},
	{"vals", KindCondition, "a = :x", "An expression attribute value used in expression is not defined; attribute value: :x"},
	{"vals: first undefined in source order", KindCondition, "a = :x AND #y = :n", "An expression attribute value used in expression is not defined; attribute value: :x"},
	{"dyn errorOrder: misuse before reserved", KindCondition, "size(status)", "The function is not allowed to be used this way in an expression; function: size"},
	{"dyn errorOrder: reserved before undefined names", KindCondition, "#x = :n AND status = :n", "Attribute name is a reserved keyword; reserved keyword: status"},
	{"dyn errorOrder: unknown function before misuse", KindCondition, "size(a) AND foo(b)", "Invalid function name; function: foo"},
}

func TestConditionErrors(t *testing.T) {
	for _, c := range condErrCases {
		_, err := ParseCondition(c.kind, c.expr, condNames, condValues, nil)
		want := "Invalid " + string(c.kind) + ": " + c.want
		if strings.HasPrefix(c.want, "!") {
			want = c.want[1:]
		}
		if got := errMsg(t, err); got != want {
			t.Errorf("%s: %.80q\n got %q\nwant %q", c.src, c.expr, got, want)
		}
	}
}

// Valid expressions from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
var condOK = []string{
	"a = :n", "a <> :n", "a < :n", "a <= :n", "a > :n", "a >= :n",
	"a BETWEEN :n AND :n2", "a IN (:n)", "a IN (:n, :n2, :s)",
	"attribute_exists(a)", "attribute_not_exists(#a.b[2].c)", "attribute_type(a, :type)",
	"begins_with(a, :s)", "begins_with(a, :b)", "contains(a, :s)", "contains(a, :n)", "size(a) > :n",
	":n < size(a)", "size(a) = size(b)", "a = b", "a.b = a.c", "NOT a = :n", "NOT (a = :n)",
	"a = :n AND b = :n OR c = :n", "(a = :n)", "(a) = :n", "((a) = :n)", "(a = :n) AND (b = :n)",
	"a.b[1].c = :n", "a [ 1 ] . b = :n", "#a = :n", "#s = :s", "#d = :n",
	"a=:n AND(b=:n)OR NOT(c=:n)", "a = :n and b = :n or not c = :n", "A BETWEEN :n and :n2",
	"a In (:n)", "a = :s AND attribute_exists(b) AND contains(c, :s)", ":n = :n", "a = :null",
	"_a = :n", "a1_b = :n", "a = :n\n\tAND\r\nb = :n", "NOT attribute_exists(a)",
	"size(a) BETWEEN :n AND :n2", "size(a) IN (:n, :n2)", "a" + strings.Repeat(".b", 31) + " = :n",
	"attribute_type(a, :type) OR NOT begins_with(b, :s)",
	"a = :t", "a <> :l", "a IN (:m, :null)", "a < :b", "a BETWEEN :s AND :s",
}

func TestConditionParses(t *testing.T) {
	for _, e := range condOK {
		if _, err := ParseCondition(KindCondition, e, condNames, condValues, nil); err != nil {
			t.Errorf("%q: %v", e, err)
		}
	}
}

func TestPrecedence(t *testing.T) {
	// NOT binds tighter than AND, AND tighter than OR:
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Precedence
	c, err := ParseCondition(KindCondition, "a = :n OR b = :n AND NOT c = :n", nil, condValues, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := c.root
	if r.kind != nOr || r.args[1].kind != nAnd || r.args[1].args[1].kind != nNot {
		t.Fatalf("wrong tree")
	}
}

func TestUsage(t *testing.T) {
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeNames.html
	// Messages: dynalite test/updateItem.js "extra ExpressionAttributeNames/Values".
	u := NewUsage()
	ns := names{"#a": "a", "#b": "b", "#c": "c"}
	vs := vals{":a": S("x"), ":b": S("y"), ":c": S("z")}
	if _, err := ParseCondition(KindCondition, "#a = :a", ns, vs, u); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseProjection("#b", ns, u); err != nil {
		t.Fatal(err)
	}
	want := "Value provided in ExpressionAttributeNames unused in expressions: keys: {#c}"
	if got := errMsg(t, u.CheckUnused(ns, vs)); got != want {
		t.Fatalf("got %q", got)
	}
	delete(ns, "#c")
	want = "Value provided in ExpressionAttributeValues unused in expressions: keys: {:b, :c}"
	if got := errMsg(t, u.CheckUnused(ns, vs)); got != want {
		t.Fatalf("got %q", got)
	}
	if _, err := ParseUpdate("SET x = :b, y = :c", ns, vs, u); err != nil {
		t.Fatal(err)
	}
	if err := u.CheckUnused(ns, vs); err != nil {
		t.Fatal(err)
	}
	var nilUsage *Usage
	if nilUsage.NameUsed("#a") || nilUsage.ValueUsed(":a") {
		t.Fatal("nil usage")
	}
}

func TestReservedWords(t *testing.T) {
	// 573 words: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ReservedWords.html
	if len(reservedWords) != 573 {
		t.Fatalf("%d reserved words", len(reservedWords))
	}
	for _, w := range []string{"status", "STATUS", "Name", "data", "ttl", "year", "zone", "abort"} {
		if !IsReserved(w) {
			t.Errorf("%s not reserved", w)
		}
	}
	for _, w := range []string{"statuses", "pk", "sk", "id", "price", "if_not_exists", "verylongnamethatisnotreserved"} {
		if IsReserved(w) {
			t.Errorf("%s reserved", w)
		}
	}
}

func TestLexer(t *testing.T) {
	toks := lex("a.b[10] <= :v1 <> #n_1(é)")
	var kinds []tokKind
	for _, tk := range toks {
		if tk.kind != tkSpace {
			kinds = append(kinds, tk.kind)
		}
	}
	want := []tokKind{tkIdent, tkDot, tkIdent, tkLBracket, tkNumber, tkRBracket, tkLe, tkValue, tkNe, tkName, tkLParen, tkOther, tkRParen, tkEOF}
	if len(kinds) != len(want) {
		t.Fatalf("got %v", kinds)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("token %d: got %v want %v", i, kinds[i], want[i])
		}
	}
}
