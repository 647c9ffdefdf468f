package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdateRemoveOnlyOnMissingItem: an UpdateItem whose actions only take
// something away (REMOVE, DELETE from a set, AttributeUpdates DELETE) on an
// item that does not exist creates nothing, returns no Attributes for
// ALL_NEW and writes no stream record; an UpdateItem with no actions still
// creates the key-only item. DynamoDB's behaviour as tested against the
// service in https://github.com/scylladb/scylladb/issues/5862.
func TestUpdateRemoveOnlyOnMissingItem(t *testing.T) {
	s, c := startClient(t)
	sc := newStreamsClient(t, s.Endpoint)
	ctx := ctxT(t)
	name := tableName("rmonly")
	arn := createStreamTable(t, c, name, types.StreamViewTypeNewAndOldImages)

	cases := []struct {
		pk string
		in dynamodb.UpdateItemInput
	}{
		{"remove", dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE a, b.c")}},
		{"delete", dynamodb.UpdateItemInput{UpdateExpression: aws.String("DELETE s :v"),
			ExpressionAttributeValues: item{":v": avSS("x")}}},
		{"both", dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE a DELETE s :v"),
			ExpressionAttributeValues: item{":v": avNS("1")}}},
		{"legacy", dynamodb.UpdateItemInput{AttributeUpdates: map[string]types.AttributeValueUpdate{
			"a": {Action: types.AttributeActionDelete},
			"s": {Action: types.AttributeActionDelete, Value: avSS("x")}}}},
	}
	for _, tc := range cases {
		in := tc.in
		in.TableName = aws.String(name)
		in.Key = item{"pk": avS(tc.pk)}
		in.ReturnValues = types.ReturnValueAllNew
		out, err := c.UpdateItem(ctx, &in)
		if err != nil {
			t.Fatalf("%s: UpdateItem: %v", tc.pk, err)
		}
		if out.Attributes != nil {
			t.Errorf("%s: Attributes = %s, want none", tc.pk, itemText(out.Attributes))
		}
		if got := getItem(t, c, name, item{"pk": avS(tc.pk)}); got != nil {
			t.Errorf("%s: item created: %s", tc.pk, itemText(got))
		}
	}
	if recs := readStream(t, sc, arn); len(recs) != 0 {
		t.Fatalf("stream has %d records after remove-only updates, want 0", len(recs))
	}

	// An update with no actions creates the item from its key.
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
		Key: item{"pk": avS("empty")}, ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatalf("UpdateItem without actions: %v", err)
	}
	wantItem(t, out.Attributes, item{"pk": avS("empty")})
	wantItem(t, getItem(t, c, name, item{"pk": avS("empty")}), item{"pk": avS("empty")})

	// On an existing item REMOVE still writes.
	putItem(t, c, name, item{"pk": avS("remove"), "a": avN("1")})
	out, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
		Key: item{"pk": avS("remove")}, UpdateExpression: aws.String("REMOVE a"), ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatalf("UpdateItem REMOVE on existing item: %v", err)
	}
	wantItem(t, out.Attributes, item{"pk": avS("remove")})
}

// TestTransactUpdateRemoveOnlyOnMissingItem: the same rule holds for an
// Update action of TransactWriteItems.
func TestTransactUpdateRemoveOnlyOnMissingItem(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("txrmonly")
	createHashTable(t, c, name, "S")
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String(name), Key: item{"pk": avS("r")}, UpdateExpression: aws.String("REMOVE a")}},
		{Update: &types.Update{TableName: aws.String(name), Key: item{"pk": avS("s")}, UpdateExpression: aws.String("SET a = :v"),
			ExpressionAttributeValues: item{":v": avN("1")}}},
	}})
	if err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	if got := getItem(t, c, name, item{"pk": avS("r")}); got != nil {
		t.Errorf("REMOVE created %s", itemText(got))
	}
	wantItem(t, getItem(t, c, name, item{"pk": avS("s")}), item{"pk": avS("s"), "a": avN("1")})
}
