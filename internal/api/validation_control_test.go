package api

import (
	"strings"
	"testing"
)

// ListTables' documented validations, in DynamoDB's order.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html
func TestValidationListTables(t *testing.T) {
	e := itemEngine(t)
	const src = "https://github.com/mhart/dynalite/blob/master/test/listTables.js"
	runValidations(t, e, "ListTables", []validation{
		{"in order", `{"ExclusiveStartTableName":"a;","Limit":500}`,
			"ValidationException: 3 validation errors detected: Value '500' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100; " +
				"Value 'a;' at 'exclusiveStartTableName' " + vPattern + "; Value 'a;' at 'exclusiveStartTableName' " + vMin3, src},
		{"empty ExclusiveStartTableName", `{"ExclusiveStartTableName":""}`,
			"ValidationException: 2 validation errors detected: Value '' at 'exclusiveStartTableName' " + vPattern + "; Value '' at 'exclusiveStartTableName' " + vMin3, src},
		{"long ExclusiveStartTableName", `{"ExclusiveStartTableName":"` + strings.Repeat("a", 256) + `"}`,
			n1("Value '" + strings.Repeat("a", 256) + "' at 'exclusiveStartTableName' failed to satisfy constraint: Member must have length less than or equal to 255"), src},
		{"low Limit", `{"Limit":0}`, n1("Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"), src},
		{"high Limit", `{"Limit":101}`, n1("Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"), src},
	})
}

// DescribeTable's and DeleteTable's documented validations. Both accept a
// table ARN in TableName.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html
func TestValidationDescribeAndDeleteTable(t *testing.T) {
	e := itemEngine(t)
	for _, op := range []string{"DescribeTable", "DeleteTable"} {
		src := "https://github.com/mhart/dynalite/blob/master/test/" + strings.ToLower(op[:1]) + op[1:] + ".js"
		runValidations(t, e, op, []validation{
			{"no members", `{}`, n1("Value null at 'tableName' " + vNull), src},
			{"empty TableName", `{"TableName":""}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
			{"short TableName", `{"TableName":"a;"}`, "ValidationException: 2 validation errors detected: Value 'a;' at 'tableName' " + vPattern + "; Value 'a;' at 'tableName' " + vMin3, src},
			{"missing table", `{"TableName":"nope"}`, "ResourceNotFoundException: Requested resource not found: Table: nope not found", src},
			{"missing table by ARN", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/nope"}`, "ResourceNotFoundException: Requested resource not found: Table: nope not found", srcTableName},
		})
	}
}
