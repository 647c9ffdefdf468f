package api

import "testing"

// UpdateTable's documented validations, in DynamoDB's order. The member
// constraint texts, their order and the semantic refusals are those recorded
// from DynamoDB by dynalite's tests; TableName takes a name or an ARN
// (1 to 1,024 characters) since DynamoDB accepted table ARNs.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
func TestValidationUpdateTable(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "CreateTable", `{"TableName":"prov","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5},
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	const src = "https://github.com/mhart/dynalite/blob/master/test/updateTable.js"
	const gsiNull = "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"
	runValidations(t, e, "UpdateTable", []validation{
		{"no members", `{}`, n1("Value null at 'tableName' " + vNull), srcTableName},
		{"empty TableName", `{"TableName":""}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"bad TableName", `{"TableName":"abc;"}`, n1("Value 'abc;' at 'tableName' " + vPattern), src},
		{"empty ProvisionedThroughput", `{"TableName":"abc","ProvisionedThroughput":{}}`,
			"ValidationException: 2 validation errors detected: Value null at 'provisionedThroughput.writeCapacityUnits' " + vNull +
				"; Value null at 'provisionedThroughput.readCapacityUnits' " + vNull, src},
		{"low capacity", `{"TableName":"abc","ProvisionedThroughput":{"ReadCapacityUnits":-1,"WriteCapacityUnits":-1}}`,
			"ValidationException: 2 validation errors detected: Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1" +
				"; Value '-1' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", src},
		{"high read and low write", `{"TableName":"abc","ProvisionedThroughput":{"ReadCapacityUnits":1000000000001,"WriteCapacityUnits":-1}}`,
			n1("Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1"), src},
		{"high read", `{"TableName":"abc","ProvisionedThroughput":{"ReadCapacityUnits":1000000000001,"WriteCapacityUnits":1000000000001}}`,
			"ValidationException: Given value 1000000000001 for ReadCapacityUnits is out of bounds", src},
		{"high write", `{"TableName":"abc","ProvisionedThroughput":{"ReadCapacityUnits":1000000000000,"WriteCapacityUnits":1000000000001}}`,
			"ValidationException: Given value 1000000000001 for WriteCapacityUnits is out of bounds", src},
		{"empty GlobalSecondaryIndexUpdates", `{"TableName":"abc","GlobalSecondaryIndexUpdates":[]}`,
			"ValidationException: At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required", src},
		{"empty Update", `{"TableName":"abc","GlobalSecondaryIndexUpdates":[{"Update":{}}]}`,
			"ValidationException: 2 validation errors detected: Value null at 'globalSecondaryIndexUpdates.1.member.update.indexName' " + vNull +
				"; Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput' " + vNull, src},
		{"bad index updates", `{"TableName":"abc","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"a","ProvisionedThroughput":{}}},
			{"Update":{"IndexName":"abc;","ProvisionedThroughput":{"ReadCapacityUnits":1000000000001,"WriteCapacityUnits":0}}}]}`,
			"ValidationException: 5 validation errors detected: Value 'a' at 'globalSecondaryIndexUpdates.1.member.update.indexName' " + vMin3 +
				"; Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput.writeCapacityUnits' " + vNull +
				"; Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput.readCapacityUnits' " + vNull +
				"; Value 'abc;' at 'globalSecondaryIndexUpdates.2.member.update.indexName' " + vPattern +
				"; Value '0' at 'globalSecondaryIndexUpdates.2.member.update.provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1", src},
		{"empty index update", `{"TableName":"abc","GlobalSecondaryIndexUpdates":[{}]}`, "ValidationException: " + gsiNull, src},
		{"many empty index updates", `{"TableName":"abc","GlobalSecondaryIndexUpdates":[{},{},{},{},{},{}]}`, "ValidationException: " + gsiNull, src},
		{"repeated index updates", `{"TableName":"abc","GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"abc"}},{"Delete":{"IndexName":"abc"}}]}`,
			"ValidationException: One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: abc", src},
		{"throughput on PAY_PER_REQUEST", `{"TableName":"hash","ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`,
			"ValidationException: One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST", src},
		{"PROVISIONED without throughput", `{"TableName":"hash","BillingMode":"PROVISIONED"}`,
			"ValidationException: One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED", src},
		{"missing table", `{"TableName":"nope","ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`,
			"ResourceNotFoundException: Requested resource not found: Table: nope not found", src},
		{"missing table before index bounds", `{"TableName":"nope","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"abc","ProvisionedThroughput":{"ReadCapacityUnits":1000000000001,"WriteCapacityUnits":1000000000001}}}]}`,
			"ResourceNotFoundException: Requested resource not found: Table: nope not found", src},
		{"update of a missing index", `{"TableName":"prov","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"abc","ProvisionedThroughput":{"ReadCapacityUnits":1000000000001,"WriteCapacityUnits":1000000000001}}}]}`,
			"ValidationException: This operation cannot be performed with given input values. Please contact DynamoDB service team for more info: Action Blocked: IndexUpdate", src},
		{"unchanged throughput", `{"TableName":"prov","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`,
			"ValidationException: The provisioned throughput for the table will not change. The requested value equals the current value. " +
				"Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. " +
				"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", src},
		{"several index deletions", `{"TableName":"prov","GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"abc"}},{"Delete":{"IndexName":"abd"}}]}`,
			"LimitExceededException: Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table", src},
	})
}
