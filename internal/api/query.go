package api

import (
	"context"
	"slices"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// readInput holds the members Query and Scan share, and what their checks
// parse: they validate and parse them the same way.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
type readInput struct {
	TableName                 *string
	IndexName                 *string
	Select                    *string
	AttributesToGet           []string
	Limit                     *int64
	ConsistentRead            *bool
	ConditionalOperator       *string
	ExclusiveStartKey         item.Item
	ReturnConsumedCapacity    *string
	ProjectionExpression      *string
	FilterExpression          *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]item.AttributeValue

	proj   *expr.Projection // the parsed projection
	filter *expr.Condition  // the parsed filter
}

func (in *readInput) members() *readInput { return in }

// readRules are the rules of the members Query and Scan share, by path;
// each operation lists them in its own order.
var readRules = map[string]rule[readInput]{
	"tableName": tableNameRule(func(in *readInput) *string { return in.TableName }),
	"indexName": func(in *readInput, c *constraints) {
		if in.IndexName != nil {
			c.name(in.IndexName, "indexName")
		}
	},
	"limit":                  minRule("limit", func(in *readInput) *int64 { return in.Limit }, 1),
	"select":                 enumRule("select", func(in *readInput) *string { return in.Select }, enumSelect),
	"returnConsumedCapacity": enumRule("returnConsumedCapacity", func(in *readInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
	"conditionalOperator":    enumRule("conditionalOperator", func(in *readInput) *string { return in.ConditionalOperator }, enumConditionalOperator),
	"attributesToGet":        attributesToGetRule(func(in *readInput) []string { return in.AttributesToGet }),
}

// readMembers are the members Query and Scan share.
var readMembers = sharedMembers[readInput]{
	rules:  readRules,
	table:  func(in *readInput) *string { return in.TableName },
	access: readAccess,
}

// conditionsRule checks the ComparisonOperator of each legacy condition, in
// attribute-name order (reversed when reverse is set).
func conditionsRule[T any](path string, reverse bool, get func(*T) map[string]expr.LegacyCondition) rule[T] {
	return func(in *T, c *constraints) {
		m := get(in)
		names := sortedKeys(m)
		if reverse {
			slices.Reverse(names)
		}
		for _, name := range names {
			c.notNull(m[name].ComparisonOperator != "", path+"."+name+".member.comparisonOperator")
		}
	}
}

// checkStart converts AttributesToGet and checks ExclusiveStartKey's values.
func (in *readInput) checkStart() error {
	if in.AttributesToGet != nil {
		var err error
		if in.proj, err = expr.ConvertAttributesToGet(in.AttributesToGet); err != nil {
			return err
		}
	}
	return checkStartKeyValues(in.ExclusiveStartKey)
}

// parseExpressions parses a read's expressions in one placeholder
// environment: the key condition (Query's: its syntax here, its match with
// the key schema once the table is known), the filter and the projection;
// or else the legacy filter (QueryFilter or ScanFilter).
func (e *Engine) parseExpressions(in *readInput, keyCond *string, legacyName string, legacy map[string]expr.LegacyCondition) error {
	var err error
	if keyCond != nil || in.FilterExpression != nil || in.ProjectionExpression != nil {
		x, err := e.newExprEnv(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if err != nil {
			return err
		}
		if _, err := x.condition(expr.KindKeyCondition, keyCond); err != nil {
			return err
		}
		if in.filter, err = x.condition(expr.KindFilter, in.FilterExpression); err != nil {
			return err
		}
		if in.ProjectionExpression != nil {
			if in.proj, err = x.projection(in.ProjectionExpression); err != nil {
				return err
			}
		}
		if err := x.checkUnused(); err != nil {
			return err
		}
	}
	if in.FilterExpression == nil && legacy != nil {
		if in.filter, err = expr.ConvertFilter(legacyName, legacy, valueOrZero(in.ConditionalOperator)); err != nil {
			return err
		}
	}
	return nil
}

// plan resolves a checked read's index and start position on its table.
func (in *readInput) plan(t *storage.Table, query bool, now time.Time) (*readPlan, *storage.Position, error) {
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := resolveIndex(t, in.IndexName, consistent, in.Select, now)
	if err != nil {
		return nil, nil, err
	}
	p := newReadPlan(t, ix, in.Select, in.proj, in.filter, in.Limit, consistent, capacityMode(in.ReturnConsumedCapacity))
	start, err := startPosition(p, in.ExclusiveStartKey, query)
	if err != nil {
		return nil, nil, err
	}
	return p, start, nil
}

// queryInput is Query's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
type queryInput struct {
	readInput
	KeyConditions          map[string]expr.LegacyCondition
	QueryFilter            map[string]expr.LegacyCondition
	ScanIndexForward       *bool
	KeyConditionExpression *string
}

// queryOp is Query. Its members are reported in DynamoDB's order.
// https://github.com/mhart/dynalite/blob/master/test/query.js ("incorrect attributes")
var queryOp = itemOp[queryInput](readMembers,
	"limit returnConsumedCapacity attributesToGet queryFilter select keyConditions tableName indexName conditionalOperator",
	map[string]rule[queryInput]{
		"queryFilter":   conditionsRule("queryFilter", true, func(in *queryInput) map[string]expr.LegacyCondition { return in.QueryFilter }),
		"keyConditions": conditionsRule("keyConditions", true, func(in *queryInput) map[string]expr.LegacyCondition { return in.KeyConditions }),
	},
	(*Engine).checkQuery, (*Engine).query)

// checkQuery is Query's checks before its table.
func (e *Engine) checkQuery(in *queryInput) error {
	if err := (readSelect{in.Select, in.AttributesToGet, in.ProjectionExpression, in.IndexName, "1 validation error detected: "}).check(); err != nil {
		return err
	}
	if err := checkParams(map[string]bool{
		"ProjectionExpression": in.ProjectionExpression != nil, "FilterExpression": in.FilterExpression != nil, "KeyConditionExpression": in.KeyConditionExpression != nil,
		"AttributesToGet": in.AttributesToGet != nil, "QueryFilter": in.QueryFilter != nil, "ConditionalOperator": in.ConditionalOperator != nil, "KeyConditions": in.KeyConditions != nil},
		[]string{"ProjectionExpression", "FilterExpression", "KeyConditionExpression"},
		[]string{"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"},
		in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.QueryFilter)); err != nil {
		return err
	}
	if err := in.checkStart(); err != nil {
		return err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return ddberr.Validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	if err := e.parseExpressions(&in.readInput, in.KeyConditionExpression, "QueryFilter", in.QueryFilter); err != nil {
		return err
	}
	return expr.ValidateConditions("KeyConditions", in.KeyConditions)
}

// query reads a checked Query request's page.
func (e *Engine) query(ctx context.Context, in *queryInput, t *storage.Table) (any, error) {
	p, start, err := in.plan(t, true, e.now())
	if err != nil {
		return nil, err
	}
	var q *storage.QueryRequest
	if p.iks.multi != nil {
		// A global secondary index with a multi-attribute key.
		q, err = multiIndexQuery(p, in, start)
	} else {
		q, err = e.singleKeyQuery(p, in, start)
	}
	if err != nil {
		return nil, err
	}
	if err := checkProjectionKeyPaths(t, in.proj); err != nil {
		return nil, err
	}
	if in.FilterExpression != nil {
		for _, n := range conditionNames(in.filter) {
			if p.iks.has(n) {
				return nil, ddberr.Validation("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", n)
			}
		}
	}
	for _, n := range p.iks.names() {
		if _, ok := in.QueryFilter[n]; ok {
			return nil, ddberr.Validation("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", n)
		}
	}
	q.Forward = in.ScanIndexForward == nil || *in.ScanIndexForward
	q.Consistent = p.consistent
	return e.run(ctx, p, func(raw bool, visit storage.VisitFunc) error {
		q.Raw = raw
		return e.store.Query(ctx, t, q, visit)
	})
}

// singleKeyQuery matches a Query's key condition with a one-attribute
// partition key (and optional sort key) and builds the storage request,
// checking ExclusiveStartKey against the condition.
func (e *Engine) singleKeyQuery(p *readPlan, in *queryInput, start *storage.Position) (*storage.QueryRequest, error) {
	schema := expr.KeySchema{PartitionKey: p.iks.hash, PartitionType: p.iks.hashType, SortKey: p.iks.rng, SortType: p.iks.rngType}
	var kc *expr.KeyCondition
	var err error
	if in.KeyConditionExpression != nil {
		kc, err = e.exprs.ParseKeyCondition(*in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, nil, schema)
	} else {
		kc, err = expr.ConvertKeyConditions(in.KeyConditions, schema)
	}
	if err != nil {
		return nil, err
	}
	q, err := keyQuery(p, kc)
	if err != nil {
		return nil, err
	}
	if start != nil {
		if !item.Equal(in.ExclusiveStartKey[p.iks.hash], kc.PartitionValue) {
			return nil, ddberr.Validation("The provided starting key is outside query boundaries based on provided conditions")
		}
		if kc.SortOp != expr.SortNone && !kc.MatchSort(in.ExclusiveStartKey[p.iks.rng]) {
			return nil, ddberr.Validation("The provided starting key does not match the range key predicate")
		}
		q.ExclusiveStart = start
	}
	return q, nil
}

// checkStartKeyValues validates the values of an ExclusiveStartKey.
func checkStartKeyValues(esk item.Item) error {
	if err := validateItemValues(esk); err != nil {
		return ddberr.Validation("The provided starting key is invalid: %s", errMessage(err))
	}
	return nil
}

// sortOps maps key-condition sort comparisons to storage's.
var sortOps = map[expr.SortOp]string{
	expr.SortEQ: "EQ", expr.SortLT: "LT", expr.SortLE: "LE", expr.SortGT: "GT", expr.SortGE: "GE",
	expr.SortBetween: "BETWEEN", expr.SortBeginsWith: "BEGINS_WITH",
}

// keyQuery turns a key condition into the storage request, applying the
// key value rules (no empty strings or binaries, key size limits).
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
func keyQuery(p *readPlan, kc *expr.KeyCondition) (*storage.QueryRequest, error) {
	if err := checkEmptyKeyValue(kc.PartitionValue, kc.PartitionKey); err != nil {
		return nil, err
	}
	if err := checkKeyValueSize(kc.PartitionValue, true); err != nil {
		return nil, err
	}
	q := &storage.QueryRequest{PK: item.EncodeKey(kc.PartitionValue)}
	if p.ix != nil {
		q.Index = p.ix.IndexName
	}
	if kc.SortOp != expr.SortNone {
		q.SK.Op = sortOps[kc.SortOp]
		for _, v := range kc.SortValues {
			if err := checkEmptyKeyValue(v, kc.SortKey); err != nil {
				return nil, err
			}
			if err := checkKeyValueSize(v, false); err != nil {
				return nil, err
			}
			q.SK.Values = append(q.SK.Values, item.EncodeKey(v))
		}
	}
	return q, nil
}
