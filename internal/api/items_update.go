package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// updateItemInput is UpdateItem's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
type updateItemInput struct {
	conditionalWrite
	Key              item.Item
	UpdateExpression *string
	AttributeUpdates map[string]expr.AttributeValueUpdate

	upd *expr.Update // the parsed UpdateExpression or AttributeUpdates
}

// updateItemOp is UpdateItem. Its members are reported in DynamoDB's order.
// https://github.com/mhart/dynalite/blob/master/test/updateItem.js ("incorrect attributes")
var updateItemOp = itemOp[updateItemInput](writeMembers,
	"returnConsumedCapacity tableName returnItemCollectionMetrics returnValues key returnValuesOnConditionCheckFailure conditionalOperator attributeUpdates",
	map[string]rule[updateItemInput]{
		"key":              required("key", func(in *updateItemInput) bool { return in.Key != nil }),
		"attributeUpdates": attributeUpdateActionsRule,
	},
	(*Engine).checkUpdateItem, (*Engine).updateItem)

// attributeUpdateActionsRule checks each legacy AttributeUpdates Action
// against its enum, in attribute-name order.
func attributeUpdateActionsRule(in *updateItemInput, c *constraints) {
	for _, name := range sortedKeys(in.AttributeUpdates) {
		if a := in.AttributeUpdates[name].Action; a != "" {
			c.enum(&a, "attributeUpdates."+name+".member.action", enumAttributeAction...)
		}
	}
}

// checkUpdateItem is UpdateItem's checks before its table: parameter
// families, the key's and legacy update values, then the expressions (or
// their legacy forms).
func (e *Engine) checkUpdateItem(in *updateItemInput) error {
	if err := checkParams(map[string]bool{"UpdateExpression": in.UpdateExpression != nil, "ConditionExpression": in.ConditionExpression != nil,
		"AttributeUpdates": in.AttributeUpdates != nil, "Expected": in.Expected != nil, "ConditionalOperator": in.ConditionalOperator != nil},
		[]string{"UpdateExpression", "ConditionExpression"}, []string{"AttributeUpdates", "Expected", "ConditionalOperator"},
		in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.Expected)); err != nil {
		return err
	}
	if err := validateItemValues(in.Key); err != nil {
		return err
	}
	for _, name := range sortedKeys(in.AttributeUpdates) {
		if err := checkAttributeName(name); err != nil {
			return err
		}
		if v := in.AttributeUpdates[name].Value; v != nil {
			if err := checkNestedNames(*v); err != nil {
				return err
			}
			if err := item.Validate(*v); err != nil {
				return err
			}
		}
	}
	return e.parseUpdate(in)
}

// parseUpdate parses UpdateItem's update and condition, from expressions or
// from their legacy forms.
func (e *Engine) parseUpdate(in *updateItemInput) error {
	var err error
	if in.UpdateExpression != nil || in.ConditionExpression != nil {
		x, err := e.newExprEnv(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if err != nil {
			return err
		}
		if in.upd, err = x.update(in.UpdateExpression); err != nil {
			return err
		}
		if in.cond, err = x.condition(expr.KindCondition, in.ConditionExpression); err != nil {
			return err
		}
		return x.checkUnused()
	}
	if in.AttributeUpdates != nil {
		if in.upd, err = expr.ConvertAttributeUpdates(in.AttributeUpdates); err != nil {
			return err
		}
	}
	if in.Expected != nil {
		if in.cond, err = expr.ConvertExpected(in.Expected, valueOrZero(in.ConditionalOperator)); err != nil {
			return err
		}
	}
	return nil
}

// updateItem applies a checked UpdateItem request to its item.
func (e *Engine) updateItem(ctx context.Context, in *updateItemInput, t *storage.Table) (any, error) {
	upd, cond := in.upd, in.cond
	ks := schemaOf(t, t.KeySchema)
	key, err := requestKey(t, ks, in.Key)
	if err != nil {
		return nil, err
	}
	if upd != nil {
		if err := upd.CheckKeyUpdate(ks.names()...); err != nil {
			return nil, err
		}
		if err := checkNestedKeyPaths(t, upd.Paths()); err != nil {
			return nil, err
		}
	}

	var old, new item.Item
	err = e.mutate(ctx, t, key, func(cur item.Item) (item.Item, error) {
		old, new = cur, nil
		if err := checkCondition(cond, cur, in.ReturnValuesOnConditionCheckFailure); err != nil {
			return nil, err
		}
		if cur == nil && upd != nil && upd.RemovesOnly() {
			return nil, nil // nothing to take away: the item stays absent
		}
		base := cur
		if base == nil {
			base = make(item.Item, len(in.Key))
			for k, v := range in.Key {
				base[k] = v
			}
		}
		next := base
		if upd != nil {
			var err error
			if next, err = upd.Apply(base); err != nil {
				return nil, err
			}
		}
		if err := checkItemSize(next, msgUpdatedItemTooLarge); err != nil {
			return nil, err
		}
		if err := checkIndexKeys(t, next); err != nil {
			return nil, err
		}
		if cur != nil && upd == nil {
			// Nothing to change: keep the stored image without a write.
			new = cur
			return cur, nil
		}
		new = next
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return e.respond(ctx, &in.conditionalWrite, t, ks, old, new, in.Key, updateReturnValues(returnValuesMode(in.ReturnValues), old, new, upd))
}

// updateReturnValues selects the Attributes UpdateItem returns: nothing,
// the whole old or new image, or the updated paths of either.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues
func updateReturnValues(mode string, old, new item.Item, upd *expr.Update) item.Item {
	var out item.Item
	switch mode {
	case "ALL_OLD":
		out = old
	case "ALL_NEW":
		out = new
	case "UPDATED_OLD":
		if upd != nil && old != nil {
			out = upd.Updated(old)
		}
	case "UPDATED_NEW":
		if upd != nil && new != nil {
			out = upd.Updated(new)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
