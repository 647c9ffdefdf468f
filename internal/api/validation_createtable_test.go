package api

import "testing"

// CreateTable's documented validations, in DynamoDB's order: member
// constraints (reported together), then billing and capacity, then the key
// schema against the attribute definitions, then the indexes.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html
func TestValidationCreateTable(t *testing.T) {
	e := itemEngine(t)
	const src = "https://github.com/mhart/dynalite/blob/master/test/createTable.js"
	const (
		ab   = `"AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"},{"AttributeName":"b","AttributeType":"S"}]`
		hr   = `"KeySchema":[{"KeyType":"HASH","AttributeName":"a"},{"KeyType":"RANGE","AttributeName":"b"}]`
		ppr  = `"BillingMode":"PAY_PER_REQUEST"`
		prov = `"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}`
	)
	runValidations(t, e, "CreateTable", []validation{
		{"no members", `{}`, "ValidationException: 3 validation errors detected: Value null at 'attributeDefinitions' " + vNull +
			"; Value null at 'tableName' " + vNull + "; Value null at 'keySchema' " + vNull, src},
		{"bad TableName", `{"TableName":"abc;"}`, "ValidationException: 3 validation errors detected: Value null at 'attributeDefinitions' " + vNull +
			"; Value 'abc;' at 'tableName' " + vPattern + "; Value null at 'keySchema' " + vNull, src},
		// dynalite asserts these sets in any order; DynamoDB's order for
		// them is not recorded, and extenddb lists them in the API
		// reference's member order (docs/differences-from-dynamodb.md).
		{"empty ProvisionedThroughput", `{"TableName":"abc","AttributeDefinitions":[],"ProvisionedThroughput":{},` + ppr + `}`,
			"ValidationException: 3 validation errors detected: Value null at 'keySchema' " + vNull + "; Value null at 'provisionedThroughput.writeCapacityUnits' " + vNull +
				"; Value null at 'provisionedThroughput.readCapacityUnits' " + vNull, src},
		{"bad BillingMode and capacity", `{"TableName":"abc","AttributeDefinitions":[],"KeySchema":[],"ProvisionedThroughput":{"ReadCapacityUnits":-1,"WriteCapacityUnits":-1},"BillingMode":"A"}`,
			"ValidationException: 4 validation errors detected: Value '[]' at 'keySchema' " + vEmptyList +
				"; Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1" +
				"; Value '-1' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1" +
				"; Value 'A' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", src},
		{"no capacity", `{"TableName":"abc","AttributeDefinitions":[],"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}]}`,
			"ValidationException: One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED", src},
		{"capacity with PAY_PER_REQUEST", `{"TableName":"abc","AttributeDefinitions":[],"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],` + prov + `,` + ppr + `}`,
			"ValidationException: One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST", src},
		{"high read capacity", `{"TableName":"abc","AttributeDefinitions":[],"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],"ProvisionedThroughput":{"ReadCapacityUnits":1000000000001,"WriteCapacityUnits":1000000000001}}`,
			"ValidationException: Given value 1000000000001 for ReadCapacityUnits is out of bounds", src},
		{"more keys than definitions", `{"TableName":"abc","AttributeDefinitions":[],"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],` + ppr + `}`,
			"ValidationException: Invalid KeySchema: Some index key attribute have no definition", src},
		{"two keys of one definition", `{"TableName":"abc","AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"}],"KeySchema":[{"KeyType":"HASH","AttributeName":"a"},{"KeyType":"HASH","AttributeName":"a"}],` + prov + `}`,
			"ValidationException: Invalid KeySchema: Some index key attribute have no definition", src},
		{"undefined key", `{"TableName":"abc","AttributeDefinitions":[{"AttributeName":"b","AttributeType":"S"}],"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]", src},
		{"hash and range of one name", `{"TableName":"abc",` + ab + `,"KeySchema":[{"KeyType":"HASH","AttributeName":"a"},{"KeyType":"HASH","AttributeName":"a"}],` + prov + `}`,
			"ValidationException: Both the Hash Key and the Range Key element in the KeySchema have the same name", src},
		{"second key not RANGE", `{"TableName":"abc",` + ab + `,"KeySchema":[{"KeyType":"HASH","AttributeName":"a"},{"KeyType":"HASH","AttributeName":"b"}],` + prov + `}`,
			"ValidationException: Invalid KeySchema: The second KeySchemaElement is not a RANGE key type", src},
		{"first key not HASH", `{"TableName":"abc",` + ab + `,"KeySchema":[{"KeyType":"RANGE","AttributeName":"a"},{"KeyType":"HASH","AttributeName":"b"}],` + prov + `}`,
			"ValidationException: Invalid KeySchema: The first KeySchemaElement is not a HASH key type", src},
		{"extra definition", `{"TableName":"abc",` + ab + `,"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions", src},
		{"empty LocalSecondaryIndexes", `{"TableName":"abc",` + ab + `,"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],"LocalSecondaryIndexes":[],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: List of LocalSecondaryIndexes is empty", src},
		{"LSI without table range key", `{"TableName":"abc",` + ab + `,"KeySchema":[{"KeyType":"HASH","AttributeName":"a"}],"LocalSecondaryIndexes":[{"IndexName":"abc","KeySchema":[{"AttributeName":"c","KeyType":"RANGE"}],"Projection":{}}],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex", src},
		{"LSI without range key", `{"TableName":"abc",` + ab + `,` + hr + `,"LocalSecondaryIndexes":[{"IndexName":"abc","KeySchema":[{"AttributeName":"b","KeyType":"HASH"}],"Projection":{}}],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: Index KeySchema does not have a range key for index: abc", src},
		{"LSI of another hash key", `{"TableName":"abc",` + ab + `,` + hr + `,"LocalSecondaryIndexes":[{"IndexName":"abc","KeySchema":[{"AttributeName":"b","KeyType":"HASH"},{"AttributeName":"a","KeyType":"RANGE"}],"Projection":{}}],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: abc. index hash key: b, table hash key: a", src},
		{"LSI without ProjectionType", `{"TableName":"abc",` + ab + `,` + hr + `,"LocalSecondaryIndexes":[{"IndexName":"abc","KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"RANGE"}],"Projection":{}}],` + prov + `}`,
			"ValidationException: One or more parameter values were invalid: Unknown ProjectionType: null", src},
		{"table exists", `{"TableName":"hash","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],` + ppr + `}`,
			"ResourceInUseException: Table already exists: hash", src},
	})
}
