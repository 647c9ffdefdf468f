package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/storage"
)

// Sources of the expected behaviour and messages:
//   [api]   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
//   [guide] https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
//   [moto]  https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_transact.py and
//           .../exceptions/test_dynamodb_transactions.py (tests marked aws_verified ran against DynamoDB)
//   [dynoxide] https://github.com/nubo-db/dynoxide (behaviour captured from DynamoDB, issues #19, #95, PR #99,
//           tests/transactional_index_consumed_capacity.rs)
//   [sdk]   aws-sdk-go-v2 service/dynamodb types.TransactionCanceledException and CancellationReason

// txCanceled serves a TransactWriteItems (or op) expected to be cancelled and
// returns its message and its CancellationReasons as JSON.
func txCanceled(t *testing.T, e *Engine, op, body string) (string, string) {
	t.Helper()
	de := callErr(e, op, body)
	if de == nil {
		t.Fatalf("%s %s: want TransactionCanceledException, got success", op, body)
	}
	if de.Name() != "TransactionCanceledException" || de.Status != 400 {
		t.Fatalf("%s %s: want TransactionCanceledException, got %s (%d): %s", op, body, de.Name(), de.Status, de.Message)
	}
	b, err := json.Marshal(de.Extra["CancellationReasons"])
	if err != nil {
		t.Fatal(err)
	}
	return de.Message, string(b)
}

// Put, Update, Delete and ConditionCheck across tables, all applied. [api]
func TestTransactWriteApplies(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"upd"},"n":{"N":"1"}}}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"del"}}}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"chk"},"sk":{"N":"1"},"ok":{"BOOL":true}}}`, want: `{}`},
		{op: "TransactWriteItems", body: `{"TransactItems":[
			{"Put":{"TableName":"hash","Item":{"pk":{"S":"new"},"v":{"S":"x"}},"ConditionExpression":"attribute_not_exists(pk)"}},
			{"Update":{"TableName":"hash","Key":{"pk":{"S":"upd"}},"UpdateExpression":"SET n = n + :one, #t = :t","ConditionExpression":"n = :one",
				"ExpressionAttributeNames":{"#t":"tag"},"ExpressionAttributeValues":{":one":{"N":"1"},":t":{"S":"t"}}}},
			{"Delete":{"TableName":"hash","Key":{"pk":{"S":"del"}},"ConditionExpression":"attribute_exists(pk)"}},
			{"ConditionCheck":{"TableName":"range","Key":{"pk":{"S":"chk"},"sk":{"N":"1"}},"ConditionExpression":"#o = :t","ExpressionAttributeNames":{"#o":"ok"},"ExpressionAttributeValues":{":t":{"BOOL":true}}}},
			{"Update":{"TableName":"range","Key":{"pk":{"S":"fresh"},"sk":{"N":"2"}},"UpdateExpression":"ADD c :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}]}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"new"}}}`, want: `{"Item":{"pk":{"S":"new"},"v":{"S":"x"}}}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"upd"}}}`, want: `{"Item":{"pk":{"S":"upd"},"n":{"N":"2"},"tag":{"S":"t"}}}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"del"}}}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"range","Key":{"pk":{"S":"chk"},"sk":{"N":"1"}}}`, want: `{"Item":{"pk":{"S":"chk"},"sk":{"N":"1"},"ok":{"BOOL":true}}}`},
		{op: "GetItem", body: `{"TableName":"range","Key":{"pk":{"S":"fresh"},"sk":{"N":"2"}}}`, want: `{"Item":{"pk":{"S":"fresh"},"sk":{"N":"2"},"c":{"N":"1"}}}`},
		// The index rows follow the transaction's writes.
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"range","Item":{"pk":{"S":"i"},"sk":{"N":"1"},"g":{"S":"G"}}}}]}`, want: `{}`},
		{op: "Query", body: `{"TableName":"range","IndexName":"gsiall","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"G"}}}`,
			want: `{"Items":[{"pk":{"S":"i"},"sk":{"N":"1"},"g":{"S":"G"}}],"Count":1,"ScannedCount":1}`},
	})
}

// A failed condition cancels every action; reasons come in request order,
// "None" for the fine ones, and the message lists their codes. [moto] (AWS-verified shape) [sdk]
func TestTransactWriteCancellation(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"a"},"v":{"S":"old"}}}`)
	msg, reasons := txCanceled(t, e, "TransactWriteItems", `{"TransactItems":[
		{"Put":{"TableName":"hash","Item":{"pk":{"S":"b"}}}},
		{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}}]}`)
	if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]"; msg != want {
		t.Errorf("message:\n got %q\nwant %q", msg, want)
	}
	if want := `[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}]`; reasons != want {
		t.Errorf("reasons:\n got %s\nwant %s", reasons, want)
	}
	runSteps(t, e, []step{{name: "nothing applied", op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"b"}}}`, want: `{}`}})

	// Every failing condition is reported; ALL_OLD adds the item's image, and
	// nothing for an absent item. [moto] test_transact_write_items_failure__return_item
	for _, op := range []string{"Put", "Update", "Delete", "ConditionCheck"} {
		var acts []string
		for _, k := range []string{"a", "x", "a2"} {
			a := `{"` + op + `":{"TableName":"hash","Key":{"pk":{"S":"` + k + `"}},"ConditionExpression":"attribute_not_exists(v)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"`
			switch op {
			case "Put":
				a = strings.Replace(a, `"Key"`, `"Item"`, 1)
			case "Update":
				a += `,"UpdateExpression":"SET w = :w","ExpressionAttributeValues":{":w":{"S":"w"}}`
			}
			acts = append(acts, a+`}}`)
		}
		if op == "Put" {
			mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"a2"},"v":{"S":"old2"}}}`)
		}
		msg, reasons := txCanceled(t, e, "TransactWriteItems", `{"TransactItems":[`+strings.Join(acts, ",")+`]}`)
		if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None, ConditionalCheckFailed]"; msg != want {
			t.Errorf("%s message: got %q", op, msg)
		}
		want := `[{"Code":"ConditionalCheckFailed","Message":"The conditional request failed","Item":{"pk":{"S":"a"},"v":{"S":"old"}}},{"Code":"None"},` +
			`{"Code":"ConditionalCheckFailed","Message":"The conditional request failed","Item":{"pk":{"S":"a2"},"v":{"S":"old2"}}}]`
		if reasons != want {
			t.Errorf("%s reasons:\n got %s\nwant %s", op, reasons, want)
		}
	}
	runSteps(t, e, []step{{name: "no upsert left behind", op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"x"}}}`, want: `{}`}})
}

// Errors that depend on the stored item cancel the transaction with a
// ValidationError reason. [sdk] (reason messages) and aws-sdk-net issue 1292 (a
// DynamoDB response).
func TestTransactWriteRuntimeValidationError(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"a"},"s":{"S":"x"}}}`)
	big := strings.Repeat("x", 300*1024)
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"big"},"s":{"S":"`+big+`"}}}`)
	cases := []struct{ body, msg, reasons string }{
		{`{"TransactItems":[{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ConditionExpression":"attribute_exists(pk)"}},
			{"Update":{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET s = s + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}]}`, "", ""},
		{`{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET s = s + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}},
			{"Put":{"TableName":"hash","Item":{"pk":{"S":"b"}}}}]}`,
			"Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError, None]",
			`[{"Code":"ValidationError","Message":"An operand in the update expression has an incorrect data type"},{"Code":"None"}]`},
		{`{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"big"}},"UpdateExpression":"SET t = :v","ExpressionAttributeValues":{":v":{"S":"` + big[:150*1024] + `"}}}}]}`,
			"Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]",
			`[{"Code":"ValidationError","Message":"Item size to update has exceeded the maximum allowed size"}]`},
	}
	if de := callErr(e, "TransactWriteItems", cases[0].body); de == nil || de.Name() != "ValidationException" {
		// Two actions on one item are refused before anything runs.
		t.Errorf("two actions on one item: got %v", de)
	}
	for _, c := range cases[1:] {
		msg, reasons := txCanceled(t, e, "TransactWriteItems", c.body)
		if msg != c.msg || reasons != c.reasons {
			t.Errorf("got %q %s\nwant %q %s", msg, reasons, c.msg, c.reasons)
		}
	}
	runSteps(t, e, []step{{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"b"}}}`, want: `{}`}})
}

// Key mismatches cancel the transaction before anything runs, with a
// ValidationError for the action; an empty key value is a ValidationException
// of the request. [dynoxide] PR #99, issue #95; [moto] test_transaction_with_empty_key (AWS-verified)
func TestTransactWriteKeys(t *testing.T) {
	e := itemEngine(t)
	msg, reasons := txCanceled(t, e, "TransactWriteItems", `{"TransactItems":[
		{"Put":{"TableName":"hash","Item":{"pk":{"N":"1"}}}},
		{"Delete":{"TableName":"hash","Key":{"pk":{"S":"c"}}}},
		{"ConditionCheck":{"TableName":"range","Key":{"pk":{"S":"c"}},"ConditionExpression":"attribute_exists(pk)"}}]}`)
	if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError, None, ValidationError]"; msg != want {
		t.Errorf("message: %q", msg)
	}
	if want := `[{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},{"Code":"None"},` +
		`{"Code":"ValidationError","Message":"The provided key element does not match the schema"}]`; reasons != want {
		t.Errorf("reasons:\n got %s\nwant %s", reasons, want)
	}
	runSteps(t, e, []step{
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":""}},"UpdateExpression":"SET sth = :v","ExpressionAttributeValues":{":v":{"N":"0"}}}}]}`,
			err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		// [moto] test_transact_write_items_with_empty_gsi_key
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":""}}}}]}`,
			err: "ValidationException: One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gsi, IndexKey: g"},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET pk = :v","ExpressionAttributeValues":{":v":{"S":"b"}}}}]}`,
			err: "ValidationException: One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
	})
}

// Request-level validation, in DynamoDB's words.
func TestTransactWriteValidation(t *testing.T) {
	e := itemEngine(t)
	put := func(k string) string { return `{"Put":{"TableName":"hash","Item":{"pk":{"S":"` + k + `"}}}}` }
	var many []string
	for i := range 101 {
		many = append(many, put(itoa(i)))
	}
	runSteps(t, e, []step{
		{op: "TransactWriteItems", body: `{}`, err: "ValidationException: 1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		// [dynoxide] src/actions/transact_write_items.rs
		{op: "TransactWriteItems", body: `{"TransactItems":[]}`, err: "ValidationException: 1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		// [moto] test_transact_write_items_multiple_operations_fail
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"}}},"Delete":{"TableName":"hash","Key":{"pk":{"S":"a"}}}}]}`,
			err: "ValidationException: TransactItems can only contain one of Check, Put, Update or Delete"},
		{op: "TransactWriteItems", body: `{"TransactItems":[{}]}`, err: "ValidationException: TransactItems can only contain one of Check, Put, Update or Delete"},
		// [moto] test_transact_write_items__put_and_delete_with_different_key_order (AWS-verified)
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"range","Item":{"pk":{"S":"p"},"sk":{"N":"1"},"d":{"S":"v"}}}},{"Delete":{"TableName":"range","Key":{"sk":{"N":"1.0"},"pk":{"S":"p"}}}}]}`,
			err: "ValidationException: Transaction request cannot include multiple operations on one item"},
		{name: "same key, other table", op: "TransactWriteItems", body: `{"TransactItems":[` + put("k") + `,{"Delete":{"TableName":"bin","Key":{"pk":{"B":"aw=="}}}}]}`, want: `{}`},
		// [moto] test_invalid_transact_get_items: an unknown table is not named.
		{op: "TransactWriteItems", body: `{"TransactItems":[` + put("k") + `,{"Delete":{"TableName":"nosuch","Key":{"pk":{"S":"a"}}}}]}`, err: "ResourceNotFoundException: Requested resource not found"},
		// [moto] test_transact_write_items__empty_expr_attr_values (AWS-verified)
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"t"}},"ConditionExpression":"attribute_not_exists(#n0)","ExpressionAttributeNames":{"#n0":"pk"},"ExpressionAttributeValues":{}}}]}`,
			err: "ValidationException: ExpressionAttributeValues must not be empty"},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"t"}},"ConditionExpression":"a = :v","ExpressionAttributeValues":{":v":{"S":"x"},":w":{"S":"y"}}}}]}`,
			err: "ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"},
		{name: "unused names are per action", op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"t"}},"ConditionExpression":"#a = :v","ExpressionAttributeNames":{"#a":"a"},"ExpressionAttributeValues":{":v":{"S":"x"}}}},
			{"Delete":{"TableName":"hash","Key":{"pk":{"S":"u"}},"ConditionExpression":"attribute_exists(pk)","ExpressionAttributeNames":{"#a":"a"}}}]}`,
			err: "ValidationException: Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"t"}},"ExpressionAttributeNames":{"#a":"a"}}}]}`,
			err: "ValidationException: ExpressionAttributeNames can only be specified when using expressions"},
		// [moto] test_transact_write_items__update_with_multiple_set_clauses (AWS-verified)
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"s"}},"UpdateExpression":"SET a = :t SET b = :t","ExpressionAttributeValues":{":t":{"BOOL":true}}}}]}`,
			err: `ValidationException: Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		// aws-sdk-java-v2 issue 3561 (a DynamoDB response)
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"a"}}}},{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"a"}}}},
			{"Put":{"TableName":"x"}}],"ReturnConsumedCapacity":"BAD","ReturnItemCollectionMetrics":"ALL","ClientRequestToken":""}`,
			err: "ValidationException: 7 validation errors detected: Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy constraint: Member must not be null; " +
				"Value null at 'transactItems.2.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null; " +
				"Value 'x' at 'transactItems.3.member.put.tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
				"Value null at 'transactItems.3.member.put.item' failed to satisfy constraint: Member must not be null; " +
				"Value '' at 'clientRequestToken' failed to satisfy constraint: Member must have length greater than or equal to 1; " +
				"Value 'BAD' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'ALL' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"ALL_NEW"}}],"ClientRequestToken":"` + strings.Repeat("t", 37) + `"}`,
			err: "ValidationException: 2 validation errors detected: Value 'ALL_NEW' at 'transactItems.1.member.put.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]; " +
				"Value '" + strings.Repeat("t", 37) + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"},"x":{"S":"` + strings.Repeat("x", 400*1024) + `"}}}}]}`,
			err: "ValidationException: Item size has exceeded the maximum allowed size"},
	})

	// More than 100 actions: DynamoDB renders the list as Java objects. [moto] responses.py; [api] (1..100 items)
	de := callErr(e, "TransactWriteItems", `{"TransactItems":[`+strings.Join(many, ",")+`]}`)
	if de == nil || de.Name() != "ValidationException" ||
		!strings.HasPrefix(de.Message, "1 validation error detected: Value '[com.amazonaws.dynamodb.v20120810.TransactWriteItem@") ||
		!strings.HasSuffix(de.Message, "]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100") ||
		strings.Count(de.Message, "TransactWriteItem@") != 101 {
		t.Errorf("101 actions: got %v", de)
	}
	runSteps(t, e, []step{{name: "100 actions are fine", op: "TransactWriteItems", body: `{"TransactItems":[` + strings.Join(many[:100], ",") + `]}`, want: `{}`}})

	// The items of one transaction may not exceed 4 MB together. [api] [dynoxide]
	var big []string
	val := strings.Repeat("v", 300*1024)
	for i := range 14 {
		big = append(big, `{"Put":{"TableName":"hash","Item":{"pk":{"S":"big`+itoa(i)+`"},"v":{"S":"`+val+`"}}}}`)
	}
	runSteps(t, e, []step{
		{op: "TransactWriteItems", body: `{"TransactItems":[` + strings.Join(big, ",") + `]}`,
			err: "ValidationException: Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit"},
		{op: "TransactWriteItems", body: `{"TransactItems":[` + strings.Join(big[:13], ",") + `]}`, want: `{}`},
	})
}

// ConsumedCapacity of a transactional write: twice the table's write units,
// index writes as outside a transaction; a ConditionCheck costs 2 WCU per KB
// of the item it read. [guide] [dynoxide] transactional_index_consumed_capacity.rs (A1, A12, F1, K1)
func TestTransactWriteCapacity(t *testing.T) {
	e := itemEngine(t)
	pad := strings.Repeat("x", 3000)
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"f1"},"o":{"S":"`+pad+`"}}}`)
	runSteps(t, e, []step{
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"}}}},{"Delete":{"TableName":"hash","Key":{"pk":{"S":"missing"}}}},
			{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"f1"}},"ConditionExpression":"attribute_exists(pk)"}},
			{"Put":{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"g"}}}}],"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":[{"TableName":"hash","CapacityUnits":10.0,"WriteCapacityUnits":10.0},{"TableName":"range","CapacityUnits":4.0,"WriteCapacityUnits":4.0}]}`},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"range","Item":{"pk":{"S":"b"},"sk":{"N":"1"},"g":{"S":"g"},"lsk":{"S":"l"}}}}],"ReturnConsumedCapacity":"INDEXES"}`,
			want: `{"ConsumedCapacity":[{"TableName":"range","CapacityUnits":5.0,"WriteCapacityUnits":5.0,"Table":{"CapacityUnits":2.0,"WriteCapacityUnits":2.0},` +
				`"LocalSecondaryIndexes":{"lsi":{"CapacityUnits":1.0,"WriteCapacityUnits":1.0}},` +
				`"GlobalSecondaryIndexes":{"gsi":{"CapacityUnits":1.0,"WriteCapacityUnits":1.0},"gsiall":{"CapacityUnits":1.0,"WriteCapacityUnits":1.0}}}]}`},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"c"}}}}],"ReturnConsumedCapacity":"NONE"}`, want: `{}`},
		// ItemCollectionMetrics only for tables with local secondary indexes. [api]
		{op: "TransactWriteItems", body: `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"d"}}}},{"Delete":{"TableName":"range","Key":{"pk":{"S":"b"},"sk":{"N":"1"}}}}],"ReturnItemCollectionMetrics":"SIZE"}`,
			want: `{"ItemCollectionMetrics":{"range":[{"ItemCollectionKey":{"pk":{"S":"b"}},"SizeEstimateRangeGB":[0.0,1.0]}]}}`},
	})
}

// An item another transaction keeps holding (storage.ErrTransactionConflict,
// from the Cassandra backend) is a TransactionConflict cancellation reason
// with DynamoDB's message, in request order with None for the others.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
func TestTransactionConflictReason(t *testing.T) {
	reasons, err := cancellationReasons(&storage.TransactionError{Reasons: []error{nil, storage.ErrTransactionConflict}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reasons) != 2 || reasons[0].Code != "None" || reasons[1].Code != "TransactionConflict" ||
		reasons[1].Message != "Transaction is ongoing for the item" {
		t.Fatalf("reasons = %+v", reasons)
	}
	got := transactionCanceled(reasons).Error()
	if !strings.Contains(got, "[None, TransactionConflict]") {
		t.Fatalf("message = %q", got)
	}
}
