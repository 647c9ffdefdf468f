package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// lsiTable creates a table keyed by pk (S) and sk (S) with a KEYS_ONLY
// local secondary index lko on (pk, n N) and an INCLUDE one linc on
// (pk, d S) projecting c, and puts {pk:"p", sk:"s<i>", n:i, a:i, b:i} for
// i in 0..5.
func lsiTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	name := tableName("lsi")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "n", "N", "d", "S"),
		KeySchema:            keySchema("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{
			{IndexName: aws.String("lko"), KeySchema: keySchema("pk", "n"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("linc"), KeySchema: keySchema("pk", "d"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"c"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		n := fmt.Sprint(i)
		putItem(t, c, name, item{"pk": avS("p"), "sk": avS("s" + n), "n": avN(n), "a": avN(n), "b": avN(n)})
	}
	return name
}

// A local secondary index read fetches from the table the attributes its
// filter needs that the index does not hold, and still returns only what
// was asked for: the projection, or without one the index's attributes.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.Reading
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Select
func TestReviewLSIFilterFetch(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := lsiTable(t, c)
	vals := map[string]types.AttributeValue{":p": avS("p"), ":b": avN("3")}

	t.Run("projection", func(t *testing.T) {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("lko"),
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("b > :b"), ProjectionExpression: aws.String("n"),
			ExpressionAttributeValues: vals})
		if err != nil {
			t.Fatal(err)
		}
		if out.Count != 2 || out.ScannedCount != 6 {
			t.Fatalf("Count %d ScannedCount %d, want 2 and 6", out.Count, out.ScannedCount)
		}
		wantItems(t, out.Items, []item{{"n": avN("4")}, {"n": avN("5")}})
	})
	t.Run("scan", func(t *testing.T) {
		out, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String("lko"),
			FilterExpression: aws.String("b > :b"), ProjectionExpression: aws.String("n"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":b": avN("3")}})
		if err != nil {
			t.Fatal(err)
		}
		wantItems(t, out.Items, []item{{"n": avN("4")}, {"n": avN("5")}})
	})
	t.Run("index attributes by default", func(t *testing.T) {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("lko"),
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("b > :b"), ExpressionAttributeValues: vals})
		if err != nil {
			t.Fatal(err)
		}
		wantItems(t, out.Items, []item{
			{"pk": avS("p"), "sk": avS("s4"), "n": avN("4")},
			{"pk": avS("p"), "sk": avS("s5"), "n": avN("5")},
		})
	})
	t.Run("ALL_ATTRIBUTES", func(t *testing.T) {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("lko"), Select: types.SelectAllAttributes,
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("b > :b"), ExpressionAttributeValues: vals})
		if err != nil {
			t.Fatal(err)
		}
		wantItems(t, out.Items, []item{
			{"pk": avS("p"), "sk": avS("s4"), "n": avN("4"), "a": avN("4"), "b": avN("4")},
			{"pk": avS("p"), "sk": avS("s5"), "n": avN("5"), "a": avN("5"), "b": avN("5")},
		})
	})
}

// The table items a local secondary index read fetches are charged as one
// sum, rounded up to 4 KB: three items of about 30 bytes, 4.1 KB and 4.1 KB
// cost the table 3 units (5 if each were rounded), the index 1.
// https://github.com/architect/dynalite/blob/main/test/query.js ("should return all attributes when specified for secondary indexes")
func TestReviewLSIFetchCapacity(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := lsiTable(t, c)
	long := strings.Repeat("e", 4061)
	a := avS("2538424394.2398596")
	for _, it := range []item{
		{"pk": a, "sk": avS("b1"), "c": avS("c1"), "d": avS("d1")},
		{"pk": a, "sk": avS("b2")},
		{"pk": a, "sk": avS("b3"), "d": avS("d3"), "e": avM(item{"e3": avS(long)}), "f": avL(avS("f3"), avS("ff3"))},
		{"pk": a, "sk": avS("b4"), "c": avS("c4"), "d": avS("d4"), "e": avM(item{"ee4": avS("e4"), "eee4": avS(long)})},
	} {
		putItem(t, c, name, it)
	}
	out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("linc"), Limit: aws.Int32(3),
		ConsistentRead: aws.Bool(true), Select: types.SelectAllAttributes, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": a}})
	if err != nil {
		t.Fatal(err)
	}
	cc := out.ConsumedCapacity
	if out.Count != 3 || cc == nil || aws.ToFloat64(cc.CapacityUnits) != 4 || cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != 3 ||
		aws.ToFloat64(cc.LocalSecondaryIndexes["linc"].CapacityUnits) != 1 {
		t.Fatalf("Count %d, ConsumedCapacity %+v (table %+v, indexes %+v): want 3 items, 4 units, table 3, linc 1", out.Count, cc, cc.Table, cc.LocalSecondaryIndexes)
	}
}

// ExpressionAttributeNames may not map a placeholder to an empty name.
func TestReviewEmptyExpressionAttributeName(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := tableName("ean")
	createHashTable(t, c, name, "S")
	const msg = "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"
	_, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("k")},
		ProjectionExpression: aws.String("#a"), ExpressionAttributeNames: map[string]string{"#a": ""}})
	wantAPIError(t, err, "ValidationException", msg)
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		ConditionCheck: &types.ConditionCheck{TableName: aws.String(name), Key: item{"pk": avS("k")},
			ConditionExpression: aws.String("attribute_exists(#a)"), ExpressionAttributeNames: map[string]string{"#a": ""}}}}})
	wantAPIError(t, err, "ValidationException", msg)
}

// Query's ExclusiveStartKey must hold exactly the table's and the index's
// key attributes.
// https://github.com/architect/dynalite/blob/main/test/query.js ("ExclusiveStartKey missing range key", "ExclusiveStartKey is invalid for local index")
// https://github.com/architect/dynalite/blob/main/test/scan.js ("ExclusiveStartKey for range table is invalid")
func TestReviewExclusiveStartKey(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := lsiTable(t, c)
	q := func(index string, esk item) error {
		in := &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": avS("p")}, ExclusiveStartKey: esk}
		if index != "" {
			in.IndexName = aws.String(index)
		}
		_, err := c.Query(ctxT(t), in)
		return err
	}
	wantAPIError(t, q("", item{"pk": avS("p")}), "ValidationException", "The provided starting key is invalid")
	wantAPIError(t, q("", item{"pk": avS("p"), "sk": avS("s1"), "x": avS("x")}), "ValidationException", "The provided starting key is invalid")
	wantAPIError(t, q("lko", item{"pk": avS("p"), "sk": avS("s1")}), "ValidationException", "The provided starting key is invalid")
	wantAPIError(t, q("", item{"pk": avS("p"), "sk": avN("1")}), "ValidationException", "The provided key element does not match the schema")
	_, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), ExclusiveStartKey: item{"pk": avS("p")}})
	wantAPIError(t, err, "ValidationException", "The provided starting key is invalid: The provided key element does not match the schema")
	if err := q("lko", item{"pk": avS("p"), "sk": avS("s1"), "n": avN("1")}); err != nil {
		t.Fatal(err)
	}
}

// Tag keys beginning with aws: are reserved for AWS.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TaggingRestrictions.html
func TestReviewReservedTagKeys(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := tableName("tags")
	createHashTable(t, c, name, "S")
	arn := aws.ToString(describe(t, c, name).TableArn)
	_, err := c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: []types.Tag{{Key: aws.String("aws:cost"), Value: aws.String("1")}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Tag keys starting with aws: are reserved for AWS use. Tag key: aws:cost")
	if _, err := c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("1")}}}); err != nil {
		t.Fatal(err)
	}
}

// Leaving PAY_PER_REQUEST with global secondary indexes takes throughput
// for each index in the same request; the switch keeps
// LastUpdateToPayPerRequestDateTime and records no throughput increase.
// https://github.com/crossplane-contrib/provider-upjet-aws/issues/1041
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BillingModeSummary.html
func TestReviewSwitchToProvisioned(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := tableName("switch")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "a", "S", "b", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("index-A"), KeySchema: keySchema("a"), Projection: projAll()},
			{IndexName: aws.String("index-B"), KeySchema: keySchema("b"), Projection: projAll()},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	created := describe(t, c, name).BillingModeSummary.LastUpdateToPayPerRequestDateTime
	tp := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	update := func(index string, r, w int64) types.GlobalSecondaryIndexUpdate {
		return types.GlobalSecondaryIndexUpdate{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(index), ProvisionedThroughput: tp(r, w)}}
	}
	_, err = c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: tp(5, 5)})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProvisionedThroughput must be specified for index: index-A,index-B")
	_, err = c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: tp(5, 5),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{update("index-B", 2, 2)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProvisionedThroughput must be specified for index: index-A")
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: tp(5, 5),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{update("index-A", 3, 1), update("index-B", 2, 2)}}); err != nil {
		t.Fatal(err)
	}
	d := describe(t, c, name)
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModeProvisioned ||
		!aws.ToTime(d.BillingModeSummary.LastUpdateToPayPerRequestDateTime).Equal(aws.ToTime(created)) {
		t.Fatalf("BillingModeSummary %+v: want PROVISIONED, LastUpdateToPayPerRequestDateTime %v", d.BillingModeSummary, aws.ToTime(created))
	}
	if p := d.ProvisionedThroughput; aws.ToInt64(p.ReadCapacityUnits) != 5 || p.LastIncreaseDateTime != nil {
		t.Fatalf("table throughput %+v: want 5/5 without LastIncreaseDateTime", p)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		want := map[string]int64{"index-A": 3, "index-B": 2}[aws.ToString(g.IndexName)]
		if p := g.ProvisionedThroughput; p == nil || aws.ToInt64(p.ReadCapacityUnits) != want || p.LastIncreaseDateTime != nil {
			t.Fatalf("%s throughput %+v: want %d read units without LastIncreaseDateTime", aws.ToString(g.IndexName), p, want)
		}
	}
}
