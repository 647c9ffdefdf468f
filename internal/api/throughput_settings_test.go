package api

import (
	"encoding/json"
	"testing"
)

// describeField returns one member of DescribeTable's Table as JSON.
func describeField(t *testing.T, e *Engine, table string, path ...string) string {
	t.Helper()
	out, errText := call(e, "DescribeTable", `{"TableName":"`+table+`"}`)
	if errText != "" {
		t.Fatal(errText)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	v = v.(map[string]any)["Table"]
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			v = x[0].(map[string]any)[p]
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// OnDemandThroughput: each maximum is -1 (none) or at least 1, described
// with -1 for a maximum not set; the message is DynamoDB's, quoted in
// https://github.com/hashicorp/terraform-provider-aws/issues/39760
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_OnDemandThroughput.html
// WarmThroughput: every on-demand table starts warm at 12,000 reads and
// 4,000 writes per second and can only be raised.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html
func TestOnDemandAndWarmThroughput(t *testing.T) {
	e := itemEngine(t)
	if got := describeField(t, e, "hash", "OnDemandThroughput"); got != `{"MaxReadRequestUnits":-1,"MaxWriteRequestUnits":-1}` {
		t.Fatalf("default OnDemandThroughput: %s", got)
	}
	if got := describeField(t, e, "hash", "WarmThroughput"); got != `{"ReadUnitsPerSecond":12000,"Status":"ACTIVE","WriteUnitsPerSecond":4000}` {
		t.Fatalf("default WarmThroughput: %s", got)
	}
	mustServe(t, e, "CreateTable", `{"TableName":"odt","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"OnDemandThroughput":{"MaxReadRequestUnits":100},"WarmThroughput":{"ReadUnitsPerSecond":15000},
		"GlobalSecondaryIndexes":[{"IndexName":"gix","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"},
			"OnDemandThroughput":{"MaxWriteRequestUnits":7}}]}`)
	if got := describeField(t, e, "odt", "OnDemandThroughput"); got != `{"MaxReadRequestUnits":100,"MaxWriteRequestUnits":-1}` {
		t.Fatalf("OnDemandThroughput: %s", got)
	}
	if got := describeField(t, e, "odt", "WarmThroughput"); got != `{"ReadUnitsPerSecond":15000,"Status":"ACTIVE","WriteUnitsPerSecond":4000}` {
		t.Fatalf("WarmThroughput: %s", got)
	}
	if got := describeField(t, e, "odt", "GlobalSecondaryIndexes", "OnDemandThroughput"); got != `{"MaxReadRequestUnits":-1,"MaxWriteRequestUnits":7}` {
		t.Fatalf("index OnDemandThroughput: %s", got)
	}
	mustServe(t, e, "UpdateTable", `{"TableName":"odt","OnDemandThroughput":{"MaxReadRequestUnits":-1,"MaxWriteRequestUnits":50}}`)
	if got := describeField(t, e, "odt", "OnDemandThroughput"); got != `{"MaxReadRequestUnits":-1,"MaxWriteRequestUnits":50}` {
		t.Fatalf("OnDemandThroughput after UpdateTable: %s", got)
	}
	mustServe(t, e, "UpdateTable", `{"TableName":"odt","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"gix","OnDemandThroughput":{"MaxReadRequestUnits":9}}}]}`)
	if got := describeField(t, e, "odt", "GlobalSecondaryIndexes", "OnDemandThroughput"); got != `{"MaxReadRequestUnits":9,"MaxWriteRequestUnits":7}` {
		t.Fatalf("index OnDemandThroughput after UpdateTable: %s", got)
	}

	wantCallErr(t, e, "UpdateTable", `{"TableName":"odt","OnDemandThroughput":{"MaxWriteRequestUnits":0}}`,
		"ValidationException: One or more parameter values were invalid: Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range")
	wantCallErr(t, e, "UpdateTable", `{"TableName":"odt","WarmThroughput":{"ReadUnitsPerSecond":12000}}`,
		"ValidationException: One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than the current value of 15000")
	wantCallErr(t, e, "CreateTable", `{"TableName":"prov","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1},
		"OnDemandThroughput":{"MaxReadRequestUnits":5}}`,
		"ValidationException: One or more parameter values were invalid: OnDemandThroughput can be specified only when BillingMode is PAY_PER_REQUEST")
	if got, _ := call(e, "DescribeTable", `{"TableName":"prov"}`); got != "" {
		t.Fatalf("refused CreateTable created the table: %s", got)
	}
}
