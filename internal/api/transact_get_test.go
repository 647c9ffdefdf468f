package api

import (
	"strings"
	"testing"
)

// TransactGetItems: responses in request order, {} for a missing item,
// projections, 2 RCU per 4 KB.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_transact.py (test_transact_get_items_should_return_empty_map_for_non_existent_item)
func TestTransactGetItems(t *testing.T) {
	e := itemEngine(t)
	big := strings.Repeat("x", 5000)
	runSteps(t, e, []step{
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"},"s":{"S":"x"},"m":{"M":{"k":{"N":"1"},"j":{"N":"2"}}}}}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"big"},"b":{"S":"` + big + `"}}}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`, want: `{}`},
		{op: "TransactGetItems", body: `{"TransactItems":[
			{"Get":{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}},
			{"Get":{"TableName":"hash","Key":{"pk":{"S":"missing"}}}},
			{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#m.k, s","ExpressionAttributeNames":{"#m":"m"}}},
			{"Get":{"TableName":"hash","Key":{"pk":{"S":"big"}},"ProjectionExpression":"nothing"}}],"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"Responses":[{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}},{},{"Item":{"s":{"S":"x"},"m":{"M":{"k":{"N":"1"}}}}},{}],` +
				`"ConsumedCapacity":[{"TableName":"range","CapacityUnits":2.0,"ReadCapacityUnits":2.0},{"TableName":"hash","CapacityUnits":8.0,"ReadCapacityUnits":8.0}]}`},
		{op: "TransactGetItems", body: `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"s"}}],"ReturnConsumedCapacity":"INDEXES"}`,
			want: `{"Responses":[{"Item":{"s":{"S":"x"}}}],"ConsumedCapacity":[{"TableName":"hash","CapacityUnits":2.0,"ReadCapacityUnits":2.0,"Table":{"CapacityUnits":2.0,"ReadCapacityUnits":2.0}}]}`},
		{op: "TransactGetItems", body: `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"s"}}]}`, want: `{"Responses":[{"Item":{"s":{"S":"x"}}}]}`},
	})
}

// Errors of TransactGetItems.
func TestTransactGetItemsValidation(t *testing.T) {
	e := itemEngine(t)
	get := func(k string) string { return `{"Get":{"TableName":"hash","Key":{"pk":{"S":"` + k + `"}}}}` }
	runSteps(t, e, []step{
		{op: "TransactGetItems", body: `{}`, err: "ValidationException: 1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{op: "TransactGetItems", body: `{"TransactItems":[]}`, err: "ValidationException: 1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{op: "TransactGetItems", body: `{"TransactItems":[{},{"Get":{"TableName":"hash"}}],"ReturnConsumedCapacity":"ALL"}`,
			err: "ValidationException: 3 validation errors detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'transactItems.2.member.get.key' failed to satisfy constraint: Member must not be null; " +
				"Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"},
		// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_transact.py (test_invalid_transact_get_items)
		{op: "TransactGetItems", body: `{"TransactItems":[` + get("a") + `,{"Get":{"TableName":"nosuch","Key":{"pk":{"S":"a"}}}}]}`, err: "ResourceNotFoundException: Requested resource not found"},
		{op: "TransactGetItems", body: `{"TransactItems":[` + get("a") + `,` + get("a") + `]}`, err: "ValidationException: Transaction request cannot include multiple operations on one item"},
		{op: "TransactGetItems", body: `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"a","ExpressionAttributeNames":{"#u":"u"}}}]}`,
			err: "ValidationException: Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}"},
		{op: "TransactGetItems", body: `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":""}}}}]}`,
			err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
	})
	// A key that does not match the schema cancels the read.
	// https://github.com/nubo-db/dynoxide/issues/19 (conformance test against DynamoDB)
	msg, reasons := txCanceled(t, e, "TransactGetItems", `{"TransactItems":[`+get("a")+`,{"Get":{"TableName":"hash","Key":{"pk":{"N":"1"}}}}]}`)
	if msg != "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]" ||
		reasons != `[{"Code":"None"},{"Code":"ValidationError","Message":"The provided key element does not match the schema"}]` {
		t.Errorf("got %q %s", msg, reasons)
	}
	var many []string
	for i := range 101 {
		many = append(many, get(itoa(i)))
	}
	de := callErr(e, "TransactGetItems", `{"TransactItems":[`+strings.Join(many, ",")+`]}`)
	if de == nil || !strings.HasPrefix(de.Message, "1 validation error detected: Value '[com.amazonaws.dynamodb.v20120810.TransactGetItem@") ||
		!strings.HasSuffix(de.Message, "]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100") {
		t.Errorf("101 gets: got %v", de)
	}
	runSteps(t, e, []step{{op: "TransactGetItems", body: `{"TransactItems":[` + strings.Join(many[:100], ",") + `]}`}})
}

// FuzzTransact sends arbitrary bodies to TransactWriteItems and
// TransactGetItems over a real SQLite file: no input may panic or produce a
// server error (HTTP 500).
func FuzzTransact(f *testing.F) {
	seeds := []string{
		`{}`, `{"TransactItems":null}`, `{"TransactItems":[{}]}`, `{"TransactItems":[{"Get":{}}]}`,
		`{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"}}}}],"ClientRequestToken":"t"}`,
		`{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"ADD n :v","ConditionExpression":"n < :v","ExpressionAttributeValues":{":v":{"N":"1"}}}}]}`,
		`{"TransactItems":[{"ConditionCheck":{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"size(a) > :z","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}]}`,
		`{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"a.b[1]"}}],"ReturnConsumedCapacity":"INDEXES"}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	e := itemEngine(f)
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := "TransactWriteItems"
		if op%2 == 1 {
			name = "TransactGetItems"
		}
		if de := callErr(e, name, string(body)); de != nil && de.Status >= 500 {
			t.Fatalf("%s %q: server error %v", name, body, de)
		}
	})
}
