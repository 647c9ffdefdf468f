package api

import (
	"strings"
	"testing"
)

// The control-plane operations of features with no local service behind
// them answer as DynamoDB does with the feature switched off. Shapes:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContributorInsights.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListContributorInsights.html

func wantCall(t *testing.T, e *Engine, op, body, want string) {
	t.Helper()
	got, errText := call(e, op, body)
	if errText != "" {
		t.Fatalf("%s %s: %s", op, body, errText)
	}
	if !sameJSON(t, got, want) {
		t.Fatalf("%s %s:\n got %s\nwant %s", op, body, got, want)
	}
}

func wantCallErr(t *testing.T, e *Engine, op, body, want string) {
	t.Helper()
	got, errText := call(e, op, body)
	if errText != want {
		t.Fatalf("%s %s:\n got %q (%s)\nwant %q", op, body, errText, got, want)
	}
}

func TestContributorInsights(t *testing.T) {
	e := itemEngine(t)
	wantCall(t, e, "DescribeContributorInsights", `{"TableName":"hash"}`,
		`{"TableName":"hash","ContributorInsightsStatus":"DISABLED"}`)
	wantCall(t, e, "ListContributorInsights", `{}`, `{"ContributorInsightsSummaries":[]}`)
	wantCall(t, e, "UpdateContributorInsights", `{"TableName":"range","IndexName":"gsi","ContributorInsightsAction":"ENABLE"}`,
		`{"TableName":"range","IndexName":"gsi","ContributorInsightsStatus":"ENABLING","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}`)
	wantCall(t, e, "UpdateContributorInsights", `{"TableName":"hash","ContributorInsightsAction":"ENABLE","ContributorInsightsMode":"THROTTLED_KEYS"}`,
		`{"TableName":"hash","ContributorInsightsStatus":"ENABLING","ContributorInsightsMode":"THROTTLED_KEYS"}`)

	got, errText := call(e, "DescribeContributorInsights", `{"TableName":"hash"}`)
	if errText != "" || !strings.Contains(got, `"ContributorInsightsStatus":"ENABLED"`) ||
		!strings.Contains(got, `"ContributorInsightsRuleList":["DynamoDBContributorInsights-PKT-hash-`) ||
		!strings.Contains(got, `"LastUpdateDateTime":`) || strings.Contains(got, "PKC") {
		t.Fatalf("DescribeContributorInsights after ENABLE: %s %s", got, errText)
	}
	wantCall(t, e, "ListContributorInsights", `{}`, `{"ContributorInsightsSummaries":[
		{"TableName":"hash","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"THROTTLED_KEYS"},
		{"TableName":"range","IndexName":"gsi","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}]}`)
	wantCall(t, e, "ListContributorInsights", `{"MaxResults":1}`, `{"ContributorInsightsSummaries":[
		{"TableName":"hash","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"THROTTLED_KEYS"}],"NextToken":"1"}`)
	wantCall(t, e, "ListContributorInsights", `{"TableName":"range"}`, `{"ContributorInsightsSummaries":[
		{"TableName":"range","IndexName":"gsi","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}]}`)

	wantCall(t, e, "UpdateContributorInsights", `{"TableName":"hash","ContributorInsightsAction":"DISABLE"}`,
		`{"TableName":"hash","ContributorInsightsStatus":"DISABLING"}`)
	// A table ARN is accepted wherever a TableName is (since 2024).
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContributorInsights.html
	got, _ = call(e, "DescribeContributorInsights", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/hash"}`)
	if !strings.Contains(got, `"ContributorInsightsStatus":"DISABLED"`) || strings.Contains(got, "RuleList") {
		t.Fatalf("DescribeContributorInsights after DISABLE: %s", got)
	}

	wantCallErr(t, e, "UpdateContributorInsights", `{"TableName":"hash","ContributorInsightsAction":"ON"}`,
		"ValidationException: 1 validation error detected: Value 'ON' at 'contributorInsightsAction' failed to satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]")
	wantCallErr(t, e, "UpdateContributorInsights", `{"TableName":"hash"}`,
		"ValidationException: 1 validation error detected: Value null at 'contributorInsightsAction' failed to satisfy constraint: Member must not be null")
	wantCallErr(t, e, "DescribeContributorInsights", `{"TableName":"nope"}`,
		"ResourceNotFoundException: Requested resource not found: Table: nope not found")
	wantCallErr(t, e, "DescribeContributorInsights", `{"TableName":"range","IndexName":"lsi"}`,
		"ResourceNotFoundException: Requested resource not found: Index: lsi not found")
	wantCallErr(t, e, "ListContributorInsights", `{"MaxResults":101}`,
		"ValidationException: 1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100")
}

// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeKinesisStreamingDestination.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_EnableKinesisStreamingDestination.html
func TestKinesisStreamingDestination(t *testing.T) {
	e := itemEngine(t)
	arn := "arn:aws:kinesis:us-east-1:000000000000:stream/s1"
	wantCall(t, e, "DescribeKinesisStreamingDestination", `{"TableName":"hash"}`,
		`{"TableName":"hash","KinesisDataStreamDestinations":[]}`)
	wantCall(t, e, "EnableKinesisStreamingDestination", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/hash","StreamArn":"`+arn+`"}`,
		`{"TableName":"hash","StreamArn":"`+arn+`","DestinationStatus":"ENABLING","EnableKinesisStreamingConfiguration":{"ApproximateCreationDateTimePrecision":"MILLISECOND"}}`)
	wantCall(t, e, "DescribeKinesisStreamingDestination", `{"TableName":"hash"}`,
		`{"TableName":"hash","KinesisDataStreamDestinations":[{"StreamArn":"`+arn+`","DestinationStatus":"ENABLE_FAILED",
		"DestinationStatusDescription":"`+kinesisUnavailable+`","ApproximateCreationDateTimePrecision":"MILLISECOND"}]}`)
	wantCallErr(t, e, "UpdateKinesisStreamingDestination", `{"TableName":"hash","StreamArn":"`+arn+`","UpdateKinesisStreamingConfiguration":{"ApproximateCreationDateTimePrecision":"MICROSECOND"}}`,
		"ValidationException: Table: hash is not streaming to Kinesis stream: "+arn)
	wantCall(t, e, "DisableKinesisStreamingDestination", `{"TableName":"hash","StreamArn":"`+arn+`"}`,
		`{"TableName":"hash","StreamArn":"`+arn+`","DestinationStatus":"DISABLING"}`)
	wantCall(t, e, "DescribeKinesisStreamingDestination", `{"TableName":"hash"}`,
		`{"TableName":"hash","KinesisDataStreamDestinations":[{"StreamArn":"`+arn+`","DestinationStatus":"DISABLED","ApproximateCreationDateTimePrecision":"MILLISECOND"}]}`)
	wantCallErr(t, e, "DisableKinesisStreamingDestination", `{"TableName":"hash","StreamArn":"`+arn+`"}`,
		"ValidationException: Table: hash is not streaming to Kinesis stream: "+arn)
	wantCallErr(t, e, "EnableKinesisStreamingDestination", `{"TableName":"hash","StreamArn":"arn:short"}`,
		"ValidationException: 1 validation error detected: Value 'arn:short' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37")
	wantCallErr(t, e, "EnableKinesisStreamingDestination", `{"TableName":"hash","StreamArn":"`+arn+`","EnableKinesisStreamingConfiguration":{"ApproximateCreationDateTimePrecision":"SECOND"}}`,
		"ValidationException: 1 validation error detected: Value 'SECOND' at 'enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: [MILLISECOND, MICROSECOND]")
	wantCallErr(t, e, "EnableKinesisStreamingDestination", `{"TableName":"nope","StreamArn":"`+arn+`"}`,
		"ResourceNotFoundException: Requested resource not found: Table: nope not found")
}

// A table that is not global: ListGlobalTables lists none and the global
// table operations answer GlobalTableNotFoundException; CreateGlobalTable
// names the first region where the table is missing, in the words quoted in
// https://github.com/aws-controllers-k8s/community/issues/1034 and
// https://github.com/hashicorp/terraform-provider-aws/issues/11982
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeGlobalTable.html#API_DescribeGlobalTable_Errors
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTableReplicaAutoScaling.html
func TestGlobalTablesOnATableThatIsNotGlobal(t *testing.T) {
	e := itemEngine(t)
	wantCall(t, e, "ListGlobalTables", `{}`, `{"GlobalTables":[]}`)
	wantCall(t, e, "ListGlobalTables", `{"RegionName":"us-east-1","Limit":10}`, `{"GlobalTables":[]}`)
	for _, op := range []string{"DescribeGlobalTable", "UpdateGlobalTable", "DescribeGlobalTableSettings", "UpdateGlobalTableSettings"} {
		wantCallErr(t, e, op, `{"GlobalTableName":"hash"}`,
			"GlobalTableNotFoundException: Global table not found: Global table with name: 'hash' does not exist.")
		wantCallErr(t, e, op, `{}`,
			"ValidationException: 1 validation error detected: Value null at 'globalTableName' failed to satisfy constraint: Member must not be null")
	}
	wantCallErr(t, e, "CreateGlobalTable", `{"GlobalTableName":"hash","ReplicationGroup":[{"RegionName":"us-east-1"},{"RegionName":"eu-west-1"}]}`,
		"TableNotFoundException: Table not found: Table: 'hash' not found in region: 'eu-west-1'.")
	wantCallErr(t, e, "CreateGlobalTable", `{"GlobalTableName":"nope","ReplicationGroup":[{"RegionName":"us-east-1"}]}`,
		"TableNotFoundException: Table not found: Table: 'nope' not found in region: 'us-east-1'.")
	wantCallErr(t, e, "ListGlobalTables", `{"Limit":0}`,
		"ValidationException: 1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")

	wantCall(t, e, "DescribeTableReplicaAutoScaling", `{"TableName":"hash"}`,
		`{"TableAutoScalingDescription":{"TableName":"hash","TableStatus":"ACTIVE","Replicas":[]}}`)
	wantCallErr(t, e, "DescribeTableReplicaAutoScaling", `{"TableName":"nope"}`,
		"ResourceNotFoundException: Requested resource not found: Table: nope not found")
}

// Every operation of the DynamoDB API reference, and of DynamoDB Streams,
// has a handler: none answers UnknownOperationException. The lists are the
// reference's, as of the operations pages:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html
func TestEveryOperationAnswers(t *testing.T) {
	reference := []string{
		"BatchExecuteStatement", "BatchGetItem", "BatchWriteItem", "CreateBackup", "CreateGlobalTable", "CreateTable",
		"DeleteBackup", "DeleteItem", "DeleteResourcePolicy", "DeleteTable", "DescribeBackup", "DescribeContinuousBackups",
		"DescribeContributorInsights", "DescribeEndpoints", "DescribeExport", "DescribeGlobalTable", "DescribeGlobalTableSettings",
		"DescribeImport", "DescribeKinesisStreamingDestination", "DescribeLimits", "DescribeTable", "DescribeTableReplicaAutoScaling",
		"DescribeTimeToLive", "DisableKinesisStreamingDestination", "EnableKinesisStreamingDestination",
		"ExecuteStatement", "ExecuteTransaction", "ExportTableToPointInTime", "GetItem", "GetResourcePolicy", "ImportTable",
		"ListBackups", "ListContributorInsights", "ListExports", "ListGlobalTables", "ListImports", "ListTables",
		"ListTagsOfResource", "PutItem", "PutResourcePolicy", "Query", "RestoreTableFromBackup",
		"RestoreTableToPointInTime", "Scan", "TagResource", "TransactGetItems", "TransactWriteItems", "UntagResource", "UpdateContinuousBackups",
		"UpdateContributorInsights", "UpdateGlobalTable", "UpdateGlobalTableSettings", "UpdateItem",
		"UpdateKinesisStreamingDestination", "UpdateTable", "UpdateTableReplicaAutoScaling", "UpdateTimeToLive",
	}
	streams := []string{"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"}
	sameOps(t, "DynamoDB", operations(), reference)
	sameOps(t, "DynamoDB Streams", streamOps, streams)
}

// sameOps fails t unless handlers has a handler for each name and no other.
func sameOps(t *testing.T, service string, handlers map[string]opFunc, names []string) {
	t.Helper()
	want := map[string]bool{}
	for _, name := range names {
		want[name] = true
		if handlers[name] == nil {
			t.Errorf("%s: %s has no handler", service, name)
		}
	}
	for name := range handlers {
		if !want[name] {
			t.Errorf("%s: %s is not an operation of the API reference", service, name)
		}
	}
}
