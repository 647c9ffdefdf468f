package expr

import (
	"encoding/json"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// Sources:
//
//	cond https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html
//	exp  https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExpectedAttributeValue.html
//	avu  https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValueUpdate.html
//	leg  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html
//	dyn  architect/dynalite validations/index.js, validations/updateItem.js, test/updateItem.js

func lc(op string, vs ...item.AttributeValue) LegacyCondition {
	return LegacyCondition{ComparisonOperator: op, AttributeValueList: vs}
}

func ptr[T any](v T) *T { return &v }

var legacyItem = It("s", S("hello"), "n", N("10"), "ss", SS("a", "b"), "l", L(S("x")), "b", B([]byte{1, 2}))

var filterCases = []struct {
	src  string
	f    map[string]LegacyCondition
	op   string
	want bool
}{
	{"cond EQ", map[string]LegacyCondition{"s": lc("EQ", S("hello"))}, "", true},
	{"cond EQ on lists", map[string]LegacyCondition{"l": lc("EQ", L(S("x")))}, "", true},
	{"cond NE", map[string]LegacyCondition{"s": lc("NE", S("hello"))}, "", false},
	{"cond NE missing", map[string]LegacyCondition{"z": lc("NE", S("hello"))}, "", true},
	{"cond LT", map[string]LegacyCondition{"n": lc("LT", N("11"))}, "", true},
	{"cond LE", map[string]LegacyCondition{"n": lc("LE", N("10"))}, "", true},
	{"cond GT", map[string]LegacyCondition{"n": lc("GT", N("10"))}, "", false},
	{"cond GE", map[string]LegacyCondition{"n": lc("GE", N("10"))}, "", true},
	{"cond GT across types", map[string]LegacyCondition{"s": lc("GT", N("1"))}, "", false},
	{"cond NULL", map[string]LegacyCondition{"z": lc("NULL")}, "", true},
	{"cond NOT_NULL", map[string]LegacyCondition{"s": lc("NOT_NULL")}, "", true},
	{"cond CONTAINS substring", map[string]LegacyCondition{"s": lc("CONTAINS", S("ell"))}, "", true},
	{"cond CONTAINS set member", map[string]LegacyCondition{"ss": lc("CONTAINS", S("a"))}, "", true},
	{"cond CONTAINS binary subsequence", map[string]LegacyCondition{"b": lc("CONTAINS", B([]byte{2}))}, "", true},
	{"cond NOT_CONTAINS", map[string]LegacyCondition{"ss": lc("NOT_CONTAINS", S("z"))}, "", true},
	{"cond NOT_CONTAINS member", map[string]LegacyCondition{"ss": lc("NOT_CONTAINS", S("a"))}, "", false},
	{"cond NOT_CONTAINS missing attribute", map[string]LegacyCondition{"z": lc("NOT_CONTAINS", S("a"))}, "", false},
	{"cond BEGINS_WITH", map[string]LegacyCondition{"s": lc("BEGINS_WITH", S("he"))}, "", true},
	{"cond IN", map[string]LegacyCondition{"n": lc("IN", N("1"), N("10"))}, "", true},
	{"cond BETWEEN", map[string]LegacyCondition{"n": lc("BETWEEN", N("1"), N("10"))}, "", true},
	{"leg AND", map[string]LegacyCondition{"n": lc("EQ", N("10")), "s": lc("EQ", S("x"))}, "AND", false},
	{"leg OR", map[string]LegacyCondition{"n": lc("EQ", N("10")), "s": lc("EQ", S("x"))}, "OR", true},
}

func TestConvertFilter(t *testing.T) {
	for _, c := range filterCases {
		cond, err := ConvertFilter("ScanFilter", c.f, c.op)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got, _ := cond.Eval(legacyItem); got != c.want {
			t.Errorf("%s: got %v", c.src, got)
		}
	}
	if cond, err := ConvertFilter("ScanFilter", nil, ""); cond != nil || err != nil {
		t.Error("empty filter")
	}
}

var filterErrCases = []struct {
	src  string
	f    map[string]LegacyCondition
	want string
}{
	{"dyn validateConditions", map[string]LegacyCondition{"a": lc("EQ")}, "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"},
	{"dyn", map[string]LegacyCondition{"a": lc("NULL", S("a"))}, "One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
	{"dyn", map[string]LegacyCondition{"a": lc("BETWEEN", S("a"))}, "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
	{"dyn", map[string]LegacyCondition{"a": lc("IN")}, "One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator"},
	{"dyn", map[string]LegacyCondition{"a": lc("IN", S("a"), N("1"))}, "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"},
	{"dyn / cond", map[string]LegacyCondition{"a": lc("LT", SS("a"))}, "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS AttributeValue type"},
	{"dyn / cond", map[string]LegacyCondition{"a": lc("BEGINS_WITH", N("1"))}, "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
	{"dyn", map[string]LegacyCondition{"a": lc("BETWEEN", N("2"), N("1"))}, "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
	{"cond enum", map[string]LegacyCondition{"a": lc("LIKE", S("a"))}, "1 validation error detected: Value 'LIKE' at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
}

func TestConvertFilterErrors(t *testing.T) {
	for _, c := range filterErrCases {
		_, err := ConvertFilter("ScanFilter", c.f, "")
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestConvertExpected(t *testing.T) {
	cases := []struct {
		src  string
		e    map[string]ExpectedAttributeValue
		want bool
		err  string
	}{
		{"exp Value", map[string]ExpectedAttributeValue{"s": {Value: ptr(S("hello"))}}, true, ""},
		{"exp Value with Exists true", map[string]ExpectedAttributeValue{"s": {Value: ptr(S("x")), Exists: ptr(true)}}, false, ""},
		{"exp Exists false", map[string]ExpectedAttributeValue{"z": {Exists: ptr(false)}}, true, ""},
		{"exp Exists false on present", map[string]ExpectedAttributeValue{"s": {Exists: ptr(false)}}, false, ""},
		{"exp ComparisonOperator", map[string]ExpectedAttributeValue{"n": {ComparisonOperator: "GT", AttributeValueList: []item.AttributeValue{N("5")}}}, true, ""},
		{"exp ComparisonOperator with Value", map[string]ExpectedAttributeValue{"n": {ComparisonOperator: "EQ", Value: ptr(N("10"))}}, true, ""},
		{"dyn", map[string]ExpectedAttributeValue{"a": {Value: ptr(S("a")), AttributeValueList: []item.AttributeValue{S("a")}}}, false, "One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "EQ", Exists: ptr(true), Value: ptr(S("a"))}}, false, "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "EQ"}}, false, "One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {AttributeValueList: []item.AttributeValue{S("a")}}}, false, "One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {}}, false, "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {Exists: ptr(true)}}, false, "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {Exists: ptr(false), Value: ptr(S("a"))}}, false, "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"},
		{"dyn", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "NULL", AttributeValueList: []item.AttributeValue{S("a")}}}, false, "One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
	}
	for _, c := range cases {
		cond, err := ConvertExpected(c.e, "")
		if c.err != "" {
			if got := errMsg(t, err); got != c.err {
				t.Errorf("%s:\n got %q\nwant %q", c.src, got, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got, _ := cond.Eval(legacyItem); got != c.want {
			t.Errorf("%s: got %v", c.src, got)
		}
	}
}

func TestConvertKeyConditions(t *testing.T) {
	schema := KeySchema{PartitionKey: "pk", SortKey: "sk"}
	kc, err := ConvertKeyConditions(map[string]LegacyCondition{"pk": lc("EQ", S("p")), "sk": lc("BEGINS_WITH", S("a"))}, schema)
	if err != nil || kc.SortOp != SortBeginsWith || kc.SortKey != "sk" || !item.Equal(kc.PartitionValue, S("p")) {
		t.Fatalf("%+v %v", kc, err)
	}
	errs := []struct {
		src  string
		c    map[string]LegacyCondition
		want string
	}{
		{"dyn actions/query.js", map[string]LegacyCondition{"pk": lc("EQ", S("p")), "sk": lc("CONTAINS", S("a"))}, "Attempted conditional constraint is not an indexable operation"},
		{"dyn", map[string]LegacyCondition{"pk": lc("EQ", S("p")), "sk": lc("NULL")}, "Attempted conditional constraint is not an indexable operation"},
		{"dyn", map[string]LegacyCondition{"sk": lc("EQ", S("p"))}, "Query condition missed key schema element: pk"},
		{"dyn", map[string]LegacyCondition{"pk": lc("GT", S("p"))}, "Query key condition not supported"},
		{"dyn", map[string]LegacyCondition{"pk": lc("EQ", S("p")), "x": lc("EQ", S("p"))}, "Query condition missed key schema element: sk"},
		{"dyn validations/query.js", map[string]LegacyCondition{"pk": lc("EQ", S("p")), "sk": lc("EQ", S("p")), "x": lc("EQ", S("p"))}, "Conditions can be of length 1 or 2 only"},
		{"dyn", map[string]LegacyCondition{"pk": lc("EQ")}, "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"},
	}
	for _, c := range errs {
		_, err := ConvertKeyConditions(c.c, schema)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestConvertAttributeUpdates(t *testing.T) {
	old := It("k", S("key"), "n", N("1"), "ss", SS("a", "b"), "l", L(S("x")), "gone", S("bye"))
	u, err := ConvertAttributeUpdates(map[string]AttributeValueUpdate{
		"p":    {Value: ptr(S("put"))},
		"n":    {Action: "ADD", Value: ptr(N("2"))},
		"new":  {Action: "ADD", Value: ptr(N("5"))},
		"ss":   {Action: "DELETE", Value: ptr(SS("a"))},
		"l":    {Action: "ADD", Value: ptr(L(S("y")))},
		"gone": {Action: "DELETE"},
		"set":  {Action: "ADD", Value: ptr(NS("1"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := u.Apply(old)
	if err != nil {
		t.Fatal(err)
	}
	// avu / dyn "should just add valid ADD actions if nothing exists", "should add list value".
	want := It("k", S("key"), "p", S("put"), "n", N("3"), "new", N("5"), "ss", SS("b"), "l", L(S("x"), S("y")), "set", NS("1"))
	if !itemEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	// dyn "should return updated old values": UPDATED_OLD is the old value of every updated attribute.
	if upd := u.Updated(old); !itemEqual(upd, It("n", N("1"), "ss", SS("a", "b"), "l", L(S("x")), "gone", S("bye"))) {
		t.Errorf("UPDATED_OLD %v", upd)
	}
	// dyn "should return ValidationException if trying to delete/add incorrect types".
	for _, bad := range []map[string]AttributeValueUpdate{
		{"ss": {Action: "DELETE", Value: ptr(NS("1"))}},
		{"n": {Action: "DELETE", Value: ptr(NS("1"))}},
		{"ss": {Action: "ADD", Value: ptr(NS("1"))}},
		{"set": {Action: "ADD", Value: ptr(N("1"))}},
	} {
		u, err := ConvertAttributeUpdates(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := u.Apply(It("ss", SS("a"), "n", N("1"), "set", NS("1"))); errMsg(t, err) != "Type mismatch for attribute to update" {
			t.Errorf("%v: %v", bad, err)
		}
	}
	errs := []struct {
		u    map[string]AttributeValueUpdate
		want string
	}{
		{map[string]AttributeValueUpdate{"a": {Action: "PUT"}}, "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{map[string]AttributeValueUpdate{"a": {Action: "ADD"}}, "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{map[string]AttributeValueUpdate{"a": {Action: "DELETE", Value: ptr(S("a"))}}, "One or more parameter values were invalid: DELETE action with value is not supported for the type S"},
		{map[string]AttributeValueUpdate{"a": {Action: "ADD", Value: ptr(S("a"))}}, "One or more parameter values were invalid: ADD action is not supported for the type S"},
		{map[string]AttributeValueUpdate{"a": {Action: "ADD", Value: ptr(M())}}, "One or more parameter values were invalid: ADD action is not supported for the type M"},
	}
	for _, c := range errs {
		_, err := ConvertAttributeUpdates(c.u)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
}

func TestConvertAttributesToGet(t *testing.T) {
	p, err := ConvertAttributesToGet([]string{"s", "n", "zz"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Project(legacyItem); !itemEqual(got, It("s", S("hello"), "n", N("10"))) {
		t.Errorf("got %v", got)
	}
	// dyn validations/query.js: duplicates.
	_, err = ConvertAttributesToGet([]string{"a", "a"})
	if got := errMsg(t, err); got != "One or more parameter values were invalid: Duplicate value in attribute name: a" {
		t.Errorf("got %q", got)
	}
}

func TestCheckParameters(t *testing.T) {
	// dyn validations/index.js validateExpressionParams.
	present := func(ps ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range ps {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	query := []string{"ProjectionExpression", "FilterExpression", "KeyConditionExpression"}
	queryLegacy := []string{"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"}
	cases := []struct {
		present       func(string) bool
		names, values bool
		want          string
	}{
		{present("ProjectionExpression", "AttributesToGet", "KeyConditions"), false, false, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		{present("KeyConditionExpression", "KeyConditions", "QueryFilter"), false, false, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter, KeyConditions} Expression parameters: {KeyConditionExpression}"},
		{present("FilterExpression", "KeyConditions"), false, true, ""},
		{present("KeyConditions"), true, false, "ExpressionAttributeNames can only be specified when using expressions"},
		{present("ProjectionExpression", "KeyConditions"), false, true, "ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null"},
		{present("KeyConditionExpression"), true, true, ""},
	}
	for _, c := range cases {
		err := CheckParameters(c.present, query, queryLegacy, c.names, c.values)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("got %q\nwant %q", got, c.want)
		}
	}
	err := CheckParameters(present(), []string{"ConditionExpression"}, []string{"Expected"}, false, true)
	if got := errMsg(t, err); got != "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null" {
		t.Errorf("got %q", got)
	}
}

// TestLegacyValuesValidated: values in Expected, KeyConditions, QueryFilter
// and ScanFilter get the validation and messages of PutItem's Item, never a
// failed condition; an unknown operator is reported first. dyn
// test/putItem.js and test/updateItem.js ("should return ValidationException
// if expected value has empty numeric in set", "for empty expected value").
func TestLegacyValuesValidated(t *testing.T) {
	for _, c := range []struct{ src, expected, want string }{
		{"dyn", `{"a":{"Value":{}}}`, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"dyn", `{"a":{"Value":{"NS":["1",""]}}}`, "The parameter cannot be converted to a numeric value"},
		{"exp", `{"a":{"Value":{"N":"abc"}}}`, "The parameter cannot be converted to a numeric value: abc"},
		{"exp", `{"a":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1e999"}]}}`, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"exp", `{"a":{"ComparisonOperator":"IN","AttributeValueList":[{"S":"x"},{"SS":["x","x"]}]}}`, "One or more parameter values were invalid: Input collection [x, x] contains duplicates."},
		{"exp: values before later checks", `{"a":{"Exists":true},"b":{"Value":{"SS":[]}}}`, "One or more parameter values were invalid: An string set  may not be empty"},
		{"exp: the operator enum first", `{"a":{"Value":{"N":"x"}},"b":{"ComparisonOperator":"XX","Value":{"N":"1"}}}`,
			"1 validation error detected: Value 'XX' at 'expected.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: " + comparisonOperators},
	} {
		var exp map[string]ExpectedAttributeValue
		if err := json.Unmarshal([]byte(c.expected), &exp); err != nil {
			t.Fatal(err)
		}
		_, err := ConvertExpected(exp, "")
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%s: Expected %s:\n got %q\nwant %q", c.src, c.expected, got, c.want)
		}
	}
	var f map[string]LegacyCondition
	if err := json.Unmarshal([]byte(`{"k":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"1"},{"N":"--1"}]}}`), &f); err != nil {
		t.Fatal(err)
	}
	want := "The parameter cannot be converted to a numeric value: --1"
	if _, err := ConvertFilter("ScanFilter", f, ""); errMsg(t, err) != want {
		t.Errorf("ScanFilter: %v", err)
	}
	if _, err := ConvertKeyConditions(f, KeySchema{PartitionKey: "k", PartitionType: item.TypeS}); errMsg(t, err) != want {
		t.Errorf("KeyConditions: %v", err)
	}
}

// TestCheckConditionalOperator: ConditionalOperator needs two or more
// conditions (DynamoDB Local's COND_OP_WITHOUT_FILTER_OR_EXPECTED and
// COND_OP_WITH_ONE_ELEMENT texts).
func TestCheckConditionalOperator(t *testing.T) {
	and := "AND"
	for _, c := range []struct {
		op   *string
		n    int
		want string
	}{
		{nil, 0, ""},
		{&and, 2, ""},
		{&and, 0, "ConditionalOperator cannot be used without Filter or Expected"},
		{&and, 1, "ConditionalOperator can only be used when Filter or Expected has two or more elements"},
	} {
		err := CheckConditionalOperator(c.op, c.n)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("n=%d: %q, want %q", c.n, got, c.want)
		}
	}
}
