package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// The DynamoDB Streams operations' documented validations: member
// constraints first (StreamArn 37 to 1,024 characters, ShardId 28 to 65,
// SequenceNumber 21 to 40, ShardIterator 1 to 2,048, the Limit ranges),
// then the ARN's form, then the stream.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ListStreams.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html
func TestValidationStreams(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "CreateTable", `{"TableName":"streamed","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}}`)
	out, _ := call(e, "DescribeTable", `{"TableName":"streamed"}`)
	var d struct {
		Table struct{ LatestStreamArn string }
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Table.LatestStreamArn == "" {
		t.Fatalf("DescribeTable: %s", out)
	}
	arn := d.Table.LatestStreamArn
	out, _ = callService(e, "DynamoDBStreams", "DescribeStream", `{"StreamArn":"`+arn+`"}`)
	var ds struct {
		StreamDescription struct{ Shards []struct{ ShardId string } }
	}
	if err := json.Unmarshal([]byte(out), &ds); err != nil || len(ds.StreamDescription.Shards) != 1 {
		t.Fatalf("DescribeStream: %s", out)
	}
	shard := ds.StreamDescription.Shards[0].ShardId
	const srcScyllaIterator = "https://github.com/scylladb/scylladb/blob/master/test/alternator/test_streams.py (test_get_shard_iterator; the words are extenddb's)"
	seq := strings.Repeat("1", 21)
	missing := strings.Replace(arn, "table/streamed/", "table/nope/", 1)
	const (
		srcList     = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ListStreams.html"
		srcDescribe = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html"
		srcIterator = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html"
		srcRecords  = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html"
		srcInvalid  = "https://github.com/amazon-archives/logstash-input-dynamodb/issues/18 (Invalid StreamArn, quoted from DynamoDB Streams)"
	)
	short := "arn:aws:dynamodb:us-east-1:0:table/x"
	runServiceValidations(t, e, "DynamoDBStreams", "ListStreams", []validation{
		{"low Limit", `{"Limit":0}`, n1("Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"), srcList},
		{"high Limit", `{"Limit":101}`, n1("Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"), srcList},
		{"short ExclusiveStartStreamArn", `{"ExclusiveStartStreamArn":"` + short + `"}`,
			n1("Value '" + short + "' at 'exclusiveStartStreamArn' failed to satisfy constraint: Member must have length greater than or equal to 37"), srcList},
		{"missing table", `{"TableName":"nope"}`, "ResourceNotFoundException: Requested resource not found: Table: nope not found", srcList},
	})
	runServiceValidations(t, e, "DynamoDBStreams", "DescribeStream", []validation{
		{"no members", `{}`, n1("Value null at 'streamArn' " + vNull), srcDescribe},
		{"short StreamArn", `{"StreamArn":"` + short + `"}`,
			n1("Value '" + short + "' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37"), srcDescribe},
		{"not a stream ARN", `{"StreamArn":"arn:aws:dynamodb:us-east-1:000000000000:table/streamed"}`, "ValidationException: Invalid StreamArn", srcInvalid},
		{"missing stream", `{"StreamArn":"` + missing + `"}`, "ResourceNotFoundException: Requested resource not found: Stream: " + missing + " not found", srcDescribe},
	})
	runServiceValidations(t, e, "DynamoDBStreams", "GetShardIterator", []validation{
		{"no members", `{}`, "ValidationException: 3 validation errors detected: Value null at 'streamArn' " + vNull +
			"; Value null at 'shardId' " + vNull + "; Value null at 'shardIteratorType' " + vNull, srcIterator},
		{"bad type", `{"StreamArn":"` + arn + `","ShardId":"shardId-00000000000000000000-00000000","ShardIteratorType":"FIRST"}`,
			n1("Value 'FIRST' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]"), srcIterator},
		{"short ShardId", `{"StreamArn":"` + arn + `","ShardId":"shard","ShardIteratorType":"LATEST"}`,
			n1("Value 'shard' at 'shardId' failed to satisfy constraint: Member must have length greater than or equal to 28"), srcIterator},
		{"not a stream ARN", `{"StreamArn":"arn:aws:dynamodb:us-east-1:000000000000:table/streamed","ShardId":"shardId-00000000000000000000-00000000","ShardIteratorType":"LATEST"}`,
			"ValidationException: Invalid StreamArn", srcInvalid},
		{"SequenceNumber with LATEST", `{"StreamArn":"` + arn + `","ShardId":"` + shard + `","ShardIteratorType":"LATEST","SequenceNumber":"` + seq + `"}`,
			"ValidationException: SequenceNumber cannot be specified when using ShardIteratorType LATEST", srcScyllaIterator},
		{"SequenceNumber with TRIM_HORIZON", `{"StreamArn":"` + arn + `","ShardId":"` + shard + `","ShardIteratorType":"TRIM_HORIZON","SequenceNumber":"` + seq + `"}`,
			"ValidationException: SequenceNumber cannot be specified when using ShardIteratorType TRIM_HORIZON", srcScyllaIterator},
		{"no SequenceNumber with AT_SEQUENCE_NUMBER", `{"StreamArn":"` + arn + `","ShardId":"` + shard + `","ShardIteratorType":"AT_SEQUENCE_NUMBER"}`,
			"ValidationException: Must specify SequenceNumber when using ShardIteratorType AT_SEQUENCE_NUMBER", srcScyllaIterator},
		{"missing shard", `{"StreamArn":"` + arn + `","ShardId":"shardId-00000000000000000000-00000000","ShardIteratorType":"LATEST"}`,
			"ResourceNotFoundException: Requested resource not found: Shard does not exist", srcIterator},
	})
	runServiceValidations(t, e, "DynamoDBStreams", "GetRecords", []validation{
		{"no members", `{}`, n1("Value null at 'shardIterator' " + vNull), srcRecords},
		{"high Limit", `{"ShardIterator":"x","Limit":1001}`,
			n1("Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000"), srcRecords},
		{"garbage iterator", `{"ShardIterator":"x"}`, "ValidationException: Invalid ShardIterator", srcRecords},
	})
}
