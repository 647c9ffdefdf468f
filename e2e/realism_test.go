package e2e

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// retryingClient is an SDK client with the standard retryer as an
// application would have it (retrying throttling and 5xx errors), with
// more attempts and shorter backoffs than the defaults so that a test
// finishes quickly.
func retryingClient(t testing.TB, endpoint string) *dynamodb.Client {
	t.Helper()
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 20
			o.MaxBackoff = time.Second
			o.RateLimiter = ratelimit.None
		}),
		HTTPClient: &http.Client{Timeout: 60 * time.Second},
	})
}

// TestRealismInternalErrors: with internal-error-rate=1 every item request
// fails with InternalServerError (HTTP 500), which the SDKs retry; the
// control plane is left alone.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html#Programming.Errors.MessagesAndCodes
func TestRealismInternalErrors(t *testing.T) {
	s, c := startClient(t, "--realism", "internal-error-rate=1")
	name := tableName("faults")
	createHashTable(t, c, name, "S")
	_, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")}})
	wantAPIError(t, err, "InternalServerError", "Internal server error")
	r := callRaw(t, s.Endpoint, "PutItem", `{"TableName":"`+name+`","Item":{"pk":{"S":"a"}}}`)
	if r.Status != http.StatusInternalServerError || !strings.Contains(string(r.Body), `"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"`) {
		t.Fatalf("PutItem: HTTP %d %s", r.Status, r.Body)
	}
}

// TestRealismRetryerRecovers: at an error rate of one half (seeded, so the
// run is the same every time) a client without retries sees
// InternalServerError, and the SDK's standard retryer gets every request
// through.
func TestRealismRetryerRecovers(t *testing.T) {
	s, c := startClient(t, "--realism", "internal-error-rate=0.5,seed=11")
	name := tableName("retry")
	createHashTable(t, c, name, "S")
	failed := 0
	for i := range 20 {
		_, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("bare"), "n": avN(strconv.Itoa(i))}})
		if err != nil {
			wantAPIError(t, err, "InternalServerError", "Internal server error")
			failed++
		}
	}
	if failed == 0 || failed == 20 {
		t.Fatalf("%d of 20 requests failed at a rate of 0.5", failed)
	}
	rc := retryingClient(t, s.Endpoint)
	for i := range 20 {
		if _, err := rc.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS(strconv.Itoa(i))}}); err != nil {
			t.Fatalf("PutItem %d with retries: %v", i, err)
		}
	}
}

// TestRealismTransactionConflict: an injected conflict fails a single-item
// write with TransactionConflictException and cancels a transaction with
// TransactionCanceledException whose reason is TransactionConflict, in
// DynamoDB's words.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#API_PutItem_Errors
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
func TestRealismTransactionConflict(t *testing.T) {
	_, c := startClient(t, "--realism", "transaction-conflict-rate=1")
	name := tableName("conflict")
	createHashTable(t, c, name, "S")
	_, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("a")}})
	wantAPIError(t, err, "TransactionConflictException", "Transaction is ongoing for the item")
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(name), Item: item{"pk": avS("a")}}},
		{Put: &types.Put{TableName: aws.String(name), Item: item{"pk": avS("b")}}},
	}})
	wantAPIError(t, err, "TransactionCanceledException",
		"Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]")
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 || aws.ToString(tce.CancellationReasons[0].Code) != "TransactionConflict" ||
		aws.ToString(tce.CancellationReasons[0].Message) != "Transaction is ongoing for the item" || aws.ToString(tce.CancellationReasons[1].Code) != "None" {
		t.Fatalf("CancellationReasons: %+v", tce)
	}
	// Reads are not conflicted; nothing was written.
	if it := getItem(t, c, name, item{"pk": avS("a")}); it != nil {
		t.Fatalf("item written despite the conflict: %s", itemText(it))
	}
}

// TestRealismProvisionedThrottling: a PROVISIONED table of 1 WCU with one
// second of burst capacity admits a 3 KB write (3 WCU, leaving it in debt),
// then refuses the next with ProvisionedThroughputExceededException and its
// ThrottlingReasons until the debt is paid; the SDK's retryer waits it out.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html
// Message: https://github.com/quintilesims/layer0/issues/229 (DynamoDB's text).
func TestRealismProvisionedThrottling(t *testing.T) {
	s, c := startClient(t, "--realism", "capacity=on,burst=1s")
	name := tableName("throttle")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	big := avS(strings.Repeat("x", 3000))
	putItem(t, c, name, item{"pk": avS("a"), "v": big})
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b"), "v": big}})
	wantAPIError(t, err, "ProvisionedThroughputExceededException",
		"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
	var pe *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pe) || len(pe.ThrottlingReasons) != 1 ||
		aws.ToString(pe.ThrottlingReasons[0].Reason) != "TableWriteProvisionedThroughputExceeded" ||
		aws.ToString(pe.ThrottlingReasons[0].Resource) != aws.ToString(d.Table.TableArn) {
		t.Fatalf("ThrottlingReasons: %+v", pe)
	}
	// The item was not written; the retryer gets it through once the
	// bucket refills (about 3 s at 1 WCU).
	rc := retryingClient(t, s.Endpoint)
	if _, err := rc.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b"), "v": big}}); err != nil {
		t.Fatalf("PutItem with retries: %v", err)
	}
	// Reads have their own bucket: a small read passes.
	if _, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")}}); err != nil {
		t.Fatalf("GetItem: %v", err)
	}
}

// TestRealismOnDemandMaximum: an on-demand table with a maximum write
// throughput of 1 unit per second throttles past it with
// ThrottlingException and the reason TableWriteMaxOnDemandThroughputExceeded.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/throttling-ondemand-capacity-exceeded-mitigation.html
func TestRealismOnDemandMaximum(t *testing.T) {
	_, c := startClient(t, "--realism", "capacity=on")
	name := tableName("ondemand")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		BillingMode:        types.BillingModePayPerRequest,
		OnDemandThroughput: &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	big := avS(strings.Repeat("x", 3000))
	putItem(t, c, name, item{"pk": avS("a"), "v": big})
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b")}})
	wantAPIError(t, err, "ThrottlingException", "Throughput exceeds the maximum OnDemandThroughput configured on table or index")
}

// TestRealismStaleRead: within the stale read window an eventually
// consistent GetItem, BatchGetItem or Scan returns the image before the write (none for
// an item created within it), a strongly consistent one the new image;
// after the window both are fresh.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html
func TestRealismStaleRead(t *testing.T) {
	_, c := startClient(t, "--realism", "stale-read-window=1500ms,stale-read-rate=1")
	name := tableName("stale")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("a"), "v": avN("1")})
	time.Sleep(1600 * time.Millisecond)
	putItem(t, c, name, item{"pk": avS("a"), "v": avN("2")})
	eventual := func() item {
		out, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	putItem(t, c, name, item{"pk": avS("b"), "v": avN("1")})
	scan := func(consistent bool) []item {
		out, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(consistent)})
		if err != nil {
			t.Fatal(err)
		}
		if int(out.Count) != len(out.Items) {
			t.Fatalf("Scan: Count %d with %d items", out.Count, len(out.Items))
		}
		slices.SortFunc(out.Items, func(x, y item) int { return strings.Compare(avText(x["pk"]), avText(y["pk"])) })
		return out.Items
	}
	wantItem(t, eventual(), item{"pk": avS("a"), "v": avN("1")})
	wantItem(t, getItem(t, c, name, item{"pk": avS("a")}), item{"pk": avS("a"), "v": avN("2")})
	// An eventually consistent Scan sees a's previous image and not b,
	// created within the window; a strongly consistent one sees both now.
	wantItems(t, scan(false), []item{{"pk": avS("a"), "v": avN("1")}})
	bg, err := c.BatchGetItem(ctxT(t), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		name: {Keys: []item{{"pk": avS("a")}, {"pk": avS("b")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantItems(t, bg.Responses[name], []item{{"pk": avS("a"), "v": avN("1")}})
	wantItems(t, scan(true), []item{{"pk": avS("a"), "v": avN("2")}, {"pk": avS("b"), "v": avN("1")}})
	time.Sleep(1600 * time.Millisecond)
	wantItem(t, eventual(), item{"pk": avS("a"), "v": avN("2")})
	wantItems(t, scan(false), []item{{"pk": avS("a"), "v": avN("2")}, {"pk": avS("b"), "v": avN("1")}})
}

// TestRealismIndexLagByTag: with realism on and a table's tag
// extenddb:realism:gsi-lag, a Query of its global secondary index does not
// see an item written within the lag, then does; a table without the tag
// is not affected.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Writes
func TestRealismIndexLagByTag(t *testing.T) {
	_, c := startClient(t, "--realism", "on")
	lagged, plain := tableName("lag"), tableName("nolag")
	for _, name := range []string{lagged, plain} {
		in := &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: keySchema("g"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		}
		if name == lagged {
			in.Tags = []types.Tag{{Key: aws.String("extenddb:realism:gsi-lag"), Value: aws.String("1500ms")}}
		}
		if _, err := c.CreateTable(ctxT(t), in); err != nil {
			t.Fatal(err)
		}
		putItem(t, c, name, item{"pk": avS("a"), "g": avS("x")})
	}
	query := func(name string) int32 {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("x")}})
		if err != nil {
			t.Fatal(err)
		}
		if int(out.Count) != len(out.Items) {
			t.Fatalf("Count %d with %d items", out.Count, len(out.Items))
		}
		return out.Count
	}
	if n := query(lagged); n != 0 {
		t.Fatalf("index of %s shows %d items within the lag", lagged, n)
	}
	if n := query(plain); n != 1 {
		t.Fatalf("index of %s shows %d items, want 1", plain, n)
	}
	time.Sleep(1600 * time.Millisecond)
	if n := query(lagged); n != 1 {
		t.Fatalf("index of %s shows %d items after the lag, want 1", lagged, n)
	}
}

// TestRealismBadSetting: a bad --realism list stops the server at start.
func TestRealismBadSetting(t *testing.T) {
	sqliteOnly(t, "command-line only")
	out, err := runBinary(t, nil, "serve", "--in-memory", "--listen", "127.0.0.1:0", "--realism", "gsi-lag=soon")
	if err == nil || !strings.Contains(out, `realism: realism setting gsi-lag: "soon" is not a duration`) {
		t.Fatalf("serve --realism gsi-lag=soon: %v\n%s", err, out)
	}
}

// TestRealismStatusDelayByTag: a table tagged extenddb:realism:status-delay
// stays CREATING, then DELETING, for that long, as DynamoDB's tables do
// for a while; an untagged table is ACTIVE at once.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html (TableStatus)
func TestRealismStatusDelayByTag(t *testing.T) {
	_, c := startClient(t, "--realism", "on")
	slow, fast := tableName("slow"), tableName("fast")
	status := func(name string) types.TableStatus {
		d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			var nf *types.ResourceNotFoundException
			if errors.As(err, &nf) {
				return "GONE"
			}
			t.Fatal(err)
		}
		return d.Table.TableStatus
	}
	for _, name := range []string{slow, fast} {
		in := &dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest}
		if name == slow {
			in.Tags = []types.Tag{{Key: aws.String("extenddb:realism:status-delay"), Value: aws.String("1s")}}
		}
		out, err := c.CreateTable(ctxT(t), in)
		if err != nil {
			t.Fatal(err)
		}
		want := types.TableStatusActive
		if name == slow {
			want = types.TableStatusCreating
		}
		if out.TableDescription.TableStatus != want || status(name) != want {
			t.Fatalf("%s: CreateTable says %s, DescribeTable %s; want %s", name, out.TableDescription.TableStatus, status(name), want)
		}
	}
	time.Sleep(1100 * time.Millisecond)
	if s := status(slow); s != types.TableStatusActive {
		t.Fatalf("%s after its delay: %s", slow, s)
	}
	if _, err := c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(slow)}); err != nil {
		t.Fatal(err)
	}
	if s := status(slow); s != types.TableStatusDeleting {
		t.Fatalf("%s after DeleteTable: %s, want DELETING", slow, s)
	}
	time.Sleep(1100 * time.Millisecond)
	if s := status(slow); s != "GONE" {
		t.Fatalf("%s after its delay: %s, want it gone", slow, s)
	}
}

// TestRealismIndexThrottling: a provisioned global secondary index has
// buckets of its own: a write whose index entries use up the index's
// write capacity throttles the next write to the table with the reason
// IndexWriteProvisionedThroughputExceeded and the index's ARN, and a
// Query of the index draws on the index's read capacity, not the table's.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html
// Message: https://github.com/grailbio/reflow/issues/101 (DynamoDB's text).
func TestRealismIndexThrottling(t *testing.T) {
	_, c := startClient(t, "--realism", "capacity=on,burst=1s")
	name := tableName("gsithrottle")
	one := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000), WriteCapacityUnits: aws.Int64(1000)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: keySchema("g"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}, ProvisionedThroughput: one}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	big := avS(strings.Repeat("x", 30000)) // 30 KB: 30 units of the index's reads when queried
	putItem(t, c, name, item{"pk": avS("a"), "g": avS("x"), "v": big})
	// The table has capacity to spare; the index does not.
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b"), "g": avS("x")}})
	wantAPIError(t, err, "ProvisionedThroughputExceededException",
		"The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. "+
			"Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API")
	var pe *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pe) || len(pe.ThrottlingReasons) != 1 ||
		aws.ToString(pe.ThrottlingReasons[0].Reason) != "IndexWriteProvisionedThroughputExceeded" ||
		aws.ToString(pe.ThrottlingReasons[0].Resource) != aws.ToString(d.Table.TableArn)+"/index/byG" {
		t.Fatalf("ThrottlingReasons: %+v", pe)
	}
	// A write without an index entry still needs the index's capacity.
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("c")}})
	wantAPIError(t, err, "ProvisionedThroughputExceededException", "")
	query := func(c *dynamodb.Client) error {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("x")}})
		if err == nil && out.ConsumedCapacity != nil {
			t.Fatalf("ConsumedCapacity returned unasked: %+v", out.ConsumedCapacity)
		}
		return err
	}
	// The first Query is sent once: the SDK for Go can lose a response it
	// was reading on a reused connection ("use of closed network
	// connection", https://github.com/aws/aws-sdk-go-v2/issues/2737), and
	// a resent Query would be charged twice, as DynamoDB charges it. Such
	// a lost answer still consumed the index's capacity; any other error
	// fails the test.
	once := dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} })
	if err := query(once); err != nil && (retry.RetryableConnectionError{}).IsErrorRetryable(err) != aws.TrueTernary {
		t.Fatalf("first Query of the index: %v", err)
	}
	err = query(c)
	wantAPIError(t, err, "ProvisionedThroughputExceededException", "")
	if !errors.As(err, &pe) || aws.ToString(pe.ThrottlingReasons[0].Reason) != "IndexReadProvisionedThroughputExceeded" {
		t.Fatalf("ThrottlingReasons: %+v", pe)
	}
	// The table's own reads are not affected.
	if _, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name)}); err != nil {
		t.Fatalf("Scan of the table: %v", err)
	}
}

// TestRealismConflictRetriedByApplication: the AWS SDK for Go does not
// retry TransactionConflictException by default; a client that adds it to
// its retryable codes gets every write through at a conflict rate of one
// half.
func TestRealismConflictRetriedByApplication(t *testing.T) {
	s, c := startClient(t, "--realism", "transaction-conflict-rate=0.5,seed=5")
	name := tableName("conflictretry")
	createHashTable(t, c, name, "S")
	rc := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		Retryer: retry.AddWithErrorCodes(retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 20
			o.MaxBackoff = 100 * time.Millisecond
			o.RateLimiter = ratelimit.None
		}), "TransactionConflictException"),
	})
	for i := range 10 {
		if _, err := rc.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS(strconv.Itoa(i))}}); err != nil {
			t.Fatalf("PutItem %d with conflicts retried: %v", i, err)
		}
	}
	out, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	if err != nil || out.Count != 10 {
		t.Fatalf("Scan: %v items, %v", out, err)
	}
}

// TestRealismFollowsManualClock: under --clock manual the index lag ends
// and a throttled table's bucket refills only when the clock is moved,
// so a test needs no sleep.
func TestRealismFollowsManualClock(t *testing.T) {
	s, c := startClient(t, "--admin-api", "--clock", "manual", "--realism", "capacity=on,burst=1s,gsi-lag=1h")
	a := adminAPI(s, testAccessKey, testSecretKey)
	name := tableName("clocked")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(100), WriteCapacityUnits: aws.Int64(1)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: keySchema("g"),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(100), WriteCapacityUnits: aws.Int64(100)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	putItem(t, c, name, item{"pk": avS("a"), "g": avS("x"), "v": avS(strings.Repeat("x", 3000))})
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b")}})
	wantAPIError(t, err, "ProvisionedThroughputExceededException", "")
	count := func() int32 {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("x")}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	time.Sleep(1500 * time.Millisecond) // the wall clock moves; the server's does not
	if n := count(); n != 0 {
		t.Fatalf("index shows %d items before the clock moved", n)
	}
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b")}})
	wantAPIError(t, err, "ProvisionedThroughputExceededException", "")
	if _, err := a.AdvanceClock(ctxT(t), "2h"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("index shows %d items after the lag, want 1", n)
	}
	putItem(t, c, name, item{"pk": avS("b")})
}
