package api

import (
	"fmt"
	"strings"
	"testing"
)

// GetItem's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
func TestValidationGetItem(t *testing.T) {
	e := itemEngine(t)
	runValidations(t, e, "GetItem", []validation{
		{"no members", `{}`, "ValidationException: 2 validation errors detected: Value null at 'key' " + vNull + "; Value null at 'tableName' " + vNull, srcGetItem},
		{"empty TableName", `{"TableName":"","Key":{"pk":{"S":"a"}}}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"incorrect attributes", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[]}`,
			"ValidationException: 4 validation errors detected: Value '[]' at 'attributesToGet' " + vEmptyList + "; Value 'hi' at 'returnConsumedCapacity' " + vRCC +
				"; Value null at 'key' " + vNull + "; Value 'abc;' at 'tableName' " + vPattern, srcGetItem},
		{"expression and non-expression", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributesToGet":["a"],"ProjectionExpression":"a"}`,
			"ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}", srcGetItem},
		{"names without expression", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ExpressionAttributeNames":{"#a":"a"}}`,
			"ValidationException: ExpressionAttributeNames can only be specified when using expressions", srcGetItem},
		{"duplicate AttributesToGet", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributesToGet":["a","a"]}`,
			"ValidationException: One or more parameter values were invalid: Duplicate value in attribute name: a", srcGetItem},
		{"missing table", `{"TableName":"nope","Key":{"pk":{"S":"a"}}}`, "ResourceNotFoundException: Requested resource not found", srcGetItem},
		{"wrong key type", `{"TableName":"hash","Key":{"pk":{"N":"1"}}}`, "ValidationException: The provided key element does not match the schema", srcGetItem},
		{"extra key attribute", `{"TableName":"hash","Key":{"pk":{"S":"a"},"x":{"S":"b"}}}`, "ValidationException: The provided key element does not match the schema", srcGetItem},
	})
}

// DeleteItem's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
func TestValidationDeleteItem(t *testing.T) {
	e := itemEngine(t)
	runValidations(t, e, "DeleteItem", []validation{
		{"no members", `{}`, "ValidationException: 2 validation errors detected: Value null at 'tableName' " + vNull + "; Value null at 'key' " + vNull, srcDeleteItem},
		{"empty TableName", `{"TableName":"","Key":{"pk":{"S":"a"}}}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"incorrect attributes", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi","ReturnValues":"hi"}`,
			"ValidationException: 5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' " + vRCC + "; Value 'abc;' at 'tableName' " + vPattern +
				"; Value 'hi' at 'returnValues' " + vRV + "; Value 'hi' at 'returnItemCollectionMetrics' " + vRICM + "; Value null at 'key' " + vNull, srcDeleteItem},
		{"ReturnValues ALL_NEW", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ReturnValues":"ALL_NEW"}`, "ValidationException: ReturnValues can only be ALL_OLD or NONE", srcDeleteItem},
		{"bad number in key", `{"TableName":"hash","Key":{"pk":{"N":"b"}}}`, "ValidationException: The parameter cannot be converted to a numeric value: b", srcDeleteItem},
		{"Exists false with value", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"Expected":{"a":{"Exists":false,"Value":{"S":"a"}}}}`,
			"ValidationException: One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a", srcDeleteItem},
		{"missing table", `{"TableName":"nope","Key":{"pk":{"S":"a"}}}`, "ResourceNotFoundException: Requested resource not found", srcDeleteItem},
	})
}

// UpdateItem's documented validations.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
func TestValidationUpdateItem(t *testing.T) {
	e := itemEngine(t)
	actions := make([]string, 12)
	var tenErrors []string
	for i := range actions {
		actions[i] = fmt.Sprintf(`"a%02d":{"Action":"x"}`, i)
		if i < maxConstraintErrors {
			tenErrors = append(tenErrors, fmt.Sprintf("Value 'x' at 'attributeUpdates.a%02d.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]", i))
		}
	}
	runValidations(t, e, "UpdateItem", []validation{
		{"no members", `{}`, "ValidationException: 2 validation errors detected: Value null at 'tableName' " + vNull + "; Value null at 'key' " + vNull, srcUpdateItem},
		{"empty TableName", `{"TableName":"","Key":{"pk":{"S":"a"}}}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"incorrect attributes", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi","ReturnValues":"hi"}`,
			"ValidationException: 5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' " + vRCC + "; Value 'abc;' at 'tableName' " + vPattern +
				"; Value 'hi' at 'returnItemCollectionMetrics' " + vRICM + "; Value 'hi' at 'returnValues' " + vRV + "; Value null at 'key' " + vNull, srcUpdateItem},
		{"at most ten violations", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributeUpdates":{` + strings.Join(actions, ",") + `}}`,
			"ValidationException: 10 validation errors detected: " + strings.Join(tenErrors, "; "),
			"https://github.com/mhart/dynalite/blob/master/validations/index.js (checking stops at ten); https://github.com/mhart/dynalite/blob/master/test/createTable.js"},
		{"expression and non-expression", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"Expected":{"a":{}},"AttributeUpdates":{},"ExpressionAttributeNames":{},"ExpressionAttributeValues":{},"ConditionExpression":"","UpdateExpression":""}`,
			"ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}", srcUpdateItem},
		{"names without expressions", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"Expected":{"a":{}},"ExpressionAttributeNames":{},"ExpressionAttributeValues":{}}`,
			"ValidationException: ExpressionAttributeNames can only be specified when using expressions", srcUpdateItem},
		{"values without expressions", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"Expected":{"a":{}},"ExpressionAttributeValues":{}}`,
			"ValidationException: ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null", srcUpdateItem},
		{"empty names", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ExpressionAttributeNames":{},"ExpressionAttributeValues":{},"ConditionExpression":"","UpdateExpression":""}`,
			"ValidationException: ExpressionAttributeNames must not be empty", srcUpdateItem},
		{"invalid name key", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ExpressionAttributeNames":{"a":"a"},"ExpressionAttributeValues":{},"ConditionExpression":"","UpdateExpression":""}`,
			`ValidationException: ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`, srcUpdateItem},
		{"update without value", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"a":{"Action":"PUT"}}}`,
			"ValidationException: One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified", srcUpdateItem},
		{"ADD a string", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"a":{"Action":"ADD","Value":{"S":"1"}}}}`,
			"ValidationException: One or more parameter values were invalid: ADD action is not supported for the type S", srcUpdateItem},
		{"DELETE a number", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"a":{"Action":"DELETE","Value":{"N":"1"}}}}`,
			"ValidationException: One or more parameter values were invalid: DELETE action with value is not supported for the type N", srcUpdateItem},
		{"missing table", `{"TableName":"nope","Key":{"pk":{"S":"a"}}}`, "ResourceNotFoundException: Requested resource not found", srcUpdateItem},
	})
}
