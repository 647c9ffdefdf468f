package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
)

// conditionalWrite holds the members of the three conditional single-item
// writes, PutItem, DeleteItem and UpdateItem, and what their checks parse.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
type conditionalWrite struct {
	TableName                           *string
	ConditionExpression                 *string
	Expected                            map[string]expr.ExpectedAttributeValue
	ConditionalOperator                 *string
	ExpressionAttributeNames            map[string]string
	ExpressionAttributeValues           map[string]item.AttributeValue
	ReturnValues                        *string
	ReturnConsumedCapacity              *string
	ReturnItemCollectionMetrics         *string
	ReturnValuesOnConditionCheckFailure *string

	cond *expr.Condition // the parsed ConditionExpression or Expected
}

func (w *conditionalWrite) members() *conditionalWrite { return w }

// checkConditionParams checks how the write's condition is given: not
// both ConditionExpression and the legacy Expected/ConditionalOperator,
// expression attribute maps only with an expression, ConditionalOperator
// only with two or more Expected entries.
func (w *conditionalWrite) checkConditionParams() error {
	if err := checkParams(map[string]bool{"ConditionExpression": w.ConditionExpression != nil, "Expected": w.Expected != nil, "ConditionalOperator": w.ConditionalOperator != nil},
		condExprParams, condLegacyParams, w.ExpressionAttributeNames != nil, w.ExpressionAttributeValues != nil); err != nil {
		return err
	}
	return expr.CheckConditionalOperator(w.ConditionalOperator, len(w.Expected))
}

// parseCondition parses the write's ConditionExpression or Expected into
// w.cond (nil when it has none).
func (e *Engine) parseCondition(w *conditionalWrite) error {
	var err error
	w.cond, err = e.writeCondition(w.ConditionExpression, w.Expected, w.ConditionalOperator, w.ExpressionAttributeNames, w.ExpressionAttributeValues)
	return err
}

// writeRules are the rules of the members the three writes share, by path.
var writeRules = map[string]rule[conditionalWrite]{
	"tableName":              tableNameRule(func(w *conditionalWrite) *string { return w.TableName }),
	"returnConsumedCapacity": enumRule("returnConsumedCapacity", func(w *conditionalWrite) *string { return w.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
	"returnItemCollectionMetrics": enumRule("returnItemCollectionMetrics",
		func(w *conditionalWrite) *string { return w.ReturnItemCollectionMetrics }, enumReturnItemCollectionMetrics),
	"returnValues": enumRule("returnValues", func(w *conditionalWrite) *string { return w.ReturnValues }, enumReturnValues),
	"returnValuesOnConditionCheckFailure": enumRule("returnValuesOnConditionCheckFailure",
		func(w *conditionalWrite) *string { return w.ReturnValuesOnConditionCheckFailure }, enumReturnValuesOnFailure),
	"conditionalOperator": enumRule("conditionalOperator", func(w *conditionalWrite) *string { return w.ConditionalOperator }, enumConditionalOperator),
}

// writeMembers are the members the three writes share.
var writeMembers = sharedMembers[conditionalWrite]{
	rules:  writeRules,
	table:  func(w *conditionalWrite) *string { return w.TableName },
	access: func(*conditionalWrite) access { return access{kind: realism.Write} },
}

// respond builds the response of a write of t from old to new on the
// item of key: Attributes as given, and ConsumedCapacity and
// ItemCollectionMetrics (with the collection's size) when requested.
func (e *Engine) respond(ctx context.Context, w *conditionalWrite, t *storage.Table, ks keySchema, old, new, key, attributes item.Item) (any, error) {
	out := &writeOutput{attributes: attributes}
	if mode := capacityMode(w.ReturnConsumedCapacity); mode != capNone {
		out.capacity = newConsumed(mode, t.Name)
		out.capacity.chargeWrite(t, old, new)
	}
	out.metrics = collectionMetrics(t, ks, w.ReturnItemCollectionMetrics, key)
	if err := e.sizeCollection(ctx, t, out.metrics); err != nil {
		return nil, err
	}
	return out, nil
}

// allOld is the Attributes of a PutItem or DeleteItem: the old image when
// ReturnValues is ALL_OLD, the only other value they accept being NONE.
func allOld(returnValues *string, old item.Item) item.Item {
	if returnValuesMode(returnValues) == "ALL_OLD" {
		return old
	}
	return nil
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

// checkAllOldWrite is the start of PutItem's and DeleteItem's checks:
// parameter families, the values of it (the item or the key, checked by
// check), then ReturnValues, which they accept only as ALL_OLD or NONE.
func (w *conditionalWrite) checkAllOldWrite(check func(item.Item) error, it item.Item) error {
	if err := w.checkConditionParams(); err != nil {
		return err
	}
	if err := check(it); err != nil {
		return err
	}
	if rv := returnValuesMode(w.ReturnValues); rv != "NONE" && rv != "ALL_OLD" {
		return errOnlyAllOld()
	}
	return nil
}

// errOnlyAllOld is PutItem's and DeleteItem's answer to a ReturnValues they
// do not support.
// https://github.com/mhart/dynalite/blob/master/test/putItem.js
func errOnlyAllOld() error {
	return ddberr.Validation("ReturnValues can only be ALL_OLD or NONE")
}

// putItemInput is PutItem's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
type putItemInput struct {
	conditionalWrite
	Item item.Item
}

// putItemOp is PutItem. Its members are reported in DynamoDB's order.
// https://github.com/mhart/dynalite/blob/master/test/putItem.js ("incorrect attributes")
var putItemOp = itemOp[putItemInput](writeMembers,
	"returnConsumedCapacity tableName item returnValues returnItemCollectionMetrics returnValuesOnConditionCheckFailure conditionalOperator",
	map[string]rule[putItemInput]{"item": required("item", func(in *putItemInput) bool { return in.Item != nil })},
	(*Engine).checkPutItem, (*Engine).putItem)

// checkPutItem is PutItem's checks before its table: parameter families,
// the item's values, ReturnValues, the item's size, then the condition.
func (e *Engine) checkPutItem(in *putItemInput) error {
	if err := in.checkAllOldWrite(checkItem, in.Item); err != nil {
		return err
	}
	if err := checkItemSize(in.Item, msgItemTooLarge); err != nil {
		return err
	}
	return e.parseCondition(&in.conditionalWrite)
}

// putItem writes a checked PutItem request to its table.
func (e *Engine) putItem(ctx context.Context, in *putItemInput, t *storage.Table) (any, error) {
	ks := schemaOf(t, t.KeySchema)
	key, err := itemKey(t, ks, in.Item)
	if err != nil {
		return nil, err
	}
	return e.replaceItem(ctx, &in.conditionalWrite, t, ks, key, in.Item, in.Item)
}

// replaceItem is the write of PutItem and DeleteItem: when w's condition
// holds of the item at key, next replaces it (nil deletes it). keyItem
// holds the request's key attributes. The response's Attributes are the
// old image when ReturnValues is ALL_OLD.
func (e *Engine) replaceItem(ctx context.Context, w *conditionalWrite, t *storage.Table, ks keySchema, key storage.Key, next, keyItem item.Item) (any, error) {
	var old item.Item
	err := e.mutate(ctx, t, key, func(cur item.Item) (item.Item, error) {
		old = cur
		if err := checkCondition(w.cond, cur, w.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return e.respond(ctx, w, t, ks, old, next, keyItem, allOld(w.ReturnValues, old))
}

// The expression and legacy parameters of PutItem and DeleteItem.
var (
	condExprParams   = []string{"ConditionExpression"}
	condLegacyParams = []string{"Expected", "ConditionalOperator"}
)

// writeCondition parses the condition of a single-item write: a
// ConditionExpression or the legacy Expected, and checks that every
// placeholder is used.
func (e *Engine) writeCondition(ce *string, expected map[string]expr.ExpectedAttributeValue, op *string, names map[string]string, values map[string]item.AttributeValue) (*expr.Condition, error) {
	if ce == nil {
		if expected == nil {
			return nil, nil
		}
		return expr.ConvertExpected(expected, valueOrZero(op))
	}
	x, err := e.newExprEnv(names, values)
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
	TableName                *string
	Key                      item.Item
	AttributesToGet          []string
	ConsistentRead           *bool
	ProjectionExpression     *string
	ExpressionAttributeNames map[string]string
	ReturnConsumedCapacity   *string

	proj *expr.Projection // the parsed projection
}

// getItemOp is GetItem.
// https://github.com/mhart/dynalite/blob/master/test/getItem.js ("incorrect attributes")
var getItemOp = &tableOp[getItemInput]{
	rules: rules[getItemInput]{
		attributesToGetRule(func(in *getItemInput) []string { return in.AttributesToGet }),
		enumRule("returnConsumedCapacity", func(in *getItemInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
		required("key", func(in *getItemInput) bool { return in.Key != nil }),
		tableNameRule(func(in *getItemInput) *string { return in.TableName }),
	},
	check: func(e *Engine, in *getItemInput) error {
		var err error
		in.proj, err = e.readProjection(in.ProjectionExpression, in.AttributesToGet, in.ExpressionAttributeNames, in.Key)
		return err
	},
	table:   func(in *getItemInput) string { return *in.TableName },
	mode:    lookupData,
	execute: (*Engine).getItem,
	access: func(in *getItemInput) access {
		return access{kind: realism.Read, eventual: in.ConsistentRead == nil || !*in.ConsistentRead, key: in.Key, proj: in.proj}
	},
}

// getItem reads a checked GetItem request's item.
func (e *Engine) getItem(ctx context.Context, in *getItemInput, t *storage.Table) (any, error) {
	ks := schemaOf(t, t.KeySchema)
	key, err := requestKey(t, ks, in.Key)
	if err != nil {
		return nil, err
	}
	if err := checkProjectionKeyPaths(t, in.proj); err != nil {
		return nil, err
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	it, err := e.store.GetItem(ctx, t, key, consistent)
	if err != nil {
		return nil, err
	}
	out := &getItemOutput{item: projectItem(in.proj, it)}
	mode := capacityMode(in.ReturnConsumedCapacity)
	if mode == capNone && e.cfg.OnTableUse == nil {
		return out, nil
	}
	size, found := 0, 0
	if it != nil {
		size, found = item.Size(it), 1
	}
	units := readUnits(size, consistent)
	if mode != capNone {
		out.capacity = newConsumed(mode, t.Name)
		out.capacity.units = units
	}
	e.meterRead(t, found, size, units)
	return out, nil
}

func attributesToGetConstraint(c *constraints, names []string) {
	if names != nil {
		c.listLen(len(names), true, "attributesToGet", 1, 255, func() string { return "[" + joinComma(names) + "]" })
	}
}

// readProjection checks the projection members of GetItem and of a
// TransactGetItems Get (parameter mixing, then the Key values) and parses
// them. BatchGetItem runs the two steps apart, its keys' checks between.
func (e *Engine) readProjection(pe *string, atg []string, names map[string]string, key item.Item) (*expr.Projection, error) {
	if err := checkProjectionParams(pe, atg, names); err != nil {
		return nil, err
	}
	if err := validateItemValues(key); err != nil {
		return nil, err
	}
	return e.parseReadProjection(pe, atg, names)
}

// checkProjectionParams applies the parameter mixing rules to a read's
// projection members.
func checkProjectionParams(pe *string, atg []string, names map[string]string) error {
	return checkParams(map[string]bool{"ProjectionExpression": pe != nil, "AttributesToGet": atg != nil},
		[]string{"ProjectionExpression"}, []string{"AttributesToGet"}, names != nil, false)
}

// parseReadProjection parses a read's checked projection members.
func (e *Engine) parseReadProjection(pe *string, atg []string, names map[string]string) (*expr.Projection, error) {
	if pe == nil {
		if atg == nil {
			return nil, nil
		}
		return expr.ConvertAttributesToGet(atg)
	}
	x, err := e.newExprEnv(names, nil)
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
	conditionalWrite
	Key item.Item
}

// deleteItemOp is DeleteItem. Its members are reported in DynamoDB's order.
// https://github.com/mhart/dynalite/blob/master/test/deleteItem.js ("incorrect attributes")
var deleteItemOp = itemOp[deleteItemInput](writeMembers,
	"returnConsumedCapacity tableName returnValues returnItemCollectionMetrics key returnValuesOnConditionCheckFailure conditionalOperator",
	map[string]rule[deleteItemInput]{"key": required("key", func(in *deleteItemInput) bool { return in.Key != nil })},
	(*Engine).checkDeleteItem, (*Engine).deleteItem)

// checkDeleteItem is DeleteItem's checks before its table: parameter
// families, the key's values, ReturnValues, then the condition.
func (e *Engine) checkDeleteItem(in *deleteItemInput) error {
	if err := in.checkAllOldWrite(validateItemValues, in.Key); err != nil {
		return err
	}
	return e.parseCondition(&in.conditionalWrite)
}

// deleteItem deletes a checked DeleteItem request's item.
func (e *Engine) deleteItem(ctx context.Context, in *deleteItemInput, t *storage.Table) (any, error) {
	ks := schemaOf(t, t.KeySchema)
	key, err := requestKey(t, ks, in.Key)
	if err != nil {
		return nil, err
	}
	return e.replaceItem(ctx, &in.conditionalWrite, t, ks, key, nil, in.Key)
}
