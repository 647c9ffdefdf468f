package api

import (
	"strings"
	"testing"
)

// TagResource's, UntagResource's and ListTagsOfResource's documented
// validations, in DynamoDB's order: the member constraints first, then the
// resource ARN, then the tag list, then the table.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UntagResource.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTagsOfResource.html
func TestValidationTags(t *testing.T) {
	e := itemEngine(t)
	const (
		srcTag    = "https://github.com/mhart/dynalite/blob/master/test/tagResource.js"
		srcUntag  = "https://github.com/mhart/dynalite/blob/master/test/untagResource.js"
		srcList   = "https://github.com/mhart/dynalite/blob/master/test/listTagsOfResource.js"
		srcScylla = "https://github.com/scylladb/scylladb/blob/master/test/alternator/test_tag.py (test_tag_resource_incorrect, test_tag_lsi_gsi, test_tag_resource_subtly_incorrect_arn)"
		srcLimits = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html#TaggingRestrictions (key 1 to 128, value 0 to 256 characters)"
		arn       = "arn:aws:dynamodb:us-east-1:000000000000:table/hash"
		missing   = "arn:aws:dynamodb:us-east-1:000000000000:table/nope"
		other     = "arn:aws:dynamodb:us-east-1:000000000000:table/ab"
	)
	notArn := "ValidationException: Invalid TableArn: Invalid ResourceArn provided as input "
	runValidations(t, e, "TagResource", []validation{
		{"no members", `{}`, "ValidationException: Invalid TableArn", srcTag},
		{"no Tags", `{"ResourceArn":"a:b:c:d:e:f/g"}`, n1("Value null at 'tags' " + vNull), srcTag},
		{"not a DynamoDB ARN", `{"ResourceArn":"a:b:c:d:e:f/g","Tags":[]}`, "ValidationException: ARNs must start with 'arn:'", srcScylla},
		{"not an ARN", `{"ResourceArn":"I_do_not_exist","Tags":[{"Key":"7","Value":"8"}]}`, "ValidationException: ARNs must start with 'arn:'", srcScylla},
		{"another service", `{"ResourceArn":"arn:aws:s3:::bucket","Tags":[{"Key":"7","Value":"8"}]}`, notArn + "arn:aws:s3:::bucket", srcTag},
		{"table name too short", `{"ResourceArn":"` + other + `","Tags":[]}`, notArn + other, srcTag},
		{"index ARN", `{"ResourceArn":"` + arn + `/index/gsi","Tags":[{"Key":"k","Value":"v"}]}`,
			"ValidationException: One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource " + arn + "/index/gsi", srcScylla},
		{"empty Tags", `{"ResourceArn":"` + arn + `","Tags":[]}`, "ValidationException: Atleast one Tag needs to be provided as Input.", srcTag},
		{"empty Tags before the table", `{"ResourceArn":"` + missing + `","Tags":[]}`, "ValidationException: Atleast one Tag needs to be provided as Input.", srcTag},
		{"missing table", `{"ResourceArn":"` + missing + `","Tags":[{"Key":"a","Value":"b"}]}`,
			"ResourceNotFoundException: Requested resource not found: ResourcArn: " + missing + " not found", srcTag},
		{"tag member nulls", `{"ResourceArn":"` + arn + `","Tags":[{}]}`,
			"ValidationException: 2 validation errors detected: Value null at 'tags.1.member.key' " + vNull + "; Value null at 'tags.1.member.value' " + vNull, srcLimits},
		{"empty key", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"","Value":"v"}]}`,
			n1("Value '' at 'tags.1.member.key' " + vEmptyList), srcLimits},
		{"long key in characters", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"` + strings.Repeat("é", 129) + `","Value":"v"}]}`,
			n1("Value '" + strings.Repeat("é", 129) + "' at 'tags.1.member.key' failed to satisfy constraint: Member must have length less than or equal to 128"), srcLimits},
		{"long value in characters", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"k","Value":"` + strings.Repeat("é", 257) + `"}]}`,
			n1("Value '" + strings.Repeat("é", 257) + "' at 'tags.1.member.value' failed to satisfy constraint: Member must have length less than or equal to 256"), srcLimits},
	})
	runValidations(t, e, "UntagResource", []validation{
		{"no members", `{}`, "ValidationException: Invalid TableArn", srcUntag},
		{"no TagKeys", `{"ResourceArn":"a:b:c:d:e:f/g"}`, n1("Value null at 'tagKeys' " + vNull), srcUntag},
		{"not an ARN", `{"ResourceArn":"abcd","TagKeys":["a"]}`, "ValidationException: ARNs must start with 'arn:'", srcScylla},
		{"table name too short", `{"ResourceArn":"` + other + `","TagKeys":[]}`, notArn + other, srcUntag},
		{"empty TagKeys", `{"ResourceArn":"` + arn + `","TagKeys":[]}`, "ValidationException: Atleast one Tag Key needs to be provided as Input.", srcUntag},
		{"empty TagKeys before the table", `{"ResourceArn":"` + missing + `","TagKeys":[]}`, "ValidationException: Atleast one Tag Key needs to be provided as Input.", srcUntag},
		{"missing table", `{"ResourceArn":"` + missing + `","TagKeys":["a"]}`, "ResourceNotFoundException: Requested resource not found", srcUntag},
	})
	runValidations(t, e, "ListTagsOfResource", []validation{
		{"no members", `{}`, "ValidationException: Invalid TableArn", srcList},
		{"not an ARN", `{"ResourceArn":"abcd"}`, "ValidationException: ARNs must start with 'arn:'", srcScylla},
		{"not a DynamoDB ARN", `{"ResourceArn":"arn:b:c:d:e:f/g"}`, notArn + "arn:b:c:d:e:f/g", srcList},
		{"table name too short", `{"ResourceArn":"` + other + `"}`, notArn + other, srcList},
		{"missing table", `{"ResourceArn":"` + missing + `"}`, "ResourceNotFoundException: Requested resource not found: ResourcArn: " + missing + " not found", srcList},
	})
}

// UpdateTimeToLive's and DescribeTimeToLive's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html
func TestValidationTimeToLive(t *testing.T) {
	e := itemEngine(t)
	const (
		srcDescribe = "https://github.com/mhart/dynalite/blob/master/test/describeTimeToLive.js"
		srcUpdate   = "https://github.com/scylladb/scylladb/blob/master/test/alternator/test_ttl.py (test_update_ttl_errors, test_ttl_enable_error)"
	)
	runValidations(t, e, "DescribeTimeToLive", []validation{
		{"no members", `{}`, n1("Value null at 'tableName' " + vNull), srcTableName},
		{"empty TableName", `{"TableName":""}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"bad TableName", `{"TableName":"abc;"}`, n1("Value 'abc;' at 'tableName' " + vPattern), srcDescribe},
		{"missing table", `{"TableName":"nope"}`, "ResourceNotFoundException: Requested resource not found: Table: nope not found", srcDescribe},
		{"missing table by ARN", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/nope"}`, "ResourceNotFoundException: Requested resource not found: Table: nope not found", srcTableName},
	})
	spec := func(s string) string { return `{"TableName":"hash","TimeToLiveSpecification":` + s + `}` }
	runValidations(t, e, "UpdateTimeToLive", []validation{
		{"no members", `{}`, "ValidationException: 2 validation errors detected: Value null at 'tableName' " + vNull + "; Value null at 'timeToLiveSpecification' " + vNull, srcUpdate},
		{"empty specification", spec(`{}`),
			"ValidationException: 2 validation errors detected: Value null at 'timeToLiveSpecification.enabled' " + vNull +
				"; Value null at 'timeToLiveSpecification.attributeName' " + vNull, srcUpdate},
		{"empty AttributeName", spec(`{"AttributeName":"","Enabled":true}`),
			n1("Value '' at 'timeToLiveSpecification.attributeName' " + vEmptyList), srcUpdate},
		{"long AttributeName", spec(`{"AttributeName":"` + strings.Repeat("x", 256) + `","Enabled":true}`),
			n1("Value '" + strings.Repeat("x", 256) + "' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255"), srcUpdate},
		{"missing table", `{"TableName":"nope","TimeToLiveSpecification":{"AttributeName":"e","Enabled":true}}`,
			"ResourceNotFoundException: Requested resource not found: Table: nope not found", srcUpdate},
		{"disable while disabled", spec(`{"AttributeName":"e","Enabled":false}`), "ValidationException: TimeToLive is already disabled", srcUpdate},
	})
}
