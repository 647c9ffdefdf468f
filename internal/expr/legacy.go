package expr

import (
	"maps"
	"slices"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// Legacy (pre-expression) request parameters, decoded straight from the
// request JSON and translated onto the expression evaluator. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html

// ExpectedAttributeValue is one entry of Expected (PutItem, UpdateItem,
// DeleteItem).
type ExpectedAttributeValue struct {
	Value              *item.AttributeValue  `json:"Value,omitempty"`
	Exists             *bool                 `json:"Exists,omitempty"`
	ComparisonOperator string                `json:"ComparisonOperator,omitempty"`
	AttributeValueList []item.AttributeValue `json:"AttributeValueList,omitempty"`
}

// LegacyCondition is DynamoDB's "Condition" shape: one entry of
// KeyConditions, QueryFilter or ScanFilter.
type LegacyCondition struct {
	ComparisonOperator string
	AttributeValueList []item.AttributeValue `json:"AttributeValueList,omitempty"`
}

// AttributeValueUpdate is one entry of UpdateItem's AttributeUpdates.
type AttributeValueUpdate struct {
	Value  *item.AttributeValue `json:"Value,omitempty"`
	Action string               `json:"Action,omitempty"` // PUT (default), ADD or DELETE
}

const invalidParams = "One or more parameter values were invalid: "

var comparisonOperators = "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"

// operatorTypes lists the AttributeValue types each ComparisonOperator accepts
// (nil: any), from
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html
var operatorTypes = map[string][]item.Type{
	"EQ": nil, "NE": nil, "NULL": nil, "NOT_NULL": nil,
	"LE": {item.TypeS, item.TypeN, item.TypeB}, "LT": {item.TypeS, item.TypeN, item.TypeB},
	"GE": {item.TypeS, item.TypeN, item.TypeB}, "GT": {item.TypeS, item.TypeN, item.TypeB},
	"CONTAINS": {item.TypeS, item.TypeN, item.TypeB}, "NOT_CONTAINS": {item.TypeS, item.TypeN, item.TypeB},
	"BEGINS_WITH": {item.TypeS, item.TypeB},
	"IN":          {item.TypeS, item.TypeN, item.TypeB}, "BETWEEN": {item.TypeS, item.TypeN, item.TypeB},
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil // without the iterator, which allocates
	}
	return slices.Sorted(maps.Keys(m))
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// errOperatorEnum is the member-constraint error for an unknown
// ComparisonOperator of entry attr of param, or nil.
func errOperatorEnum(param, attr, op string) error {
	if _, known := operatorTypes[op]; known {
		return nil
	}
	return ddberr.Validation("%s", "1 validation error detected: Value '"+op+"' at '"+lowerFirst(param)+"."+attr+".member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: "+comparisonOperators)
}

// validateValues returns the first invalid value of vals with the very
// message PutItem gives for the same value in its Item (a number that does
// not parse, an empty or duplicated set...), not a failed condition.
func validateValues(vals []item.AttributeValue) error {
	for _, v := range vals {
		if err := item.Validate(v); err != nil {
			return err
		}
	}
	return nil
}

// ValidateConditions checks the ComparisonOperator of every entry of a
// legacy KeyConditions, QueryFilter or ScanFilter (param names which, for
// messages) against its enum, then every value of every entry, in attribute
// name order: the checks DynamoDB makes before it looks at the table.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html
func ValidateConditions(param string, conds map[string]LegacyCondition) error {
	attrs := sortedKeys(conds)
	for _, attr := range attrs {
		if err := errOperatorEnum(param, attr, conds[attr].ComparisonOperator); err != nil {
			return err
		}
	}
	for _, attr := range attrs {
		if err := validateValues(conds[attr].AttributeValueList); err != nil {
			return err
		}
	}
	return nil
}

// validateExpected is ValidateConditions for Expected, whose entries may
// carry a Value as well as an AttributeValueList.
func validateExpected(expected map[string]ExpectedAttributeValue) error {
	attrs := sortedKeys(expected)
	for _, attr := range attrs {
		if op := expected[attr].ComparisonOperator; op != "" {
			if err := errOperatorEnum("Expected", attr, op); err != nil {
				return err
			}
		}
	}
	for _, attr := range attrs {
		e := expected[attr]
		if e.Value != nil {
			if err := item.Validate(*e.Value); err != nil {
				return err
			}
		}
		if err := validateValues(e.AttributeValueList); err != nil {
			return err
		}
	}
	return nil
}

// CheckConditionalOperator returns DynamoDB's error for a
// ConditionalOperator (op non-nil) that has fewer than two conditions to
// join: n is the number of entries of the request's Expected, QueryFilter
// or ScanFilter (0 when it has none). As DynamoDB Local words it
// (ErrorCode COND_OP_WITHOUT_FILTER_OR_EXPECTED and
// COND_OP_WITH_ONE_ELEMENT), checked against the service by tests that
// run on both.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.ConditionalOperator.html
func CheckConditionalOperator(op *string, n int) error {
	switch {
	case op == nil || n >= 2:
		return nil
	case n == 0:
		return ddberr.Validation("ConditionalOperator cannot be used without Filter or Expected")
	default:
		return ddberr.Validation("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
}

// checkLegacyCondition validates one ComparisonOperator with its values.
func checkLegacyCondition(param, attr, op string, vals []item.AttributeValue) error {
	allowed := operatorTypes[op]
	if err := errOperatorEnum(param, attr, op); err != nil {
		return err
	}
	n := len(vals)
	ok := true
	switch op {
	case "NULL", "NOT_NULL":
		ok = n == 0
	case "IN":
		ok = n >= 1
	case "BETWEEN":
		ok = n == 2
	default:
		ok = n == 1
	}
	if !ok {
		return ddberr.Validation("%s", invalidParams+"Invalid number of argument(s) for the "+op+" ComparisonOperator")
	}
	for _, v := range vals[min(n, 1):] {
		if v.Type != vals[0].Type {
			return ddberr.Validation("%s", invalidParams+"AttributeValues inside AttributeValueList must be of same type")
		}
	}
	if allowed != nil {
		for _, v := range vals {
			found := false
			for _, t := range allowed {
				found = found || v.Type == t
			}
			if !found {
				return ddberr.Validation("%s", invalidParams+"ComparisonOperator "+op+" is not valid for "+v.Type.String()+" AttributeValue type")
			}
		}
	}
	if op == "BETWEEN" {
		if c, ok := compareScalar(vals[0], vals[1]); ok && c > 0 {
			return ddberr.Validation("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	return nil
}

// legacyNode builds the condition tree of attr <op> vals.
func legacyNode(attr, op string, vals []item.AttributeValue) *node {
	p := &node{kind: nPath, path: Attr(attr)}
	args := []*node{p}
	for _, v := range vals {
		args = append(args, &node{kind: nValue, val: v})
	}
	if o, ok := legacyComparisons[op]; ok {
		return &node{kind: nCompare, op: o, args: args}
	}
	if fn, ok := legacyFunctions[op]; ok {
		return &node{kind: nFunc, fn: fn, args: args}
	}
	switch op {
	case "NOT_CONTAINS":
		return &node{kind: nLegacyNotContains, args: args}
	case "IN":
		return &node{kind: nIn, args: args}
	default: // BETWEEN
		return &node{kind: nBetween, args: args}
	}
}

// legacyComparisons are the legacy ComparisonOperators that are a
// comparison of the expression language, and legacyFunctions those that
// are a function of it.
var (
	legacyComparisons = map[string]compOp{"EQ": opEq, "NE": opNe, "LT": opLt, "LE": opLe, "GT": opGt, "GE": opGe}
	legacyFunctions   = map[string]string{"NULL": "attribute_not_exists", "NOT_NULL": "attribute_exists", "CONTAINS": "contains", "BEGINS_WITH": "begins_with"}
)

// combine joins conditions with AND, or OR when conditionalOperator is "OR".
func combine(nodes []*node, conditionalOperator string) *Condition {
	if len(nodes) == 0 {
		return nil
	}
	kind := nAnd
	if conditionalOperator == "OR" {
		kind = nOr
	}
	root := nodes[0]
	for _, n := range nodes[1:] {
		root = &node{kind: kind, args: []*node{root, n}}
	}
	return &Condition{root: root}
}

// ConvertFilter translates a QueryFilter or ScanFilter (param names which,
// for messages) with its ConditionalOperator ("AND", the default, or "OR").
// A nil or empty filter yields a nil *Condition, which every item satisfies.
func ConvertFilter(param string, filter map[string]LegacyCondition, conditionalOperator string) (*Condition, error) {
	if err := ValidateConditions(param, filter); err != nil {
		return nil, err
	}
	var nodes []*node
	for _, attr := range sortedKeys(filter) {
		c := filter[attr]
		if err := checkLegacyCondition(param, attr, c.ComparisonOperator, c.AttributeValueList); err != nil {
			return nil, err
		}
		nodes = append(nodes, legacyNode(attr, c.ComparisonOperator, c.AttributeValueList))
	}
	return combine(nodes, conditionalOperator), nil
}

// ConvertExpected translates Expected with its ConditionalOperator. Each
// entry is either Value/Exists (Exists false: the attribute must be absent;
// otherwise it must equal Value) or ComparisonOperator with
// AttributeValueList (or Value), validated with DynamoDB's messages.
func ConvertExpected(expected map[string]ExpectedAttributeValue, conditionalOperator string) (*Condition, error) {
	if err := validateExpected(expected); err != nil {
		return nil, err
	}
	var nodes []*node
	for _, attr := range sortedKeys(expected) {
		e := expected[attr]
		if e.AttributeValueList != nil && e.Value != nil {
			return nil, ddberr.Validation("%s", invalidParams+"Value and AttributeValueList cannot be used together for Attribute: "+attr)
		}
		if e.ComparisonOperator != "" {
			if e.Exists != nil {
				return nil, ddberr.Validation("%s", invalidParams+"Exists and ComparisonOperator cannot be used together for Attribute: "+attr)
			}
			op := e.ComparisonOperator
			vals := e.AttributeValueList
			if e.Value != nil {
				vals = []item.AttributeValue{*e.Value}
			}
			if op != "NULL" && op != "NOT_NULL" && e.AttributeValueList == nil && e.Value == nil {
				if _, known := operatorTypes[op]; known {
					return nil, ddberr.Validation("%s", invalidParams+"Value or AttributeValueList must be used with ComparisonOperator: "+op+" for Attribute: "+attr)
				}
			}
			if err := checkLegacyCondition("Expected", attr, op, vals); err != nil {
				return nil, err
			}
			nodes = append(nodes, legacyNode(attr, op, vals))
			continue
		}
		if e.AttributeValueList != nil {
			return nil, ddberr.Validation("%s", invalidParams+"AttributeValueList can only be used with a ComparisonOperator for Attribute: "+attr)
		}
		exists := e.Exists == nil || *e.Exists
		switch {
		case exists && e.Value == nil:
			word := "null"
			if e.Exists != nil {
				word = "true"
			}
			return nil, ddberr.Validation("%s", invalidParams+"Value must be provided when Exists is "+word+" for Attribute: "+attr)
		case !exists && e.Value != nil:
			return nil, ddberr.Validation("%s", invalidParams+"Value cannot be used when Exists is false for Attribute: "+attr)
		case !exists:
			nodes = append(nodes, legacyNode(attr, "NULL", nil))
		default:
			nodes = append(nodes, legacyNode(attr, "EQ", []item.AttributeValue{*e.Value}))
		}
	}
	return combine(nodes, conditionalOperator), nil
}

var keyOps = map[string]SortOp{"EQ": SortEQ, "LT": SortLT, "LE": SortLE, "GT": SortGT, "GE": SortGE, "BETWEEN": SortBetween, "BEGINS_WITH": SortBeginsWith}

// ConvertKeyConditions translates a Query's legacy KeyConditions against the
// key schema of the table or index queried.
func ConvertKeyConditions(conds map[string]LegacyCondition, schema KeySchema) (*KeyCondition, error) {
	if err := ValidateConditions("KeyConditions", conds); err != nil {
		return nil, err
	}
	var kcs []keyCond
	for _, attr := range sortedKeys(conds) {
		c := conds[attr]
		if err := checkLegacyCondition("KeyConditions", attr, c.ComparisonOperator, c.AttributeValueList); err != nil {
			return nil, err
		}
		kcs = append(kcs, keyCond{attr: attr, vals: c.AttributeValueList})
	}
	if len(kcs) != 1 && len(kcs) != 2 {
		return nil, ddberr.Validation("Conditions can be of length 1 or 2 only")
	}
	if _, ok := conds[schema.PartitionKey]; !ok {
		return nil, ddberr.Validation("%s", "Query condition missed key schema element: "+schema.PartitionKey)
	}
	for i, attr := range sortedKeys(conds) {
		op, ok := keyOps[conds[attr].ComparisonOperator]
		if !ok {
			return nil, ddberr.Validation("Attempted conditional constraint is not an indexable operation")
		}
		kcs[i].op = op
	}
	return buildKeyCondition(kcs, schema)
}

// ConvertAttributeUpdates translates UpdateItem's AttributeUpdates: PUT sets
// the attribute, DELETE without a value removes it, DELETE with a set value
// removes those members, ADD adds to a number, adds members to a set or
// appends to a list (creating the attribute when missing). Type mismatches
// found when applying fail with "Type mismatch for attribute to update".
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValueUpdate.html
func ConvertAttributeUpdates(updates map[string]AttributeValueUpdate) (*Update, error) {
	u := &Update{legacy: true}
	for _, attr := range sortedKeys(updates) {
		a := updates[attr]
		action := a.Action
		if action == "" {
			action = "PUT"
		}
		if a.Value == nil && action != "DELETE" {
			return nil, ddberr.Validation("%s", invalidParams+"Only DELETE action is allowed when no attribute value is specified")
		}
		ba := boundAction{path: Attr(attr)}
		switch action {
		case "PUT":
			ba.kind = actSet
		case "DELETE":
			ba.kind = actRemove
			if a.Value != nil {
				if !isSet(a.Value.Type) {
					return nil, ddberr.Validation("%s", invalidParams+"DELETE action with value is not supported for the type "+a.Value.Type.String())
				}
				ba.kind = actDelete
			}
		case "ADD":
			t := a.Value.Type
			if t != item.TypeN && t != item.TypeL && !isSet(t) {
				return nil, ddberr.Validation("%s", invalidParams+"ADD action is not supported for the type "+t.String())
			}
			ba.kind = actAdd
		default:
			return nil, ddberr.Validation("%s", "1 validation error detected: Value '"+action+"' at 'attributeUpdates."+attr+".member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]")
		}
		if a.Value != nil {
			ba.value = &node{kind: nValue, val: *a.Value}
		}
		u.actions = append(u.actions, ba)
		u.paths = append(u.paths, ba.path)
	}
	return u, nil
}

// ConvertAttributesToGet translates AttributesToGet into a projection of
// top-level attributes, rejecting duplicates as DynamoDB does.
func ConvertAttributesToGet(names []string) (*Projection, error) {
	seen := make(map[string]bool, len(names))
	paths := make([]Path, 0, len(names))
	for _, n := range names {
		if seen[n] {
			return nil, ddberr.Validation("%s", invalidParams+"Duplicate value in attribute name: "+n)
		}
		seen[n] = true
		paths = append(paths, Attr(n))
	}
	return NewProjection(paths...), nil
}

// CheckParameters applies DynamoDB's rules on which parameters may appear
// together, before any expression is parsed. exprParams are the operation's
// expression parameters in DynamoDB's order (e.g. ProjectionExpression,
// FilterExpression, KeyConditionExpression for Query) and legacyParams its
// non-expression ones (e.g. AttributesToGet, QueryFilter,
// ConditionalOperator, KeyConditions); present tells which the request
// carries. Messages:
//
//	Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}
//	ExpressionAttributeNames can only be specified when using expressions
//	ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null
//
// KeyConditions may accompany expressions when KeyConditionExpression is absent.
func CheckParameters(present func(param string) bool, exprParams, legacyParams []string, hasNames, hasValues bool) error {
	var exprs, legacy []string
	for _, p := range exprParams {
		if present(p) {
			exprs = append(exprs, p)
		}
	}
	if len(exprs) > 0 {
		for _, p := range legacyParams {
			if p == "KeyConditions" && !present("KeyConditionExpression") {
				continue
			}
			if present(p) {
				legacy = append(legacy, p)
			}
		}
		if len(legacy) > 0 {
			return ddberr.Validation("%s", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {"+
				strings.Join(legacy, ", ")+"} Expression parameters: {"+strings.Join(exprs, ", ")+"}")
		}
	}
	if hasNames && len(exprs) == 0 {
		return ddberr.Validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	var valueExprs []string
	for _, p := range exprParams {
		if p != "ProjectionExpression" {
			valueExprs = append(valueExprs, p)
		}
	}
	if hasValues && len(valueExprs) > 0 {
		for _, p := range valueExprs {
			if present(p) {
				return nil
			}
		}
		verb := " is null"
		if len(valueExprs) > 1 {
			verb = " are null"
		}
		return ddberr.Validation("%s", "ExpressionAttributeValues can only be specified when using expressions: "+strings.Join(valueExprs, " and ")+verb)
	}
	return nil
}
