package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// lsiEngine adds table ls1 to itemEngine's tables:
//
//	ls1  pk S, sk S; LSI lko (pk, n N, KEYS_ONLY); LSI linc (pk, d S,
//	     INCLUDE c); GSI gko (g S, KEYS_ONLY)
//
// with items {pk:"p", sk:"s<i>", n:i, a:i, b:i, g:"g"} for i in 0..5.
func lsiEngine(t *testing.T) *Engine {
	t.Helper()
	e := itemEngine(t)
	mustServe(t, e, "CreateTable", `{"TableName":"ls1","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},
			{"AttributeName":"n","AttributeType":"N"},{"AttributeName":"d","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"LocalSecondaryIndexes":[
			{"IndexName":"lko","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"linc","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"d","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["c"]}}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"gko","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	for i := 0; i < 6; i++ {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"ls1","Item":{"pk":{"S":"p"},"sk":{"S":"s%d"},"n":{"N":"%d"},"a":{"N":"%d"},"b":{"N":"%d"},"g":{"S":"g"}}}`, i, i, i, i))
	}
	return e
}

// A read of a local secondary index fetches from the table the attributes
// the index does not hold that its filter uses, whatever it projects; a
// global secondary index cannot, so there the filter sees them missing.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.Reading
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Reading
func TestLSIFilterOnUnprojectedAttribute(t *testing.T) {
	e := lsiEngine(t)
	const vals = `"ExpressionAttributeValues":{":p":{"S":"p"},":b":{"N":"3"}}`
	runSteps(t, e, []step{
		{name: "query, projection on the index, filter on the table",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b","ProjectionExpression":"n",` + vals + `}`,
			want: `{"Items":[{"n":{"N":"4"}},{"n":{"N":"5"}}],"Count":2,"ScannedCount":6}`},
		{name: "query, projection and filter both on the table",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b","ProjectionExpression":"a",` + vals + `}`,
			want: `{"Items":[{"a":{"N":"4"}},{"a":{"N":"5"}}],"Count":2,"ScannedCount":6}`},
		{name: "scan, projection on the index, filter on the table",
			op: "Scan", body: `{"TableName":"ls1","IndexName":"lko","FilterExpression":"b > :b","ProjectionExpression":"n","ExpressionAttributeValues":{":b":{"N":"3"}}}`,
			want: `{"Items":[{"n":{"N":"4"}},{"n":{"N":"5"}}],"Count":2,"ScannedCount":6}`},
		{name: "legacy QueryFilter with AttributesToGet",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p"}]}},
				"QueryFilter":{"b":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"3"}]}},"AttributesToGet":["n"]}`,
			want: `{"Items":[{"n":{"N":"4"}},{"n":{"N":"5"}}],"Count":2,"ScannedCount":6}`},
		{name: "Select COUNT",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","Select":"COUNT","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b",` + vals + `}`,
			want: `{"Count":2,"ScannedCount":6}`},
		{name: "global index: the filter sees the attribute missing",
			op: "Query", body: `{"TableName":"ls1","IndexName":"gko","KeyConditionExpression":"g=:g","FilterExpression":"b > :b","ProjectionExpression":"sk","ExpressionAttributeValues":{":g":{"S":"g"},":b":{"N":"3"}}}`,
			want: `{"Items":[],"Count":0,"ScannedCount":6}`},
	})
}

// Without Select or a projection an index read returns the attributes the
// index projects (ALL_PROJECTED_ATTRIBUTES), even when it fetched the table
// item for its filter; Select ALL_ATTRIBUTES returns the whole item.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Select
func TestLSIFilterKeepsIndexProjection(t *testing.T) {
	e := lsiEngine(t)
	mustServe(t, e, "PutItem", `{"TableName":"ls1","Item":{"pk":{"S":"q"},"sk":{"S":"s1"},"d":{"S":"d1"},"c":{"S":"c1"},"b":{"N":"9"},"x":{"S":"x"}}}`)
	const vals = `"ExpressionAttributeValues":{":p":{"S":"p"},":b":{"N":"3"}}`
	runSteps(t, e, []step{
		{name: "KEYS_ONLY index, default Select",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b",` + vals + `}`,
			want: `{"Items":[{"pk":{"S":"p"},"sk":{"S":"s4"},"n":{"N":"4"}},{"pk":{"S":"p"},"sk":{"S":"s5"},"n":{"N":"5"}}],"Count":2,"ScannedCount":6}`},
		{name: "KEYS_ONLY index, ALL_PROJECTED_ATTRIBUTES",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","Select":"ALL_PROJECTED_ATTRIBUTES","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b",` + vals + `}`,
			want: `{"Items":[{"pk":{"S":"p"},"sk":{"S":"s4"},"n":{"N":"4"}},{"pk":{"S":"p"},"sk":{"S":"s5"},"n":{"N":"5"}}],"Count":2,"ScannedCount":6}`},
		{name: "KEYS_ONLY index, ALL_ATTRIBUTES",
			op: "Query", body: `{"TableName":"ls1","IndexName":"lko","Select":"ALL_ATTRIBUTES","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b",` + vals + `}`,
			want: `{"Items":[{"pk":{"S":"p"},"sk":{"S":"s4"},"n":{"N":"4"},"a":{"N":"4"},"b":{"N":"4"},"g":{"S":"g"}},{"pk":{"S":"p"},"sk":{"S":"s5"},"n":{"N":"5"},"a":{"N":"5"},"b":{"N":"5"},"g":{"S":"g"}}],"Count":2,"ScannedCount":6}`},
		{name: "INCLUDE index, default Select",
			op: "Query", body: `{"TableName":"ls1","IndexName":"linc","KeyConditionExpression":"pk=:p","FilterExpression":"b > :b","ExpressionAttributeValues":{":p":{"S":"q"},":b":{"N":"3"}}}`,
			want: `{"Items":[{"pk":{"S":"q"},"sk":{"S":"s1"},"d":{"S":"d1"},"c":{"S":"c1"}}],"Count":1,"ScannedCount":1}`},
	})
}

// Fetching table items for a local secondary index read charges the table
// for the items fetched, summed and rounded up to 4 KB once for the page,
// besides the index's own charge. dynalite's test (run against DynamoDB)
// reads three items of about 30 bytes, 4.1 KB and 4.1 KB: the table is
// charged 3 units, where rounding each item would make 5.
// https://github.com/architect/dynalite/blob/main/test/query.js ("should return all attributes when specified for secondary indexes")
func TestLSITableFetchCapacity(t *testing.T) {
	e := lsiEngine(t)
	long := strings.Repeat("e", 4061)
	a := `{"S":"2538424394.2398596"}`
	for _, it := range []string{
		`{"pk":` + a + `,"sk":{"S":"b1"},"c":{"S":"c1"},"d":{"S":"d1"}}`,
		`{"pk":` + a + `,"sk":{"S":"b2"}}`,
		`{"pk":` + a + `,"sk":{"S":"b3"},"d":{"S":"d3"},"e":{"M":{"e3":{"S":"` + long + `"}}},"f":{"L":[{"S":"f3"},{"S":"ff3"}]}}`,
		`{"pk":` + a + `,"sk":{"S":"b4"},"c":{"S":"c4"},"d":{"S":"d4"},"e":{"M":{"ee4":{"S":"e4"},"eee4":{"S":"` + long + `"}}}}`,
	} {
		mustServe(t, e, "PutItem", `{"TableName":"ls1","Item":`+it+`}`)
	}
	for _, limit := range []string{``, `"Limit":3,`} {
		got, gerr := call(e, "Query", `{"TableName":"ls1","IndexName":"linc",`+limit+`"ConsistentRead":true,"Select":"ALL_ATTRIBUTES","ReturnConsumedCapacity":"INDEXES",
			"KeyConditionExpression":"pk=:p","ExpressionAttributeValues":{":p":`+a+`}}`)
		if gerr != "" {
			t.Fatal(gerr)
		}
		var out struct {
			Count            int
			ConsumedCapacity json.RawMessage
		}
		if err := json.Unmarshal([]byte(got), &out); err != nil {
			t.Fatal(err)
		}
		want := `{"TableName":"ls1","CapacityUnits":4,"Table":{"CapacityUnits":3},"LocalSecondaryIndexes":{"linc":{"CapacityUnits":1}}}`
		if out.Count != 3 || !sameJSON(t, string(out.ConsumedCapacity), want) {
			t.Errorf("%s: Count %d, ConsumedCapacity %s, want 3 and %s", limit, out.Count, out.ConsumedCapacity, want)
		}
	}
}

// An ExpressionAttributeNames value may not be empty, in every operation
// that takes expressions.
func TestEmptyExpressionAttributeName(t *testing.T) {
	e := itemEngine(t)
	const msg = "ValidationException: ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"
	runSteps(t, e, []step{
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"k"}},"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":""}}`, err: msg},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"k"}},"ConditionExpression":"attribute_not_exists(#a)","ExpressionAttributeNames":{"#a":""}}`, err: msg},
		{op: "UpdateItem", body: `{"TableName":"hash","Key":{"pk":{"S":"k"}},"UpdateExpression":"SET #a = :v","ExpressionAttributeNames":{"#a":""},"ExpressionAttributeValues":{":v":{"S":"x"}}}`, err: msg},
		{op: "Query", body: `{"TableName":"hash","KeyConditionExpression":"#a = :v","ExpressionAttributeNames":{"#a":""},"ExpressionAttributeValues":{":v":{"S":"x"}}}`, err: msg},
		{op: "Scan", body: `{"TableName":"hash","FilterExpression":"attribute_exists(#a)","ExpressionAttributeNames":{"#a":""}}`, err: msg},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"k"}}],"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":""}}}}`, err: msg},
		{op: "TransactGetItems", body: `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"k"}},"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":""}}}]}`, err: msg},
		{op: "TransactWriteItems", body: `{"TransactItems":[{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"k"}},"ConditionExpression":"attribute_exists(#a)","ExpressionAttributeNames":{"#a":""}}}]}`, err: msg},
	})
}

// The ExclusiveStartKey of a Query must have exactly the table's and the
// index's key attributes; Scan words a bad key of the table itself
// differently.
// https://github.com/architect/dynalite/blob/main/test/query.js ("ExclusiveStartKey missing range key", "is invalid for local index", "does not match range schema")
// https://github.com/architect/dynalite/blob/main/test/scan.js ("ExclusiveStartKey for range table is invalid", "is invalid for local index", "does not match schema for local index", "range in ExclusiveStartKey is invalid, but hash and local are ok")
func TestExclusiveStartKeyErrors(t *testing.T) {
	e := itemEngine(t)
	const (
		invalid  = "ValidationException: The provided starting key is invalid"
		mismatch = "ValidationException: The provided key element does not match the schema"
		both     = "ValidationException: The provided starting key is invalid: The provided key element does not match the schema"
	)
	q := func(esk string) string {
		return `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"ExclusiveStartKey":` + esk + `}`
	}
	ql := func(esk string) string {
		return `{"TableName":"range","IndexName":"lsi","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"ExclusiveStartKey":` + esk + `}`
	}
	sl := func(esk string) string {
		return `{"TableName":"range","IndexName":"lsi","ExclusiveStartKey":` + esk + `}`
	}
	runSteps(t, e, []step{
		{name: "query: missing sort key", op: "Query", body: q(`{"pk":{"S":"a"}}`), err: invalid},
		{name: "query: extra attribute", op: "Query", body: q(`{"pk":{"S":"a"},"sk":{"N":"1"},"x":{"S":"a"}}`), err: invalid},
		{name: "query: other attribute", op: "Query", body: q(`{"pk":{"S":"a"},"x":{"N":"1"}}`), err: invalid},
		{name: "query: wrong type", op: "Query", body: q(`{"pk":{"S":"a"},"sk":{"S":"1"}}`), err: mismatch},
		{name: "query index: table key only", op: "Query", body: ql(`{"pk":{"S":"a"},"sk":{"N":"1"}}`), err: invalid},
		{name: "query index: index key wrong type", op: "Query", body: ql(`{"pk":{"S":"a"},"sk":{"N":"1"},"lsk":{"N":"1"}}`), err: mismatch},
		{name: "query index: table key wrong type", op: "Query", body: ql(`{"pk":{"S":"a"},"sk":{"S":"1"},"lsk":{"S":"l"}}`), err: both},
		{name: "scan: missing sort key", op: "Scan", body: `{"TableName":"range","ExclusiveStartKey":{"pk":{"S":"a"}}}`, err: both},
		{name: "scan: extra attribute", op: "Scan", body: `{"TableName":"range","ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"1"},"x":{"S":"a"}}}`, err: both},
		{name: "scan index: missing index key", op: "Scan", body: sl(`{"pk":{"S":"a"},"sk":{"N":"1"}}`), err: invalid},
		{name: "scan index: extra attribute", op: "Scan", body: sl(`{"pk":{"S":"a"},"sk":{"N":"1"},"lsk":{"S":"l"},"x":{"S":"1"}}`), err: invalid},
		{name: "scan index: index key wrong type", op: "Scan", body: sl(`{"pk":{"S":"a"},"sk":{"N":"1"},"lsk":{"N":"1"}}`), err: mismatch},
		{name: "scan index: table key wrong type", op: "Scan", body: sl(`{"pk":{"S":"a"},"sk":{"S":"1"},"lsk":{"S":"l"}}`), err: both},
		{name: "query index: valid", op: "Query", body: ql(`{"pk":{"S":"a"},"sk":{"N":"1"},"lsk":{"S":"l"}}`), want: `{"Items":[],"Count":0,"ScannedCount":0}`},
	})
}

// Tag keys beginning with aws: are reserved.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TaggingRestrictions.html
func TestReservedTagKeys(t *testing.T) {
	e := itemEngine(t)
	arn := "arn:aws:dynamodb:us-east-1:" + e.cfg.AccountID + ":table/hash"
	const msg = "ValidationException: One or more parameter values were invalid: Tag keys starting with aws: are reserved for AWS use. Tag key: "
	runSteps(t, e, []step{
		{op: "TagResource", body: `{"ResourceArn":"` + arn + `","Tags":[{"Key":"ok","Value":"1"},{"Key":"aws:x","Value":"1"}]}`, err: msg + "aws:x"},
		{op: "TagResource", body: `{"ResourceArn":"` + arn + `","Tags":[{"Key":"AWS:cost","Value":"1"}]}`, err: msg + "AWS:cost"},
		{op: "UntagResource", body: `{"ResourceArn":"` + arn + `","TagKeys":["aws:x"]}`, err: msg + "aws:x"},
		{op: "CreateTable", body: `{"TableName":"tagged","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
			"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"Tags":[{"Key":"Aws:y","Value":"1"}]}`, err: msg + "Aws:y"},
		{op: "TagResource", body: `{"ResourceArn":"` + arn + `","Tags":[{"Key":"awsx","Value":"1"},{"Key":"my:aws:z","Value":"2"}]}`, want: `{}`},
		{op: "ListTagsOfResource", body: `{"ResourceArn":"` + arn + `"}`, want: `{"Tags":[{"Key":"awsx","Value":"1"},{"Key":"my:aws:z","Value":"2"}]}`},
	})
}

// describeTableJSON returns DescribeTable's Table as generic JSON.
func describeTableJSON(t *testing.T, e *Engine, name string) map[string]any {
	t.Helper()
	got, gerr := call(e, "DescribeTable", `{"TableName":"`+name+`"}`)
	if gerr != "" {
		t.Fatal(gerr)
	}
	var out struct{ Table map[string]any }
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatal(err)
	}
	return out.Table
}

// Switching a table with global secondary indexes from PAY_PER_REQUEST to
// PROVISIONED needs throughput for every index, given in the same request by
// GlobalSecondaryIndexUpdates; DynamoDB names the indexes without it.
// https://github.com/crossplane-contrib/provider-upjet-aws/issues/1041
func TestSwitchToProvisionedWithGSIs(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "CreateTable", `{"TableName":"odt","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"a","AttributeType":"S"},{"AttributeName":"b","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"index-A","KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}},
			{"IndexName":"index-B","KeySchema":[{"AttributeName":"b","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	tp := `"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":4}`
	upd := func(name string, r, w int) string {
		return fmt.Sprintf(`{"Update":{"IndexName":"%s","ProvisionedThroughput":{"ReadCapacityUnits":%d,"WriteCapacityUnits":%d}}}`, name, r, w)
	}
	runSteps(t, e, []step{
		{name: "no index throughput", op: "UpdateTable", body: `{"TableName":"odt","BillingMode":"PROVISIONED",` + tp + `}`,
			err: "ValidationException: One or more parameter values were invalid: ProvisionedThroughput must be specified for index: index-A,index-B"},
		{name: "one index without", op: "UpdateTable", body: `{"TableName":"odt","BillingMode":"PROVISIONED",` + tp + `,"GlobalSecondaryIndexUpdates":[` + upd("index-A", 3, 2) + `]}`,
			err: "ValidationException: One or more parameter values were invalid: ProvisionedThroughput must be specified for index: index-B"},
		{name: "index update while staying on demand", op: "UpdateTable", body: `{"TableName":"odt","GlobalSecondaryIndexUpdates":[` + upd("index-A", 3, 2) + `]}`,
			err: "ValidationException: One or more parameter values were invalid: The only Updates for index: index-A when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"},
		{name: "every index", op: "UpdateTable", body: `{"TableName":"odt","BillingMode":"PROVISIONED",` + tp + `,"GlobalSecondaryIndexUpdates":[` + upd("index-A", 3, 2) + `,` + upd("index-B", 7, 6) + `]}`},
	})
	d := describeTableJSON(t, e, "odt")
	want := map[string][2]float64{"index-A": {3, 2}, "index-B": {7, 6}}
	for _, g := range d["GlobalSecondaryIndexes"].([]any) {
		g := g.(map[string]any)
		pt := g["ProvisionedThroughput"].(map[string]any)
		w := want[g["IndexName"].(string)]
		if pt["ReadCapacityUnits"] != w[0] || pt["WriteCapacityUnits"] != w[1] {
			t.Errorf("%s: ProvisionedThroughput %v, want %v", g["IndexName"], pt, w)
		}
		if _, ok := pt["LastIncreaseDateTime"]; ok {
			t.Errorf("%s: LastIncreaseDateTime set by the switch: %v", g["IndexName"], pt)
		}
	}
	if bm := d["BillingModeSummary"].(map[string]any); bm["BillingMode"] != "PROVISIONED" {
		t.Errorf("BillingModeSummary %v", bm)
	}
}

// LastUpdateToPayPerRequestDateTime is when the table last switched to
// PAY_PER_REQUEST: switching back to PROVISIONED keeps it. Leaving
// PAY_PER_REQUEST sets the throughput without counting as an increase.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BillingModeSummary.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ProvisionedThroughputDescription.html
func TestBillingModeSummaryTimes(t *testing.T) {
	e := itemEngine(t)
	clock := time.Unix(1700000000, 0)
	e.now = func() time.Time { return clock }
	mustServe(t, e, "CreateTable", `{"TableName":"bmt","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`)
	clock = clock.Add(time.Hour)
	mustServe(t, e, "UpdateTable", `{"TableName":"bmt","BillingMode":"PAY_PER_REQUEST"}`)
	toOnDemand := float64(clock.Unix())
	clock = clock.Add(time.Hour)
	mustServe(t, e, "UpdateTable", `{"TableName":"bmt","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`)
	d := describeTableJSON(t, e, "bmt")
	bm := d["BillingModeSummary"].(map[string]any)
	if bm["BillingMode"] != "PROVISIONED" || bm["LastUpdateToPayPerRequestDateTime"] != toOnDemand {
		t.Errorf("BillingModeSummary %v, want PROVISIONED and LastUpdateToPayPerRequestDateTime %v", bm, toOnDemand)
	}
	pt := d["ProvisionedThroughput"].(map[string]any)
	if _, ok := pt["LastIncreaseDateTime"]; ok || pt["ReadCapacityUnits"] != 5.0 || pt["WriteCapacityUnits"] != 5.0 {
		t.Errorf("ProvisionedThroughput %v: want 5/5 without LastIncreaseDateTime", pt)
	}
	// A real increase afterwards is recorded.
	clock = clock.Add(time.Hour)
	mustServe(t, e, "UpdateTable", `{"TableName":"bmt","ProvisionedThroughput":{"ReadCapacityUnits":6,"WriteCapacityUnits":5}}`)
	pt = describeTableJSON(t, e, "bmt")["ProvisionedThroughput"].(map[string]any)
	if pt["LastIncreaseDateTime"] != float64(clock.Unix()) {
		t.Errorf("ProvisionedThroughput %v: want LastIncreaseDateTime %d", pt, clock.Unix())
	}
}

// DynamoDB refuses DeleteTable while a global secondary index is being
// created: an AWS run recorded "Attempt to change a resource which is still
// in use: Cannot delete table while indexes are being created, updated, or
// deleted."
// https://github.com/go-to-k/cdkd/issues/1830
func TestDeleteTableWhileIndexCreating(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "UpdateTable", `{"TableName":"hash","AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"}],
		"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"gnew","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`)
	runSteps(t, e, []step{
		{op: "DeleteTable", body: `{"TableName":"hash"}`,
			err: "ResourceInUseException: Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted."},
	})
}
