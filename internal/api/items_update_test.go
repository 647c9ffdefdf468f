package api

import (
	"strings"
	"testing"
)

// UpdateItem: expressions, legacy AttributeUpdates and ReturnValues.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
func TestUpdateItem(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{name: "creates a missing item", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET a = :one, m = :m","ExpressionAttributeValues":{":one":{"N":"1"},":m":{"M":{"x":{"S":"y"}}}},"ReturnValues":"ALL_NEW"}`,
			want: `{"Attributes":{"pk":{"S":"u"},"a":{"N":"1"},"m":{"M":{"x":{"S":"y"}}}}}`},
		{name: "UPDATED_OLD", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET a = a + :one","ExpressionAttributeValues":{":one":{"N":"1"}},"ReturnValues":"UPDATED_OLD"}`,
			want: `{"Attributes":{"a":{"N":"1"}}}`},
		{name: "UPDATED_NEW of a nested path", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET m.z = :v","ExpressionAttributeValues":{":v":{"S":"w"}},"ReturnValues":"UPDATED_NEW"}`,
			want: `{"Attributes":{"m":{"M":{"z":{"S":"w"}}}}}`},
		{name: "ALL_OLD", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"REMOVE m","ReturnValues":"ALL_OLD"}`,
			want: `{"Attributes":{"pk":{"S":"u"},"a":{"N":"2"},"m":{"M":{"x":{"S":"y"},"z":{"S":"w"}}}}}`},
		{name: "UPDATED_NEW of a removal is empty", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"REMOVE nothing","ReturnValues":"UPDATED_NEW"}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}}}`, want: `{"Item":{"pk":{"S":"u"},"a":{"N":"2"}}}`},
		{name: "no update expression creates the key-only item", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"bare"}},"ReturnValues":"ALL_NEW"}`, want: `{"Attributes":{"pk":{"S":"bare"}}}`},
		{name: "legacy AttributeUpdates", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"AttributeUpdates":{"a":{"Action":"ADD","Value":{"N":"5"}},"s":{"Value":{"SS":["q"]}}},"ReturnValues":"ALL_NEW"}`,
			want: `{"Attributes":{"pk":{"S":"u"},"a":{"N":"7"},"s":{"SS":["q"]}}}`},
		{name: "legacy Expected fails", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"AttributeUpdates":{"a":{"Action":"PUT","Value":{"N":"0"}}},"Expected":{"a":{"Value":{"N":"1"}}}}`,
			err: "ConditionalCheckFailedException: The conditional request failed"},
		{name: "condition passes", op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET b = :v","ConditionExpression":"a = :a","ExpressionAttributeValues":{":v":{"S":"b"},":a":{"N":"7"}},"ReturnValues":"UPDATED_NEW"}`,
			want: `{"Attributes":{"b":{"S":"b"}}}`},
		// https://github.com/mhart/dynalite/blob/master/db/index.js (validateUpdates)
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET pk = :v","ExpressionAttributeValues":{":v":{"S":"b"}}}`,
			err: "ValidationException: One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"AttributeUpdates":{"pk":{"Action":"PUT","Value":{"S":"b"}}}}`,
			err: "ValidationException: One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{op: "UpdateItem", body: `{"TableName":"range","Key":{"pk":{"S":"u"},"sk":{"N":"1"}},"UpdateExpression":"SET g = :v","ExpressionAttributeValues":{":v":{"N":"1"}}}`,
			err: "ValidationException: One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: gsi"},
		{op: "UpdateItem", body: `{"TableName":"range","Key":{"pk":{"S":"u"},"sk":{"N":"1"}},"UpdateExpression":"SET g.x = :v","ExpressionAttributeValues":{":v":{"N":"1"}}}`,
			err: "ValidationException: Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: g"},
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET big = :v","ExpressionAttributeValues":{":v":{"S":"` + strings.Repeat("x", 400*1024) + `"}}}`,
			err: "ValidationException: Item size to update has exceeded the maximum allowed size"},
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET a = :v","AttributeUpdates":{"a":{"Action":"PUT","Value":{"S":"b"}}},"ExpressionAttributeValues":{":v":{"S":"b"}}}`,
			err: "ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}"},
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"UpdateExpression":"SET a = :v"}`,
			err: "ValidationException: Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :v"},
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"u"}},"AttributeUpdates":{"a":{"Action":"POP"}}}`,
			err: "ValidationException: 1 validation error detected: Value 'POP' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"},
		{op: "UpdateItem", body: `{"TableName":"nope","Key":{"pk":{"S":"u"}},"UpdateExpression":"REMOVE a"}`, err: "ResourceNotFoundException: Requested resource not found"},
	})
}

// Conditional writes and ReturnValuesOnConditionCheckFailure.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
func TestConditionalWrites(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"c"},"v":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"c"},"v":{"N":"2"}},"ConditionExpression":"attribute_not_exists(pk)"}`, err: "ConditionalCheckFailedException: The conditional request failed"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"c"},"v":{"N":"2"}},"ConditionExpression":"#v = :one","ExpressionAttributeNames":{"#v":"v"},"ExpressionAttributeValues":{":one":{"N":"1"}}}`, want: `{}`},
		{op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}},"ConditionExpression":"v = :one","ExpressionAttributeValues":{":one":{"N":"1"}}}`, err: "ConditionalCheckFailedException: The conditional request failed"},
		// https://github.com/mhart/dynalite/blob/master/test/putItem.js
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"d"}},"Expected":{"pk":{"Value":{"S":"d"}}}}`, err: "ConditionalCheckFailedException: The conditional request failed"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"c"}},"Expected":{"pk":{"Exists":false}}}`, err: "ConditionalCheckFailedException: The conditional request failed"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"c"},"v":{"N":"2"}},"Expected":{"b":{"Exists":false}}}`, want: `{}`},
		{op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}},"ConditionExpression":"v = :two","ExpressionAttributeValues":{":two":{"N":"2"}},"ReturnValues":"ALL_OLD"}`, want: `{"Attributes":{"pk":{"S":"c"},"v":{"N":"2"}}}`},
		{op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}},"ReturnValues":"UPDATED_NEW"}`, err: "ValidationException: ReturnValues can only be ALL_OLD or NONE"},
		{op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}},"ReturnValuesOnConditionCheckFailure":"ALL_NEW"}`,
			err: "ValidationException: 1 validation error detected: Value 'ALL_NEW' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"},
	})

	// The failed check carries the current item when asked.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-ReturnValuesOnConditionCheckFailure
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"f"},"v":{"N":"9"}}}`)
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem"} {
		body := `{"TableName":"hash","Key":{"pk":{"S":"f"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`
		if op == "PutItem" {
			body = `{"TableName":"hash","Item":{"pk":{"S":"f"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`
		}
		de := callErr(e, op, body)
		if de == nil || de.Name() != "ConditionalCheckFailedException" {
			t.Fatalf("%s: got %v", op, de)
		}
		got, ok := de.Extra["Item"]
		if !ok {
			t.Fatalf("%s: no Item in %v", op, de.Extra)
		}
		b, _ := marshalJSON(got)
		if !sameJSON(t, b, `{"pk":{"S":"f"},"v":{"N":"9"}}`) {
			t.Errorf("%s: Item %s", op, b)
		}
	}
	// Without ALL_OLD, or when the item is absent, there is no Item.
	de := callErr(e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"g"}},"ConditionExpression":"attribute_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`)
	if de == nil || de.Extra["Item"] != nil {
		t.Errorf("absent item: %v", de)
	}
}
