package e2e

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestAuditControlPlane asserts, through a real server, the control-plane
// answers the per-operation validation tables of internal/api
// (validation_*_test.go) brought in line with DynamoDB. Raw requests carry
// what the SDK would refuse before sending.
func TestAuditControlPlane(t *testing.T) {
	s, c := startClient(t)
	name := tableName("audit")
	createHashTable(t, c, name, "S")
	arn := tableArn(name)
	missing := tableArn("nosuchtable")

	// architect/dynalite test/tagResource.js, test/untagResource.js and
	// test/listTagsOfResource.js, recorded from DynamoDB: a request without
	// a ResourceArn is "Invalid TableArn" before any member constraint; an
	// empty tag list is refused before the table is looked up; and
	// UntagResource names no ARN when the table is missing.
	for _, op := range []string{"TagResource", "UntagResource", "ListTagsOfResource"} {
		wantRawError(t, callRaw(t, s.Endpoint, op, `{}`), "ValidationException", "Invalid TableArn")
	}
	_, err := c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(missing), Tags: []types.Tag{}})
	wantAPIError(t, err, "ValidationException", "Atleast one Tag needs to be provided as Input.")
	_, err = c.UntagResource(ctxT(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(missing), TagKeys: []string{}})
	wantAPIError(t, err, "ValidationException", "Atleast one Tag Key needs to be provided as Input.")
	_, err = c.UntagResource(ctxT(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(missing), TagKeys: []string{"a"}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	_, err = c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(missing), Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: ResourcArn: "+missing+" not found")
	// A stream ARN under a table is not a table ARN.
	_, err = c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn + "/stream/2020-01-01T00:00:00.000")})
	wantAPIError(t, err, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input "+arn+"/stream/2020-01-01T00:00:00.000")

	// architect/dynalite test/createTable.js, recorded from DynamoDB: more
	// key elements than attribute definitions is refused before the names
	// are compared.
	_, err = c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{TableName: aws.String(tableName("audit")),
		AttributeDefinitions: []types.AttributeDefinition{}, KeySchema: keySchema("a"), BillingMode: types.BillingModePayPerRequest})
	wantAPIError(t, err, "ValidationException", "Invalid KeySchema: Some index key attribute have no definition")
	_, err = c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{TableName: aws.String(tableName("audit")),
		AttributeDefinitions: attrDefs("a", "S"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}},
		BillingMode: types.BillingModePayPerRequest})
	wantAPIError(t, err, "ValidationException", "Invalid KeySchema: Some index key attribute have no definition")
}

// TestAuditAttributeNames asserts the attribute-name limits (1 to 65,535
// bytes, at every depth) through a real server. The over-long answer was
// measured against DynamoDB (https://github.com/ExtendDB/extenddb/issues/365);
// the empty one follows DynamoDB Local's error table and scylladb's
// test_limit_attribute_length_nonkey_empty, run against DynamoDB.
func TestAuditAttributeNames(t *testing.T) {
	_, c := startClient(t)
	name := tableName("names")
	createHashTable(t, c, name, "S")
	long := strings.Repeat("n", 65536)
	const tooLarge = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
	for _, it := range []map[string]types.AttributeValue{
		{"pk": avS("a"), long: avN("1")},
		{"pk": avS("a"), "doc": avM(map[string]types.AttributeValue{long: avN("1")})},
	} {
		_, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: it})
		wantAPIError(t, err, "ValidationException", tooLarge)
	}
	_, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": avS("a"), "": avN("1")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Empty attribute name")
	_, err = c.UpdateItem(ctxT(t), &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": avS("a")},
		UpdateExpression: aws.String("SET #n = :v"), ExpressionAttributeNames: map[string]string{"#n": long},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": avN("1")}})
	wantAPIError(t, err, "ValidationException", tooLarge)
	_, err = c.UpdateItem(ctxT(t), &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": avS("a")},
		AttributeUpdates: map[string]types.AttributeValueUpdate{long: {Action: types.AttributeActionPut, Value: avN("1")}}})
	wantAPIError(t, err, "ValidationException", tooLarge)
	// Nothing was written.
	out, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"pk": avS("a")}, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item != nil {
		t.Fatalf("GetItem after refused writes: %v %v", out.Item, err)
	}
	// 65,535 bytes is the longest name accepted.
	max := strings.Repeat("n", 65535)
	if _, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": avS("a"), max: avN("1")}}); err != nil {
		t.Fatal(err)
	}
}

// TestAuditAttributeDefinitions asserts that DescribeTable's
// AttributeDefinitions are exactly the key attributes of the table and its
// indexes, as DynamoDB keeps them: an unused definition given with a new
// index is dropped, a deleted index's key attributes leave with it, and a
// new index must have its key attributes defined in the request itself.
// https://github.com/paritysuite/dynamodb-conformance/issues/79 and
// https://github.com/nubo-db/dynoxide/issues/144 (observed on DynamoDB).
func TestAuditAttributeDefinitions(t *testing.T) {
	_, c := startClient(t)
	name := tableName("defs")
	createHashTable(t, c, name, "S")
	defs := func() string {
		var names []string
		for _, d := range describe(t, c, name).AttributeDefinitions {
			names = append(names, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
		}
		return strings.Join(names, ",")
	}
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
		AttributeDefinitions:        attrDefs("g", "S", "unused", "N"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createGSIUpdate("byG", "g")}}); err != nil {
		t.Fatal(err)
	}
	if got := defs(); got != "pk:S,g:S" {
		t.Fatalf("AttributeDefinitions after adding byG: %s", got)
	}
	waitIndex(t, c, name, "byG", false)
	_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
		AttributeDefinitions:        attrDefs("x", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createGSIUpdate("byPk", "pk")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [pk], AttributeDefinitions: [x]")
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}}}}); err != nil {
		t.Fatal(err)
	}
	waitIndex(t, c, name, "byG", true)
	if got := defs(); got != "pk:S" {
		t.Fatalf("AttributeDefinitions after deleting byG: %s", got)
	}
}

// TestAuditShardIteratorSequenceNumber asserts that GetShardIterator
// refuses a SequenceNumber with TRIM_HORIZON or LATEST, as DynamoDB
// Streams does (scylladb's test_get_shard_iterator, run against DynamoDB:
// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_streams.py);
// the words are extenddb's (docs/differences-from-dynamodb.md).
func TestAuditShardIteratorSequenceNumber(t *testing.T) {
	s, c := startClient(t)
	arn := createStreamTable(t, c, tableName("seq"), types.StreamViewTypeKeysOnly)
	sc := newStreamsClient(t, s.Endpoint)
	d, err := sc.DescribeStream(ctxT(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil || len(d.StreamDescription.Shards) == 0 {
		t.Fatalf("DescribeStream: %v", err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	for _, typ := range []stypes.ShardIteratorType{stypes.ShardIteratorTypeTrimHorizon, stypes.ShardIteratorTypeLatest} {
		_, err := sc.GetShardIterator(ctxT(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
			ShardIteratorType: typ, SequenceNumber: aws.String(strings.Repeat("1", 21))})
		wantAPIError(t, err, "ValidationException", "SequenceNumber cannot be specified when using ShardIteratorType "+string(typ))
	}
}
