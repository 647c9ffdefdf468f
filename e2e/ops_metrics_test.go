package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// smallItem is an item of 6 bytes in DynamoDB's item size: "pk" + a
// two-character key, "v" + a one-character value.
func smallItem(pk, v string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": avS(pk), "v": avS(v)}
}

// The per-table metrics count every data-plane operation, batches,
// transactions and PartiQL included, as DynamoDB charges them: an eventually
// consistent read of up to 4 KB costs 0.5 RCU, a strongly consistent one
// 1 RCU, a transactional one 2 RCU (a missing item as a small one); a write
// of up to 1 KB costs 1 WCU, a transactional one (ConditionCheck included)
// 2 WCU. Stream records count once per write that changes an item of a table
// with a stream.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html
func TestMetricsPerTableEveryOperation(t *testing.T) {
	s, c := startClient(t)
	ctx := ctxT(t)
	a, b := tableName("metrics-a"), tableName("metrics-b")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(a),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	createHashTable(t, c, b, "S")
	before := scrape(t, s.Endpoint)

	put := func(it map[string]types.AttributeValue) types.WriteRequest {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A: 2 items, 2 WCU, 12 bytes, 2 stream records. B: 1, 1, 6.
	must(c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		a: {put(smallItem("a1", "x")), put(smallItem("a2", "x"))},
		b: {put(smallItem("b1", "x"))},
	}}))
	// A: 2 items of 3 keys, 1.5 RCU, 12 bytes. B: 1 item, 1 RCU, 6 bytes.
	must(c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		a: {Keys: []map[string]types.AttributeValue{{"pk": avS("a1")}, {"pk": avS("a2")}, {"pk": avS("a9")}}},
		b: {Keys: []map[string]types.AttributeValue{{"pk": avS("b1")}}, ConsistentRead: aws.Bool(true)},
	}}))
	// A: 1 item of 2 keys, 4 RCU, 6 bytes.
	must(c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(a), Key: map[string]types.AttributeValue{"pk": avS("a1")}}},
		{Get: &types.Get{TableName: aws.String(a), Key: map[string]types.AttributeValue{"pk": avS("a8")}}},
	}}))
	// A: 3 items (put, update, delete), 6 WCU, 12 bytes, 3 stream records.
	// B: a ConditionCheck, no item, 2 WCU.
	must(c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(a), Item: smallItem("a3", "x")}},
		{Update: &types.Update{TableName: aws.String(a), Key: map[string]types.AttributeValue{"pk": avS("a1")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": avS("y")}}},
		{Delete: &types.Delete{TableName: aws.String(a), Key: map[string]types.AttributeValue{"pk": avS("a2")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(b), Key: map[string]types.AttributeValue{"pk": avS("b1")},
			ConditionExpression: aws.String("attribute_exists(pk)")}},
	}}))
	// A: a PartiQL INSERT (1 item, 1 WCU, 6 bytes, 1 record), SELECT by key
	// (1 item, 0.5 RCU, 6 bytes) and a transactional UPDATE (1 item, 2 WCU,
	// 6 bytes, 1 record).
	must(c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'a4', 'v': 'x'}`, a))}))
	must(c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s" WHERE pk = 'a4'`, a))}))
	must(c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(fmt.Sprintf(`UPDATE "%s" SET v = 'y' WHERE pk = 'a4'`, a))},
	}}))
	// A: a put of an equal image is charged (1 item, 1 WCU, 6 bytes) but
	// writes no stream record.
	must(c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a), Item: smallItem("a4", "y")}))

	after := scrape(t, s.Endpoint)
	series := func(metric, kind, table string) string {
		return metric + `{kind="` + kind + `",table="` + table + `"}`
	}
	for name, want := range map[string]float64{
		series("extenddb_items_total", "write", a):                   8,
		series("extenddb_consumed_capacity_units_total", "write", a): 12,
		series("extenddb_item_bytes_total", "write", a):              42,
		series("extenddb_items_total", "read", a):                    4,
		series("extenddb_consumed_capacity_units_total", "read", a):  6,
		series("extenddb_item_bytes_total", "read", a):               24,
		series("extenddb_items_total", "write", b):                   1,
		series("extenddb_consumed_capacity_units_total", "write", b): 3,
		series("extenddb_item_bytes_total", "write", b):              6,
		series("extenddb_items_total", "read", b):                    1,
		series("extenddb_consumed_capacity_units_total", "read", b):  1,
		series("extenddb_item_bytes_total", "read", b):               6,
		"extenddb_stream_records_written_total":                      7,
	} {
		if got := after[name] - before[name]; got != want {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
}

// Time to Live deletions on a table with a stream append REMOVE records,
// which extenddb_stream_records_written_total counts like any other write's.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html
func TestMetricsStreamRecordsOfTTL(t *testing.T) {
	s, c := startClient(t, "--ttl-interval", "200ms")
	ctx := ctxT(t)
	name := tableName("metrics-ttl")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	before := scrape(t, s.Endpoint)
	past := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	for i := range 3 {
		putItem(t, c, name, item{"pk": avS(fmt.Sprintf("gone%d", i)), "exp": avN(past)})
	}
	const written = `extenddb_stream_records_written_total`
	deadline := time.Now().Add(60 * time.Second)
	for {
		m := scrape(t, s.Endpoint)
		if m[`extenddb_ttl_expired_items_total`]-before[`extenddb_ttl_expired_items_total`] >= 3 {
			// 3 INSERT records, then 3 REMOVE records.
			if got := m[written] - before[written]; got != 6 {
				t.Errorf("%s moved by %v, want 6", written, got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("TTL expiry not counted within 60s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A deleted table's per-table series go with it, so that creating and
// deleting uniquely named tables (as test suites do) cannot grow /metrics
// without bound.
func TestMetricsDeletedTableForgotten(t *testing.T) {
	s, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("metrics-gone")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, smallItem("k1", "x"))
	if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("k1")}}); err != nil {
		t.Fatal(err)
	}
	series := func() []string {
		var out []string
		for k := range scrape(t, s.Endpoint) {
			if strings.Contains(k, `table="`+name+`"`) {
				out = append(out, k)
			}
		}
		return out
	}
	if got := series(); len(got) != 6 {
		t.Fatalf("series of a used table: %v, want 6 (3 metrics x read, write)", got)
	}
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	if got := series(); len(got) != 0 {
		t.Errorf("series of a deleted table: %v", got)
	}
}

// Exports and imports report their progress on /metrics as they go: the
// items an export writes and their billed size, the records an import reads
// and the bytes of its source files, the figures DescribeExport
// (ItemCount, BilledSizeBytes) and DescribeImport (ProcessedItemCount,
// ProcessedSizeBytes) give.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportDescription.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTableDescription.html
func TestMetricsExportImportProgress(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	ctx := ctxT(t)
	src := tableName("metrics_exp")
	createHashTable(t, c, src, "S")
	enablePITR(t, c, src)
	const n = 25
	for i := range n {
		putItem(t, c, src, smallItem(fmt.Sprintf("k%02d", i), "x"))
	}
	before := scrape(t, s.Endpoint)
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)),
		S3Bucket: aws.String("metrics"), ExportFormat: types.ExportFormatDynamodbJson})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != n {
		t.Fatalf("export: %+v", d)
	}
	dst := tableName("metrics_imp")
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("metrics"),
			S3KeyPrefix: aws.String(strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json") + "data/")},
		InputFormat: types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(dst), KeySchema: keySchema("pk"),
			AttributeDefinitions: attrDefs("pk", "S"), BillingMode: types.BillingModePayPerRequest}})
	if err != nil {
		t.Fatal(err)
	}
	id := waitImport(t, c, aws.ToString(imp.ImportTableDescription.ImportArn), 60*time.Second)
	if id.ImportStatus != types.ImportStatusCompleted || id.ProcessedItemCount != n {
		t.Fatalf("import: %+v", id)
	}
	after := scrape(t, s.Endpoint)
	for name, want := range map[string]float64{
		`extenddb_job_progress_units_total{kind="export"}`: n,
		`extenddb_job_progress_bytes_total{kind="export"}`: float64(aws.ToInt64(d.BilledSizeBytes)),
		`extenddb_job_progress_units_total{kind="import"}`: n,
		`extenddb_job_progress_bytes_total{kind="import"}`: float64(aws.ToInt64(id.ProcessedSizeBytes)),
	} {
		if got := after[name] - before[name]; got != want || want == 0 {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
}
