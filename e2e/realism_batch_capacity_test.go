package e2e

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestRealismBatchCapacity: with capacity enforced, BatchWriteItem and
// BatchGetItem process the members their table's capacity admits and
// return the others in UnprocessedItems and UnprocessedKeys, and throw
// ProvisionedThroughputExceededException only when none could be
// processed. The manual clock keeps the buckets from refilling between
// members, so the counts are exact: 1 WCU with 1 s of burst admits one
// write; 1 RCU admits two eventually consistent reads of 0.5 units.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func TestRealismBatchCapacity(t *testing.T) {
	s, c := startClient(t, "--admin-api", "--clock", "manual", "--realism", "capacity=on,burst=1s")
	a := adminAPI(s, testAccessKey, testSecretKey)
	name := tableName("batchcap")
	if _, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	}); err != nil {
		t.Fatal(err)
	}
	puts := func(keys ...string) map[string][]types.WriteRequest {
		var reqs []types.WriteRequest
		for _, k := range keys {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item{"pk": avS(k)}}})
		}
		return map[string][]types.WriteRequest{name: reqs}
	}
	out, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: puts("a", "b", "c")})
	if err != nil {
		t.Fatal(err)
	}
	left := out.UnprocessedItems[name]
	if len(left) != 2 || left[0].PutRequest.Item["pk"].(*types.AttributeValueMemberS).Value != "b" {
		t.Fatalf("UnprocessedItems: %+v", out.UnprocessedItems)
	}
	_, err = c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: puts("b", "c")})
	wantAPIError(t, err, "ProvisionedThroughputExceededException",
		"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
	if _, err := a.AdvanceClock(ctxT(t), "10s"); err != nil {
		t.Fatal(err)
	}
	if out, err = c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: left[:1]}}); err != nil || len(out.UnprocessedItems) != 0 {
		t.Fatalf("the unprocessed item once the bucket refilled: %+v %v", out, err)
	}
	if _, err := a.AdvanceClock(ctxT(t), "10s"); err != nil {
		t.Fatal(err)
	}
	gets := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{name: {
		Keys: []map[string]types.AttributeValue{{"pk": avS("a")}, {"pk": avS("b")}, {"pk": avS("c")}}}}}
	got, err := c.BatchGetItem(ctxT(t), gets)
	if err != nil {
		t.Fatal(err)
	}
	if n, u := len(got.Responses[name]), len(got.UnprocessedKeys[name].Keys); n != 2 || u != 1 {
		t.Fatalf("BatchGetItem: %d items and %d unprocessed keys, want 2 and 1", n, u)
	}
	_, err = c.BatchGetItem(ctxT(t), gets)
	wantAPIError(t, err, "ProvisionedThroughputExceededException",
		"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
}

// TestRealismTransactionCapacity: a transaction is throttled as a whole:
// when an action's table has no capacity left, TransactWriteItems and
// TransactGetItems fail with TransactionCanceledException whose reason for
// that action is ProvisionedThroughputExceeded (None for the others), and
// nothing is written. A transactional write costs 2 WCU per KB and a
// transactional read 2 RCU per 4 KB, so one of each drains a bucket of 1
// unit.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
func TestRealismTransactionCapacity(t *testing.T) {
	_, c := startClient(t, "--admin-api", "--clock", "manual", "--realism", "capacity=on,burst=1s")
	tight, free := tableName("txcap"), tableName("txfree")
	if _, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(tight), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	}); err != nil {
		t.Fatal(err)
	}
	createHashTable(t, c, free, "S")
	put := func(table, pk string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: item{"pk": avS(pk)}}}
	}
	if _, err := c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put(tight, "a")}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put(free, "x"), put(tight, "b")}})
	wantAPIError(t, err, "TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons [None, ProvisionedThroughputExceeded]")
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) || len(tc.CancellationReasons) != 2 ||
		aws.ToString(tc.CancellationReasons[1].Message) != "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API." {
		t.Fatalf("CancellationReasons: %+v", tc)
	}
	got, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(free), Key: item{"pk": avS("x")}, ConsistentRead: aws.Bool(true)})
	if err != nil || got.Item != nil {
		t.Fatalf("the canceled transaction wrote to %s: %v %v", free, got.Item, err)
	}
	get := &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(tight), Key: item{"pk": avS("a")}}}}}
	if _, err := c.TransactGetItems(ctxT(t), get); err != nil {
		t.Fatal(err)
	}
	_, err = c.TransactGetItems(ctxT(t), get)
	wantAPIError(t, err, "TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons [ProvisionedThroughputExceeded]")
}
