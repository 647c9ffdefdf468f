package api

import (
	"fmt"
	"strings"
	"testing"
)

// Query's documented validations, in DynamoDB's order.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
func TestValidationQuery(t *testing.T) {
	e := itemEngine(t)
	runValidations(t, e, "Query", []validation{
		{"no members", `{}`, n1("Value null at 'tableName' " + vNull), srcQuery},
		{"empty TableName", `{"TableName":""}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"short IndexName", `{"TableName":"abc","IndexName":"a;"}`,
			"ValidationException: 2 validation errors detected: Value 'a;' at 'indexName' " + vPattern + "; Value 'a;' at 'indexName' " + vMin3, srcQuery},
		{"incorrect attributes", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[],"IndexName":"abc;","Select":"hi","Limit":-1,"KeyConditions":{"a":{},"b":{}},"QueryFilter":{"a":{},"b":{}}}`,
			"ValidationException: 10 validation errors detected: Value '-1' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; " +
				"Value 'hi' at 'returnConsumedCapacity' " + vRCC + "; Value '[]' at 'attributesToGet' " + vEmptyList + "; " +
				"Value null at 'queryFilter.b.member.comparisonOperator' " + vNull + "; Value null at 'queryFilter.a.member.comparisonOperator' " + vNull + "; " +
				"Value 'hi' at 'select' " + vSelect + "; " +
				"Value null at 'keyConditions.b.member.comparisonOperator' " + vNull + "; Value null at 'keyConditions.a.member.comparisonOperator' " + vNull + "; " +
				"Value 'abc;' at 'tableName' " + vPattern + "; Value 'abc;' at 'indexName' " + vPattern, srcQuery},
		{"no key condition", `{"TableName":"abc"}`, "ValidationException: Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.", srcQuery},
		{"expression and non-expression", `{"TableName":"abc","KeyConditions":{"a":{"ComparisonOperator":"NULL"}},"KeyConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"a"}}}`,
			"ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}", srcQuery},
		{"ALL_ATTRIBUTES with AttributesToGet", `{"TableName":"abc","Select":"ALL_ATTRIBUTES","AttributesToGet":["a"]}`,
			n1("Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"), srcQuery},
		{"missing table", `{"TableName":"nope","KeyConditionExpression":"pk = :a","ExpressionAttributeValues":{":a":{"S":"a"}}}`, "ResourceNotFoundException: Requested resource not found", srcQuery},
	})
}

// Scan's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
func TestValidationScan(t *testing.T) {
	e := itemEngine(t)
	runValidations(t, e, "Scan", []validation{
		{"no members", `{}`, n1("Value null at 'tableName' " + vNull), srcScan},
		{"long TableName", `{"TableName":"` + strings.Repeat("a", 256) + `"}`, n1("Value '" + strings.Repeat("a", 256) + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"), srcScan},
		{"expression and non-expression", `{"TableName":"abc","ScanFilter":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[{}]}},"Segment":1,"Limit":1,"AttributesToGet":["a","a"],"ExclusiveStartKey":{"a":{}},"ConditionalOperator":"OR","Select":"SPECIFIC_ATTRIBUTES","FilterExpression":"","ProjectionExpression":"","ExpressionAttributeNames":{},"ExpressionAttributeValues":{}}`,
			"ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, ScanFilter, ConditionalOperator} Expression parameters: {ProjectionExpression, FilterExpression}", srcScan},
		{"names without expressions", `{"TableName":"abc","Segment":1,"Limit":1,"ConditionalOperator":"OR","Select":"SPECIFIC_ATTRIBUTES","AttributesToGet":["a","a"],"ExpressionAttributeNames":{},"ExpressionAttributeValues":{}}`,
			"ValidationException: ExpressionAttributeNames can only be specified when using expressions", srcScan},
		{"values without expressions", `{"TableName":"abc","Segment":1,"AttributesToGet":["a","a"],"ExpressionAttributeValues":{}}`,
			"ValidationException: ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null", srcScan},
		{"duplicate AttributesToGet", `{"TableName":"abc","Segment":1,"ScanFilter":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}},"AttributesToGet":["a","a"]}`,
			"ValidationException: One or more parameter values were invalid: Duplicate value in attribute name: a", srcScan},
		{"Segment without TotalSegments", `{"TableName":"hash","Segment":1}`,
			"ValidationException: The TotalSegments parameter is required but was not present in the request when Segment parameter is present", srcScan},
		{"Segment not below TotalSegments", `{"TableName":"hash","Segment":1,"TotalSegments":1}`,
			"ValidationException: The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1", srcScan},
		{"missing table", `{"TableName":"nope"}`, "ResourceNotFoundException: Requested resource not found", srcScan},
	})
}

// BatchGetItem's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func TestValidationBatchGetItem(t *testing.T) {
	e := itemEngine(t)
	keys := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"pk":{"S":"k%d"}}`, i)
		}
		return strings.Join(parts, ",")
	}
	runValidations(t, e, "BatchGetItem", []validation{
		{"no members", `{}`, n1("Value null at 'requestItems' " + vNull), "https://github.com/mhart/dynalite/blob/master/test/batchGetItem.js"},
		{"empty RequestItems", `{"RequestItems":{}}`, n1("Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"),
			"https://github.com/nubo-db/dynoxide/pull/198 (captured from DynamoDB in 32 of 33 regions)"},
		{"empty Keys", `{"RequestItems":{"hash":{"Keys":[]}}}`, n1("Value at 'RequestItems.hash.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1"),
			"https://github.com/nubo-db/dynoxide/pull/198"},
		{"over 100 keys for a table", `{"RequestItems":{"hash":{"Keys":[` + keys(101) + `]}}}`,
			n1("Value at 'RequestItems.hash.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"), "https://github.com/getmoto/moto/issues/3046"},
		{"over 100 keys in all", `{"RequestItems":{"hash":{"Keys":[` + keys(60) + `]},"range":{"Keys":[` + keys(41) + `]}}}`,
			"ValidationException: Too many items requested for the BatchGetItem call", "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html"},
		{"projection families mixed across tables", `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"a"}}],"ProjectionExpression":"pk"},"range":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"AttributesToGet":["pk"]}}}`,
			"ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
			"https://github.com/ExtendDB/extenddb/pull/178 (captured from DynamoDB with the AWS CLI)"},
		{"duplicate keys", `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"a"}},{"pk":{"S":"a"}}]}}}`, "ValidationException: Provided list of item keys contains duplicates",
			"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html"},
		{"missing table", `{"RequestItems":{"nope":{"Keys":[{"pk":{"S":"a"}}]}}}`, "ResourceNotFoundException: Requested resource not found", "https://github.com/mhart/dynalite/blob/master/test/batchGetItem.js"},
	})
}

// BatchWriteItem's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func TestValidationBatchWriteItem(t *testing.T) {
	e := itemEngine(t)
	runValidations(t, e, "BatchWriteItem", []validation{
		{"no members", `{}`, n1("Value null at 'requestItems' " + vNull), "https://github.com/mhart/dynalite/blob/master/test/batchWriteItem.js"},
		{"empty RequestItems", `{"RequestItems":{}}`, "ValidationException: The requestItems parameter is required for BatchWriteItem",
			"https://github.com/nubo-db/dynoxide/issues/17; https://github.com/nubo-db/dynoxide/pull/198 (BatchWriteItem keeps its sentence)"},
		{"empty request list", `{"RequestItems":{"hash":[]}}`, "ValidationException: The batch write request list for a table cannot be null or empty: hash",
			"https://github.com/mhart/dynalite/blob/master/validations/batchWriteItem.js"},
		{"wrong-typed key", `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"N":"1"}}}}]}}`, "ValidationException: The provided key element does not match the schema",
			"https://github.com/nubo-db/dynoxide/pull/101 (captured in eu-west-2)"},
		{"non-scalar key", `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"L":[]}}}}]}}`, "ValidationException: The provided key element does not match the schema",
			"https://github.com/nubo-db/dynoxide/pull/101"},
		{"missing key", `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"x":{"S":"a"}}}}]}}`, "ValidationException: The provided key element does not match the schema",
			"https://github.com/floci-io/floci/pull/3227"},
		{"empty key value keeps its words", `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":""}}}}]}}`,
			"ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk",
			"https://github.com/nubo-db/dynoxide/pull/101 (the empty-string table-key message already matched)"},
		{"duplicate items", `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}`,
			"ValidationException: Provided list of item keys contains duplicates", "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html"},
		{"missing table", `{"RequestItems":{"nope":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]}}`, "ResourceNotFoundException: Requested resource not found",
			"https://github.com/mhart/dynalite/blob/master/test/batchWriteItem.js"},
	})
}

// BatchGetItem echoes RequestItems as JSON when a table name is malformed.
func TestValidationBatchGetItemTableNames(t *testing.T) {
	e := itemEngine(t)
	runValidations(t, e, "BatchGetItem", []validation{
		{"malformed table name", `{"RequestItems":{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}}`,
			n1(`Value '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]`),
			"https://github.com/paritysuite/dynamodb-conformance/blob/main/tests/tier3/error-messages/batchGetItem.test.ts (captured in us-east-1 and eu-west-2)"},
	})
}
