package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
)

// updateItemInput is UpdateItem's request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
type updateItemInput struct {
	TableName                           *string                                `json:"TableName"`
	Key                                 item.Item                              `json:"Key"`
	UpdateExpression                    *string                                `json:"UpdateExpression"`
	AttributeUpdates                    map[string]expr.AttributeValueUpdate   `json:"AttributeUpdates"`
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

func updateItem(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in updateItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	w := writeCommon{in.ReturnConsumedCapacity, in.ReturnItemCollectionMetrics, in.ReturnValues, in.ReturnValuesOnConditionCheckFailure, in.ConditionalOperator}
	var c constraints
	c.tableName(in.TableName)
	c.notNull(in.Key != nil, "key")
	w.constraints(&c)
	for _, name := range sortedKeys(in.AttributeUpdates) {
		if a := in.AttributeUpdates[name].Action; a != "" {
			c.enum(&a, "attributeUpdates."+name+".member.action", enumAttributeAction...)
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := checkParams(map[string]bool{"UpdateExpression": in.UpdateExpression != nil, "ConditionExpression": in.ConditionExpression != nil,
		"AttributeUpdates": in.AttributeUpdates != nil, "Expected": in.Expected != nil, "ConditionalOperator": in.ConditionalOperator != nil},
		[]string{"UpdateExpression", "ConditionExpression"}, []string{"AttributeUpdates", "Expected", "ConditionalOperator"},
		in.ExpressionAttributeNames != nil, in.ExpressionAttributeValues != nil); err != nil {
		return nil, err
	}
	if err := expr.CheckConditionalOperator(in.ConditionalOperator, len(in.Expected)); err != nil {
		return nil, err
	}
	if err := validateItemValues(in.Key); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(in.AttributeUpdates) {
		if v := in.AttributeUpdates[name].Value; v != nil {
			if err := item.Validate(*v); err != nil {
				return nil, err
			}
		}
	}

	// Expressions (or their legacy forms).
	var upd *expr.Update
	var cond *expr.Condition
	var err error
	if in.UpdateExpression != nil || in.ConditionExpression != nil {
		x, err := newExprEnv(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if err != nil {
			return nil, err
		}
		if upd, err = x.update(in.UpdateExpression); err != nil {
			return nil, err
		}
		if cond, err = x.condition(expr.KindCondition, in.ConditionExpression); err != nil {
			return nil, err
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
	} else {
		if in.AttributeUpdates != nil {
			if upd, err = expr.ConvertAttributeUpdates(in.AttributeUpdates); err != nil {
				return nil, err
			}
		}
		if in.Expected != nil {
			if cond, err = expr.ConvertExpected(in.Expected, opString(in.ConditionalOperator)); err != nil {
				return nil, err
			}
		}
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
		if item.Size(next) > maxItemBytes {
			return nil, ddberr.Validation("Item size to update has exceeded the maximum allowed size")
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
	out := w.output(t, ks, old, new, in.Key)
	if err := e.sizeCollection(ctx, t, out.metrics); err != nil {
		return nil, err
	}
	out.attributes = updateReturnValues(returnValuesMode(in.ReturnValues), old, new, upd)
	return out, nil
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
