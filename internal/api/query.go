package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// queryInput is Query's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
type queryInput struct {
	TableName                 *string                         `json:"TableName"`
	IndexName                 *string                         `json:"IndexName"`
	Select                    *string                         `json:"Select"`
	AttributesToGet           []string                        `json:"AttributesToGet"`
	Limit                     *int64                          `json:"Limit"`
	ConsistentRead            *bool                           `json:"ConsistentRead"`
	KeyConditions             map[string]expr.LegacyCondition `json:"KeyConditions"`
	QueryFilter               map[string]expr.LegacyCondition `json:"QueryFilter"`
	ConditionalOperator       *string                         `json:"ConditionalOperator"`
	ScanIndexForward          *bool                           `json:"ScanIndexForward"`
	ExclusiveStartKey         item.Item                       `json:"ExclusiveStartKey"`
	ReturnConsumedCapacity    *string                         `json:"ReturnConsumedCapacity"`
	ProjectionExpression      *string                         `json:"ProjectionExpression"`
	FilterExpression          *string                         `json:"FilterExpression"`
	KeyConditionExpression    *string                         `json:"KeyConditionExpression"`
	ExpressionAttributeNames  map[string]string               `json:"ExpressionAttributeNames"`
	ExpressionAttributeValues map[string]item.AttributeValue  `json:"ExpressionAttributeValues"`
}

// readConstraints checks the member constraints Query and Scan share.
func readConstraints(c *constraints, tableName, indexName, sel, rcc, op *string, limit *int64, atg []string) {
	c.tableName(tableName)
	if indexName != nil {
		c.name(indexName, "indexName")
	}
	c.minInt(limit, "limit", 1)
	c.enum(sel, "select", enumSelect...)
	c.enum(rcc, "returnConsumedCapacity", enumReturnConsumedCapacity...)
	c.enum(op, "conditionalOperator", enumConditionalOperator...)
	attributesToGetConstraint(c, atg)
}

func conditionConstraints(c *constraints, m map[string]expr.LegacyCondition, path string) {
	for _, name := range sortedKeys(m) {
		p := path + "." + name + ".member.comparisonOperator"
		c.notNull(m[name].ComparisonOperator != "", p)
	}
}

func query(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in queryInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	readConstraints(&c, in.TableName, in.IndexName, in.Select, in.ReturnConsumedCapacity, in.ConditionalOperator, in.Limit, in.AttributesToGet)
	conditionConstraints(&c, in.KeyConditions, "keyConditions")
	conditionConstraints(&c, in.QueryFilter, "queryFilter")
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := (readSelect{in.Select, in.AttributesToGet, in.ProjectionExpression, in.IndexName, "1 validation error detected: "}).check(); err != nil {
		return nil, err
	}
	if err := checkParams(map[string]bool{
		"ProjectionExpression": in.ProjectionExpression != nil, "FilterExpression": in.FilterExpression != nil, "KeyConditionExpression": in.KeyConditionExpression != nil,
		"AttributesToGet": in.AttributesToGet != nil, "QueryFilter": in.QueryFilter != nil, "ConditionalOperator": in.ConditionalOperator != nil, "KeyConditions": in.KeyConditions != nil},
		[]string{"ProjectionExpression", "FilterExpression", "KeyConditionExpression"},
		[]string{"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"},
		in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.QueryFilter)); err != nil {
		return nil, err
	}
	var proj *expr.Projection
	var err error
	if in.AttributesToGet != nil {
		if proj, err = expr.ConvertAttributesToGet(in.AttributesToGet); err != nil {
			return nil, err
		}
	}
	if err := checkStartKeyValues(in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return nil, ddberr.Validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}

	// Expressions. The key condition is checked for syntax here and matched
	// against the key schema once the table is known.
	var x *exprEnv
	var filter *expr.Condition
	if in.KeyConditionExpression != nil || in.FilterExpression != nil || in.ProjectionExpression != nil {
		if x, err = newExprEnv(in.ExpressionAttributeNames, in.ExpressionAttributeValues); err != nil {
			return nil, err
		}
		if _, err := x.condition(expr.KindKeyCondition, in.KeyConditionExpression); err != nil {
			return nil, err
		}
		if filter, err = x.condition(expr.KindFilter, in.FilterExpression); err != nil {
			return nil, err
		}
		if in.ProjectionExpression != nil {
			if proj, err = x.projection(in.ProjectionExpression); err != nil {
				return nil, err
			}
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
	}
	if in.FilterExpression == nil && in.QueryFilter != nil {
		if filter, err = expr.ConvertFilter("QueryFilter", in.QueryFilter, opString(in.ConditionalOperator)); err != nil {
			return nil, err
		}
	}
	if err := expr.ValidateConditions("KeyConditions", in.KeyConditions); err != nil {
		return nil, err
	}

	t, err := e.dataTable(ctx, r, *in.TableName)
	if err != nil {
		return nil, err
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := resolveIndex(t, in.IndexName, consistent, in.Select)
	if err != nil {
		return nil, err
	}
	p := newReadPlan(t, ix, in.Select, proj, filter, in.Limit, consistent, capacityMode(in.ReturnConsumedCapacity))
	start, err := startPosition(p, in.ExclusiveStartKey, true)
	if err != nil {
		return nil, err
	}
	var q *storage.QueryRequest
	if p.iks.multi != nil {
		// A global secondary index with a multi-attribute key.
		if q, err = multiIndexQuery(p, &in, start); err != nil {
			return nil, err
		}
	} else {
		schema := expr.KeySchema{PartitionKey: p.iks.hash, PartitionType: p.iks.hashType, SortKey: p.iks.rng, SortType: p.iks.rngType}
		var kc *expr.KeyCondition
		if in.KeyConditionExpression != nil {
			kc, err = expr.ParseKeyCondition(*in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, nil, schema)
		} else {
			kc, err = expr.ConvertKeyConditions(in.KeyConditions, schema)
		}
		if err != nil {
			return nil, err
		}
		if q, err = keyQuery(p, kc); err != nil {
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
	}
	if err := checkProjectionKeyPaths(t, proj); err != nil {
		return nil, err
	}
	if in.FilterExpression != nil {
		for _, n := range conditionNames(filter) {
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
	return e.run(ctx, p, func(visit storage.VisitFunc) error { return e.store.Query(ctx, t, q, visit) })
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
