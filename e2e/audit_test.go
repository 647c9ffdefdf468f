package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
