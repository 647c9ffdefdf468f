package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// putItemInput is PutItem's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
type putItemInput struct {
	TableName                           *string                                `json:"TableName"`
	Item                                item.Item                              `json:"Item"`
	ConditionExpression                 *string                                `json:"ConditionExpression"`
	Expected                            map[string]expr.ExpectedAttributeValue `json:"Expected"`
	ConditionalOperator                 *string                                `json:"ConditionalOperator"`
	ExpressionAttributeNames            map[string]string                      `json:"ExpressionAttributeNames"`
	ExpressionAttributeValues           map[string]item.AttributeValue         `json:"ExpressionAttributeValues"`
	ReturnValues                        *string                                `json:"ReturnValues"`
	ReturnConsumedCapacity              *string                                `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics         *string                                `json:"ReturnItemCollectionMetrics"`
	ReturnValuesOnConditionCheckFailure *string                                `json:"ReturnValuesOnConditionCheckFailure"`
}

// writeCommon holds the members PutItem, UpdateItem and DeleteItem share.
type writeCommon struct {
	returnConsumedCapacity, returnItemCollectionMetrics, returnValues, onFailure, conditionalOperator *string
}

func (w writeCommon) constraints(c *constraints) {
	c.enum(w.returnConsumedCapacity, "returnConsumedCapacity", enumReturnConsumedCapacity...)
	c.enum(w.returnItemCollectionMetrics, "returnItemCollectionMetrics", enumReturnItemCollectionMetrics...)
	c.enum(w.returnValues, "returnValues", enumReturnValues...)
	c.enum(w.onFailure, "returnValuesOnConditionCheckFailure", enumReturnValuesOnFailure...)
	c.enum(w.conditionalOperator, "conditionalOperator", enumConditionalOperator...)
}

// output builds the response parts every single-item write shares.
func (w writeCommon) output(t *storage.Table, ks keySchema, old, new item.Item, key item.Item) *writeOutput {
	out := &writeOutput{}
	if mode := capacityMode(w.returnConsumedCapacity); mode != capNone {
		out.capacity = newConsumed(mode, t.Name)
		out.capacity.chargeWrite(t, old, new)
	}
	out.metrics = collectionMetrics(t, ks, w.returnItemCollectionMetrics, key)
	return out
}

// collectionMetrics returns ItemCollectionMetrics when requested and the
// table has local secondary indexes (DynamoDB returns none otherwise).
func collectionMetrics(t *storage.Table, ks keySchema, mode *string, key item.Item) *itemCollectionMetrics {
	if mode == nil || *mode != "SIZE" {
		return nil
	}
	for i := range t.Indexes {
		if !t.Indexes[i].Global {
			return &itemCollectionMetrics{key: item.Item{ks.hash: key[ks.hash]}}
		}
	}
	return nil
}

// errOnlyAllOld is PutItem's and DeleteItem's answer to a ReturnValues they
// do not support.
// https://github.com/mhart/dynalite/blob/master/test/putItem.js
func errOnlyAllOld() error {
	return ddberr.Validation("ReturnValues can only be ALL_OLD or NONE")
}

func putItem(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in putItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	w := writeCommon{in.ReturnConsumedCapacity, in.ReturnItemCollectionMetrics, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure, in.ConditionalOperator}
	var c constraints
	c.tableName(in.TableName)
	c.notNull(in.Item != nil, "item")
	w.constraints(&c)
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := checkParams(map[string]bool{"ConditionExpression": in.ConditionExpression != nil, "Expected": in.Expected != nil, "ConditionalOperator": in.ConditionalOperator != nil},
		condExprParams, condLegacyParams, in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.Expected)); err != nil {
		return nil, err
	}
	if err := validateItemValues(in.Item); err != nil {
		return nil, err
	}
	if rv := returnValuesMode(in.ReturnValues); rv != "NONE" && rv != "ALL_OLD" {
		return nil, errOnlyAllOld()
	}
	if item.Size(in.Item) > maxItemBytes {
		return nil, ddberr.Validation("Item size has exceeded the maximum allowed size")
	}
	cond, err := writeCondition(in.ConditionExpression, in.Expected, in.ConditionalOperator, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	t, err := e.dataTable(ctx, r, *in.TableName)
	if err != nil {
		return nil, err
	}
	ks := schemaOf(t, t.KeySchema)
	key, err := itemKey(t, ks, in.Item)
	if err != nil {
		return nil, err
	}
	var old item.Item
	err = e.mutate(ctx, t, key, func(cur item.Item) (item.Item, error) {
		old = cur
		if err := checkCondition(cond, cur, in.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		return in.Item, nil
	})
	if err != nil {
		return nil, err
	}
	out := w.output(t, ks, old, in.Item, in.Item)
	if err := e.sizeCollection(ctx, t, out.metrics); err != nil {
		return nil, err
	}
	if returnValuesMode(in.ReturnValues) == "ALL_OLD" {
		out.attributes = old
	}
	return out, nil
}

// The expression and legacy parameters of PutItem and DeleteItem.
var (
	condExprParams   = []string{"ConditionExpression"}
	condLegacyParams = []string{"Expected", "ConditionalOperator"}
)

// writeCondition parses the condition of a single-item write: a
// ConditionExpression or the legacy Expected, and checks that every
// placeholder is used.
func writeCondition(ce *string, expected map[string]expr.ExpectedAttributeValue, op *string, names map[string]string, values map[string]item.AttributeValue) (*expr.Condition, error) {
	if ce == nil {
		if expected == nil {
			return nil, nil
		}
		return expr.ConvertExpected(expected, opString(op))
	}
	x, err := newExprEnv(names, values)
	if err != nil {
		return nil, err
	}
	cond, err := x.condition(expr.KindCondition, ce)
	if err != nil {
		return nil, err
	}
	return cond, x.checkUnused()
}

// checkCondition evaluates a write's condition against the item's current
// image (an absent item is an empty one).
func checkCondition(cond *expr.Condition, cur item.Item, onFailure *string) error {
	if cond == nil {
		return nil
	}
	probe := cur
	if probe == nil {
		probe = item.Item{}
	}
	ok, err := cond.Eval(probe)
	if err != nil {
		return err
	}
	if !ok {
		return conditionFailed(onFailure, cur)
	}
	return nil
}

// getItemInput is GetItem's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
type getItemInput struct {
	TableName                *string           `json:"TableName"`
	Key                      item.Item         `json:"Key"`
	AttributesToGet          []string          `json:"AttributesToGet"`
	ConsistentRead           *bool             `json:"ConsistentRead"`
	ProjectionExpression     *string           `json:"ProjectionExpression"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames"`
	ReturnConsumedCapacity   *string           `json:"ReturnConsumedCapacity"`
}

func getItem(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in getItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	attributesToGetConstraint(&c, in.AttributesToGet)
	c.enum(in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnConsumedCapacity...)
	c.notNull(in.Key != nil, "key")
	c.tableName(in.TableName)
	if err := c.err(); err != nil {
		return nil, err
	}
	proj, err := readProjection(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames, in.Key)
	if err != nil {
		return nil, err
	}
	t, err := e.dataTable(ctx, r, *in.TableName)
	if err != nil {
		return nil, err
	}
	ks := schemaOf(t, t.KeySchema)
	key, err := requestKey(t, ks, in.Key)
	if err != nil {
		return nil, err
	}
	if err := checkProjectionKeyPaths(t, proj); err != nil {
		return nil, err
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	it, err := e.store.GetItem(ctx, t, key, consistent)
	if err != nil {
		return nil, err
	}
	out := &getItemOutput{item: projectItem(proj, it)}
	if mode := capacityMode(in.ReturnConsumedCapacity); mode != capNone {
		out.capacity = newConsumed(mode, t.Name)
		size := 0
		if it != nil {
			size = item.Size(it)
		}
		out.capacity.units = readUnits(size, consistent)
	}
	return out, nil
}

func attributesToGetConstraint(c *constraints, names []string) {
	if names != nil {
		c.listLen(len(names), true, "attributesToGet", 1, 255, func() string { return "[" + joinComma(names) + "]" })
	}
}

// readProjection checks the projection members of GetItem and of a
// BatchGetItem table (Key values first, then AttributesToGet, then the
// expression) and parses them.
func readProjection(pe *string, atg []string, names map[string]string, key item.Item) (*expr.Projection, error) {
	if err := checkParams(map[string]bool{"ProjectionExpression": pe != nil, "AttributesToGet": atg != nil},
		[]string{"ProjectionExpression"}, []string{"AttributesToGet"}, names != nil, false); err != nil {
		return nil, err
	}
	if err := validateItemValues(key); err != nil {
		return nil, err
	}
	if pe == nil {
		if atg == nil {
			return nil, nil
		}
		return expr.ConvertAttributesToGet(atg)
	}
	x, err := newExprEnv(names, nil)
	if err != nil {
		return nil, err
	}
	p, err := x.projection(pe)
	if err != nil {
		return nil, err
	}
	return p, x.checkUnused()
}

// checkProjectionKeyPaths rejects projection paths that look inside a key
// attribute of the table or of one of its indexes: key values are scalars.
// https://github.com/mhart/dynalite/blob/master/test/getItem.js
func checkProjectionKeyPaths(t *storage.Table, p *expr.Projection) error {
	return checkNestedKeyPaths(t, projectionPaths(p))
}

func checkNestedKeyPaths(t *storage.Table, paths []expr.Path) error {
	ks := schemaOf(t, t.KeySchema)
	for _, name := range ks.names() {
		for _, p := range paths {
			if len(p) > 1 && p[0].Name == name {
				return ddberr.Validation("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: %s", name)
			}
		}
	}
	for i := range t.Indexes {
		for _, ke := range t.Indexes[i].KeySchema {
			for _, p := range paths {
				if len(p) > 1 && p[0].Name == ke.AttributeName {
					return ddberr.Validation("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: %s", ke.AttributeName)
				}
			}
		}
	}
	return nil
}

// deleteItemInput is DeleteItem's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
type deleteItemInput struct {
	TableName                           *string                                `json:"TableName"`
	Key                                 item.Item                              `json:"Key"`
	ConditionExpression                 *string                                `json:"ConditionExpression"`
	Expected                            map[string]expr.ExpectedAttributeValue `json:"Expected"`
	ConditionalOperator                 *string                                `json:"ConditionalOperator"`
	ExpressionAttributeNames            map[string]string                      `json:"ExpressionAttributeNames"`
	ExpressionAttributeValues           map[string]item.AttributeValue         `json:"ExpressionAttributeValues"`
	ReturnValues                        *string                                `json:"ReturnValues"`
	ReturnConsumedCapacity              *string                                `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics         *string                                `json:"ReturnItemCollectionMetrics"`
	ReturnValuesOnConditionCheckFailure *string                                `json:"ReturnValuesOnConditionCheckFailure"`
}

func deleteItem(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in deleteItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	w := writeCommon{in.ReturnConsumedCapacity, in.ReturnItemCollectionMetrics, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure, in.ConditionalOperator}
	var c constraints
	c.tableName(in.TableName)
	c.notNull(in.Key != nil, "key")
	w.constraints(&c)
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := checkParams(map[string]bool{"ConditionExpression": in.ConditionExpression != nil, "Expected": in.Expected != nil, "ConditionalOperator": in.ConditionalOperator != nil},
		condExprParams, condLegacyParams, in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.Expected)); err != nil {
		return nil, err
	}
	if err := validateItemValues(in.Key); err != nil {
		return nil, err
	}
	if rv := returnValuesMode(in.ReturnValues); rv != "NONE" && rv != "ALL_OLD" {
		return nil, errOnlyAllOld()
	}
	cond, err := writeCondition(in.ConditionExpression, in.Expected, in.ConditionalOperator, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	t, err := e.dataTable(ctx, r, *in.TableName)
	if err != nil {
		return nil, err
	}
	ks := schemaOf(t, t.KeySchema)
	key, err := requestKey(t, ks, in.Key)
	if err != nil {
		return nil, err
	}
	var old item.Item
	err = e.mutate(ctx, t, key, func(cur item.Item) (item.Item, error) {
		old = cur
		if err := checkCondition(cond, cur, in.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	out := w.output(t, ks, old, nil, in.Key)
	if err := e.sizeCollection(ctx, t, out.metrics); err != nil {
		return nil, err
	}
	if returnValuesMode(in.ReturnValues) == "ALL_OLD" {
		out.attributes = old
	}
	return out, nil
}
