package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Member constraints, their order and aggregation, and the batch operations'
// own words, through raw HTTP so that requests the SDK would refuse reach
// the server.
func TestValidationMembers(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s.Endpoint)
	hash := tableName("val")
	createHashTable(t, c, hash, "S")
	rng := tableName("valr")
	createRangeTable(t, c, rng, "S")

	updates := make([]string, 12)
	for i := range updates {
		updates[i] = fmt.Sprintf(`"a%02d":{"Action":"bad"}`, i)
	}
	var tenActions []string
	for i := range 10 {
		tenActions = append(tenActions, fmt.Sprintf("Value 'bad' at 'attributeUpdates.a%02d.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]", i))
	}
	keys := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"pk":{"S":"k%d"}}`, i)
		}
		return strings.Join(parts, ",")
	}
	for _, tc := range []struct {
		name, op, body, errType, message string
	}{
		// A top-level member of the wrong JSON type: DynamoDB's deserializer
		// says "cannot", as for AttributeValue members. Query's Limit sent
		// as a string, quoted from DynamoDB in
		// https://github.com/dynamodb-toolbox/dynamodb-toolbox/issues/502
		{"Query Limit as a string", "Query", `{"TableName":"` + hash + `","Limit":"5"}`, "SerializationException",
			"STRING_VALUE cannot be converted to Integer"},
		// The same wording for the other JSON tokens; true and false are
		// named apart (TRUE_VALUE, FALSE_VALUE), as internal/item does for
		// AttributeValue members.
		{"TableName as a number", "GetItem", `{"TableName":12,"Key":{"pk":{"S":"a"}}}`, "SerializationException",
			"NUMBER_VALUE cannot be converted to String"},
		{"TableName as true", "GetItem", `{"TableName":true,"Key":{"pk":{"S":"a"}}}`, "SerializationException",
			"TRUE_VALUE cannot be converted to String"},
		{"ConsistentRead as a string", "GetItem", `{"TableName":"` + hash + `","ConsistentRead":"yes","Key":{"pk":{"S":"a"}}}`, "SerializationException",
			"STRING_VALUE cannot be converted to Boolean"},
		{"Limit as false", "Scan", `{"TableName":"` + hash + `","Limit":false}`, "SerializationException",
			"FALSE_VALUE cannot be converted to Integer"},
		// TableName is 1 to 1,024 characters since table ARNs are accepted
		// in its place; "" violates the minimum only.
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-TableName
		{"PutItem empty TableName", "PutItem", `{"TableName":"","Item":{"pk":{"S":"a"}}}`, "ValidationException",
			"1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		// DynamoDB's order for several invalid members of UpdateItem.
		// https://github.com/mhart/dynalite/blob/master/test/updateItem.js ("incorrect attributes")
		{"UpdateItem member order", "UpdateItem", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi","ReturnValues":"hi"}`, "ValidationException",
			"5 validation errors detected: " +
				"Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]; " +
				"Value 'hi' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; " +
				"Value null at 'key' failed to satisfy constraint: Member must not be null"},
		// At most ten violations are reported.
		// https://github.com/mhart/dynalite/blob/master/test/createTable.js ("10 validation errors detected")
		{"UpdateItem at most ten errors", "UpdateItem", `{"TableName":"` + hash + `","Key":{"pk":{"S":"a"}},"AttributeUpdates":{` + strings.Join(updates, ",") + `}}`, "ValidationException",
			"10 validation errors detected: " + strings.Join(tenActions, "; ")},
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
		{"DeleteItem member order", "DeleteItem", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi","ReturnValues":"hi"}`, "ValidationException",
			"5 validation errors detected: " +
				"Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
				"Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value 'hi' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; " +
				"Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]; " +
				"Value null at 'key' failed to satisfy constraint: Member must not be null"},
		// https://github.com/mhart/dynalite/blob/master/test/listTables.js ("in order")
		{"ListTables member order", "ListTables", `{"ExclusiveStartTableName":"a;","Limit":500}`, "ValidationException",
			"3 validation errors detected: Value '500' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100; " +
				"Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
				"Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		// https://github.com/nubo-db/dynoxide/pull/198 (captured in 32 of 33 regions)
		{"BatchGetItem empty RequestItems", "BatchGetItem", `{"RequestItems":{}}`, "ValidationException",
			"1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		// https://github.com/getmoto/moto/issues/3046 (one table over 100 keys
		// is a constraint of its Keys; over 100 across tables is not)
		{"BatchGetItem over 100 keys for a table", "BatchGetItem", `{"RequestItems":{"` + hash + `":{"Keys":[` + keys(101) + `]}}}`, "ValidationException",
			"1 validation error detected: Value at 'RequestItems." + hash + ".member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"},
		{"BatchGetItem empty Keys", "BatchGetItem", `{"RequestItems":{"` + hash + `":{"Keys":[]}}}`, "ValidationException",
			"1 validation error detected: Value at 'RequestItems." + hash + ".member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"BatchGetItem over 100 keys in all", "BatchGetItem", `{"RequestItems":{"` + hash + `":{"Keys":[` + keys(60) + `]},"` + rng + `":{"Keys":[` + keys(41) + `]}}}`, "ValidationException",
			"Too many items requested for the BatchGetItem call"},
		// A ProjectionExpression on one table and AttributesToGet on another
		// mix the two families in one request.
		// https://github.com/ExtendDB/extenddb/pull/178 (captured from DynamoDB)
		{"BatchGetItem mixed projections", "BatchGetItem", `{"RequestItems":{"` + hash + `":{"Keys":[{"pk":{"S":"a"}}],"ProjectionExpression":"pk"},"` + rng + `":{"Keys":[{"pk":{"S":"a"},"sk":{"S":"b"}}],"AttributesToGet":["pk"]}}}`, "ValidationException",
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		// https://github.com/paritysuite/dynamodb-conformance/blob/main/tests/tier3/error-messages/batchGetItem.test.ts
		{"BatchGetItem malformed table name", "BatchGetItem", `{"RequestItems":{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}}`, "ValidationException",
			`1 validation error detected: Value '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]`},
		// https://github.com/nubo-db/dynoxide/issues/17
		{"BatchWriteItem empty RequestItems", "BatchWriteItem", `{"RequestItems":{}}`, "ValidationException",
			"The requestItems parameter is required for BatchWriteItem"},
		// https://github.com/nubo-db/dynoxide/pull/101 (captured in eu-west-2)
		{"BatchWriteItem wrong-typed key", "BatchWriteItem", `{"RequestItems":{"` + hash + `":[{"PutRequest":{"Item":{"pk":{"N":"1"}}}}]}}`, "ValidationException",
			"The provided key element does not match the schema"},
		{"BatchWriteItem non-scalar key", "BatchWriteItem", `{"RequestItems":{"` + hash + `":[{"PutRequest":{"Item":{"pk":{"SS":["a"]}}}}]}}`, "ValidationException",
			"The provided key element does not match the schema"},
		// https://github.com/floci-io/floci/pull/3227
		{"BatchWriteItem missing key", "BatchWriteItem", `{"RequestItems":{"` + hash + `":[{"PutRequest":{"Item":{"x":{"S":"1"}}}}]}}`, "ValidationException",
			"The provided key element does not match the schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRawError(t, callRaw(t, s.Endpoint, tc.op, tc.body), tc.errType, tc.message)
		})
	}
	// None of the refused writes wrote anything.
	out, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(hash)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 0 {
		t.Fatalf("refused requests wrote %d items", out.Count)
	}
}

// A table ARN is accepted wherever a TableName is.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html#DDB-GetItem-request-TableName
// https://github.com/getmoto/moto/pull/7948
func TestTableArnAsTableName(t *testing.T) {
	_, c := startClient(t)
	name := tableName("arn")
	createHashTable(t, c, name, "S")
	d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(d.Table.TableArn)
	if _, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(arn), Item: item{"pk": avS("a"), "v": avN("1")}}); err != nil {
		t.Fatalf("PutItem by ARN: %v", err)
	}
	got, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(arn), Key: item{"pk": avS("a")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem by ARN: %v", err)
	}
	wantItem(t, got.Item, item{"pk": avS("a"), "v": avN("1")})
	if _, err := c.UpdateItem(ctxT(t), &dynamodb.UpdateItemInput{TableName: aws.String(arn), Key: item{"pk": avS("a")},
		UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: item{":v": avN("2")}}); err != nil {
		t.Fatalf("UpdateItem by ARN: %v", err)
	}
	q, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(arn), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": avS("a")}})
	if err != nil || q.Count != 1 {
		t.Fatalf("Query by ARN: %v, %+v", err, q)
	}
	bg, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{arn: {Keys: []map[string]types.AttributeValue{{"pk": avS("a")}}}}})
	if err != nil || len(bg.Responses[arn]) != 1 {
		t.Fatalf("BatchGetItem by ARN: %v, %+v", err, bg)
	}
	if _, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{arn: {{PutRequest: &types.PutRequest{Item: item{"pk": avS("b")}}}}}}); err != nil {
		t.Fatalf("BatchWriteItem by ARN: %v", err)
	}
	if _, err := c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(arn), Item: item{"pk": avS("c")}}}}}); err != nil {
		t.Fatalf("TransactWriteItems by ARN: %v", err)
	}
	tg, err := c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(arn), Key: item{"pk": avS("b")}}}, {Get: &types.Get{TableName: aws.String(name), Key: item{"pk": avS("c")}}}}})
	if err != nil || len(tg.Responses) != 2 || tg.Responses[0].Item == nil || tg.Responses[1].Item == nil {
		t.Fatalf("TransactGetItems by ARN: %v, %+v", err, tg)
	}
	if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(arn), Key: item{"pk": avS("a")}}); err != nil {
		t.Fatalf("DeleteItem by ARN: %v", err)
	}
	if got := getItem(t, c, name, item{"pk": avS("a")}); got != nil {
		t.Fatalf("the item survived DeleteItem by ARN: %v", got)
	}
	if d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(arn)}); err != nil || aws.ToString(d.Table.TableName) != name {
		t.Fatalf("DescribeTable by ARN: %v", err)
	}
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(arn), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatalf("UpdateTable by ARN: %v", err)
	}
	if _, err := c.UpdateTimeToLive(ctxT(t), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(arn),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatalf("UpdateTimeToLive by ARN: %v", err)
	}
	if ttl, err := c.DescribeTimeToLive(ctxT(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(arn)}); err != nil ||
		aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "exp" {
		t.Fatalf("DescribeTimeToLive by ARN: %v, %+v", err, ttl)
	}
	// An index ARN is not a table ARN.
	_, err = c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(arn + "/index/byV"), Key: item{"pk": avS("a")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '"+arn+"/index/byV' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	if _, err := c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(arn)}); err != nil {
		t.Fatalf("DeleteTable by ARN: %v", err)
	}
	_, err = c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
}
