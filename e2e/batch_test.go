package e2e

import (
	"fmt"
	"regexp"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Messages in this file: architect/dynalite test/batchWriteItem.js and
// test/batchGetItem.js (https://github.com/architect/dynalite/tree/main/test),
// and the BatchGetItem API reference for the 100-key limit.

func putReq(it item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func delReq(key item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
}

func TestBatchWriteItem(t *testing.T) {
	_, c := startClient(t)
	a := tableName("batch-a")
	b := tableName("batch-b")
	createHashTable(t, c, a, "S")
	createHashTable(t, c, b, "N")

	// 25 requests over two tables is the most one call may carry:
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
	var ra, rb []types.WriteRequest
	for i := 0; i < 20; i++ {
		ra = append(ra, putReq(item{"pk": avS(fmt.Sprintf("k%02d", i)), "i": avN(fmt.Sprint(i))}))
	}
	for i := 0; i < 5; i++ {
		rb = append(rb, putReq(item{"pk": avN(fmt.Sprint(i))}))
	}
	out, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{a: ra, b: rb}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.UnprocessedItems) != 0 {
		t.Fatalf("UnprocessedItems: %v", out.UnprocessedItems)
	}
	for i := 0; i < 20; i++ {
		wantItem(t, getItem(t, c, a, item{"pk": avS(fmt.Sprintf("k%02d", i))}), item{"pk": avS(fmt.Sprintf("k%02d", i)), "i": avN(fmt.Sprint(i))})
	}
	wantItem(t, getItem(t, c, b, item{"pk": avN("4")}), item{"pk": avN("4")})

	// Puts and deletes mixed.
	_, err = c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		a: {delReq(item{"pk": avS("k00")}), putReq(item{"pk": avS("k01"), "new": avBool(true)}), delReq(item{"pk": avS("absent")})},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if it := getItem(t, c, a, item{"pk": avS("k00")}); it != nil {
		t.Fatalf("deleted item still there: %s", itemText(it))
	}
	wantItem(t, getItem(t, c, a, item{"pk": avS("k01")}), item{"pk": avS("k01"), "new": avBool(true)})

	t.Run("26 requests", func(t *testing.T) {
		var reqs []types.WriteRequest
		for i := 0; i < 26; i++ {
			reqs = append(reqs, putReq(item{"pk": avS(fmt.Sprintf("x%02d", i))}))
		}
		_, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{a: reqs}})
		wantAPIErrorMatch(t, err, "ValidationException", regexp.MustCompile(`^1 validation error detected: Value '\{.+\}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: \[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\]$`))
		if it := getItem(t, c, a, item{"pk": avS("x00")}); it != nil {
			t.Fatal("a refused batch wrote an item")
		}
	})
	t.Run("26 requests over two tables", func(t *testing.T) {
		var r1, r2 []types.WriteRequest
		for i := 0; i < 13; i++ {
			r1 = append(r1, putReq(item{"pk": avS(fmt.Sprintf("y%02d", i))}))
			r2 = append(r2, putReq(item{"pk": avN(fmt.Sprint(100 + i))}))
		}
		_, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{a: r1, b: r2}})
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html:
		// "There are more than 25 requests in the batch" is a ValidationException.
		wantAPIError(t, err, "ValidationException", "")
	})
	t.Run("put and delete of one key", func(t *testing.T) {
		_, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a: {putReq(item{"pk": avS("dup")}), delReq(item{"pk": avS("dup")})},
		}})
		wantAPIError(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	})
	t.Run("two puts of one key", func(t *testing.T) {
		_, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a: {putReq(item{"pk": avS("dup"), "v": avN("1")}), putReq(item{"pk": avS("dup"), "v": avN("2")})},
		}})
		wantAPIError(t, err, "ValidationException", "Provided list of item keys contains duplicates")
		if it := getItem(t, c, a, item{"pk": avS("dup")}); it != nil {
			t.Fatal("a refused batch wrote an item")
		}
	})
	t.Run("empty string set", func(t *testing.T) {
		_, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			a: {putReq(item{"pk": avS("e"), "s": avSS()})},
		}})
		wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: An string set  may not be empty")
	})
	t.Run("missing table", func(t *testing.T) {
		_, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"nosuchtable": {putReq(item{"pk": avS("e")})},
		}})
		wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	})
}

func TestBatchGetItem(t *testing.T) {
	_, c := startClient(t)
	a := tableName("bget-a")
	b := tableName("bget-b")
	createHashTable(t, c, a, "S")
	createHashTable(t, c, b, "S")
	for i := 0; i < 60; i += 20 {
		var reqs []types.WriteRequest
		for j := i; j < i+20; j++ {
			reqs = append(reqs, putReq(item{"pk": avS(fmt.Sprintf("k%03d", j)), "v": avN(fmt.Sprint(j))}))
		}
		if _, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{a: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	putItem(t, c, b, item{"pk": avS("only"), "x": avS("y")})

	// 100 keys is the limit: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
	var keysA []item
	for i := 0; i < 99; i++ { // 60 exist, 39 do not
		keysA = append(keysA, item{"pk": avS(fmt.Sprintf("k%03d", i))})
	}
	out, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		a: {Keys: keysA, ConsistentRead: aws.Bool(true)},
		b: {Keys: []item{{"pk": avS("only")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.UnprocessedKeys) != 0 {
		t.Fatalf("UnprocessedKeys: %v", out.UnprocessedKeys)
	}
	got := out.Responses[a]
	sort.Slice(got, func(i, j int) bool { return itemText(got[i]) < itemText(got[j]) })
	var want []item
	for i := 0; i < 60; i++ {
		want = append(want, item{"pk": avS(fmt.Sprintf("k%03d", i)), "v": avN(fmt.Sprint(i))})
	}
	sort.Slice(want, func(i, j int) bool { return itemText(want[i]) < itemText(want[j]) })
	wantItems(t, got, want)
	wantItems(t, out.Responses[b], []item{{"pk": avS("only"), "x": avS("y")}})

	t.Run("ProjectionExpression", func(t *testing.T) {
		out, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			b: {Keys: []item{{"pk": avS("only")}}, ProjectionExpression: aws.String("x")},
		}})
		if err != nil {
			t.Fatal(err)
		}
		wantItems(t, out.Responses[b], []item{{"x": avS("y")}})
	})
	t.Run("101 keys", func(t *testing.T) {
		var keys []item
		for i := 0; i < 100; i++ {
			keys = append(keys, item{"pk": avS(fmt.Sprintf("k%03d", i))})
		}
		_, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			a: {Keys: keys},
			b: {Keys: []item{{"pk": avS("only")}}},
		}})
		wantAPIError(t, err, "ValidationException", "Too many items requested for the BatchGetItem call")
	})
	t.Run("duplicate keys", func(t *testing.T) {
		_, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			a: {Keys: []item{{"pk": avS("k001")}, {"pk": avS("k002")}, {"pk": avS("k001")}}},
		}})
		wantAPIError(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	})
	t.Run("missing table", func(t *testing.T) {
		_, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"nosuchtable": {Keys: []item{{"pk": avS("k001")}}},
		}})
		wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	})
}
