package api

import (
	"context"
	"encoding/json"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/partiql"
	"github.com/extenddb/extenddb/internal/protocol"
)

// runOptions are the request members a plan runs with.
type runOptions struct {
	consistent          *bool
	capacity, onFailure *string
	limit               *int64
	startKey            item.Item
}

// nativeOutput is the union of the members the engine's item operations
// answer with. Items stay JSON: they pass to the client as they are.
type nativeOutput struct {
	Item             json.RawMessage
	Items            json.RawMessage
	Attributes       json.RawMessage
	LastEvaluatedKey json.RawMessage
	ConsumedCapacity json.RawMessage
	Responses        []struct {
		Item json.RawMessage
	}
}

// callNative runs one of the engine's operations with a request body built
// from body, and decodes its response.
func (e *Engine) callNative(ctx context.Context, r *protocol.Request, op string, body map[string]any) (*nativeOutput, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	sub := *r
	sub.Operation, sub.Body = op, b
	res, err := e.ops[op](e, ctx, &sub)
	if err != nil {
		return nil, err
	}
	var raw []byte
	if a, ok := res.(protocol.Appender); ok {
		raw = a.AppendJSON(nil)
	} else if raw, err = json.Marshal(res); err != nil {
		return nil, err
	}
	var out nativeOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	for _, m := range []*json.RawMessage{&out.Item, &out.Items, &out.Attributes, &out.LastEvaluatedKey, &out.ConsumedCapacity} {
		if s := string(*m); s == "null" || s == "{}" {
			*m = nil
		}
	}
	return &out, nil
}

// nativeRequest is the body of the engine operation a plan becomes.
func nativeRequest(pl *partiql.Plan, o runOptions) map[string]any {
	m := map[string]any{"TableName": pl.Table}
	set := func(k string, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("IndexName", pl.Index)
	set("KeyConditionExpression", pl.KeyCondition)
	set("FilterExpression", pl.Filter)
	set("ConditionExpression", pl.Condition)
	set("UpdateExpression", pl.Update)
	set("ProjectionExpression", pl.Projection)
	set("ReturnValues", pl.ReturnValues)
	if pl.Names != nil {
		m["ExpressionAttributeNames"] = pl.Names
	}
	if pl.Values != nil {
		m["ExpressionAttributeValues"] = pl.Values
	}
	if pl.Key != nil {
		m["Key"] = pl.Key
	}
	if pl.Item != nil {
		m["Item"] = pl.Item
	}
	if o.capacity != nil {
		m["ReturnConsumedCapacity"] = *o.capacity
	}
	switch pl.Operation {
	case partiql.OpGetItem, partiql.OpQuery, partiql.OpScan:
		if o.consistent != nil {
			m["ConsistentRead"] = *o.consistent
		}
	default:
		if o.onFailure != nil {
			m["ReturnValuesOnConditionCheckFailure"] = *o.onFailure
		}
	}
	if pl.Operation == partiql.OpQuery || pl.Operation == partiql.OpScan {
		if o.limit != nil {
			m["Limit"] = *o.limit
		}
		if o.startKey != nil {
			m["ExclusiveStartKey"] = o.startKey
		}
		if pl.Descending {
			m["ScanIndexForward"] = false
		}
	}
	return m
}

// runPlan runs a single statement's plan and shapes ExecuteStatement's answer.
func (e *Engine) runPlan(ctx context.Context, r *protocol.Request, pl *partiql.Plan, o runOptions) (*executeStatementOutput, error) {
	out, err := e.callNative(ctx, r, pl.Operation, nativeRequest(pl, o))
	if err != nil {
		return nil, statementError(pl, err)
	}
	res := &executeStatementOutput{consumed: out.ConsumedCapacity}
	switch pl.Operation {
	case partiql.OpGetItem:
		res.single = out.Item
	case partiql.OpQuery, partiql.OpScan:
		res.items = out.Items
		if len(out.LastEvaluatedKey) > 0 {
			res.lastKey = out.LastEvaluatedKey
			res.nextToken = encodeNextToken(out.LastEvaluatedKey)
		}
	default:
		if pl.ReturnValues != "" {
			res.single = out.Attributes
		}
	}
	return res, nil
}

// statementError words an engine error as PartiQL does: a failed INSERT
// condition is DuplicateItemException.
func statementError(pl *partiql.Plan, err error) error {
	if pl.Insert && ddberr.Is(err, "ConditionalCheckFailedException") {
		return ddberr.DuplicateItem()
	}
	return err
}
