package api

import (
	"strings"
	"testing"
)

// PutItem's documented validations, in DynamoDB's order and words.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
func TestValidationPutItem(t *testing.T) {
	e := itemEngine(t)
	big := strings.Repeat("x", maxItemBytes)
	runValidations(t, e, "PutItem", []validation{
		{"no members", `{}`, "ValidationException: 2 validation errors detected: Value null at 'tableName' " + vNull + "; Value null at 'item' " + vNull, srcPutItem},
		{"empty TableName", `{"TableName":"","Item":{"pk":{"S":"a"}}}`, n1("Value '' at 'tableName' " + vEmptyList), srcTableName},
		{"short TableName", `{"TableName":"a;"}`, "ValidationException: 3 validation errors detected: Value 'a;' at 'tableName' " + vPattern + "; Value 'a;' at 'tableName' " + vMin3 + "; Value null at 'item' " + vNull, srcPutItem},
		{"long TableName", `{"TableName":"` + strings.Repeat("a", 256) + `","Item":{}}`, n1("Value '" + strings.Repeat("a", 256) + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"), srcPutItem},
		{"TableName over 1024", `{"TableName":"` + strings.Repeat("a", 1025) + `","Item":{}}`, n1("Value '" + strings.Repeat("a", 1025) + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 1024"), srcTableName},
		{"incorrect attributes", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi","ReturnValues":"hi"}`,
			"ValidationException: 5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' " + vRCC + "; Value 'abc;' at 'tableName' " + vPattern +
				"; Value null at 'item' " + vNull + "; Value 'hi' at 'returnValues' " + vRV + "; Value 'hi' at 'returnItemCollectionMetrics' " + vRICM, srcPutItem},
		{"expression and non-expression", `{"TableName":"hash","Item":{"pk":{"S":"a"}},"Expected":{"a":{"Exists":false}},"ConditionExpression":"attribute_exists(a)"}`,
			"ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}", srcPutItem},
		{"Expected without value or Exists", `{"TableName":"hash","Item":{"pk":{"S":"a"}},"Expected":{"a":{}}}`,
			"ValidationException: One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a", srcPutItem},
		{"Exists true without value", `{"TableName":"hash","Item":{"pk":{"S":"a"}},"Expected":{"a":{"Exists":true}}}`,
			"ValidationException: One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a", srcPutItem},
		{"Exists false with value", `{"TableName":"hash","Item":{"pk":{"S":"a"}},"Expected":{"a":{"Exists":false,"Value":{"S":"a"}}}}`,
			"ValidationException: One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a", srcPutItem},
		{"ReturnValues UPDATED_OLD", `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnValues":"UPDATED_OLD"}`, "ValidationException: ReturnValues can only be ALL_OLD or NONE", srcPutItem},
		{"ReturnValues ALL_NEW", `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnValues":"ALL_NEW"}`, "ValidationException: ReturnValues can only be ALL_OLD or NONE", srcPutItem},
		{"empty AttributeValue", `{"TableName":"hash","Item":{"pk":{}}}`, "ValidationException: Supplied AttributeValue is empty, must contain exactly one of the supported datatypes", srcPutItem},
		{"two datatypes", `{"TableName":"hash","Item":{"pk":{"S":"a","N":"1"}}}`, "ValidationException: Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes", srcPutItem},
		{"bad number", `{"TableName":"hash","Item":{"pk":{"S":"a"},"n":{"N":"b"}}}`, "ValidationException: The parameter cannot be converted to a numeric value: b", srcPutItem},
		{"38 digits", `{"TableName":"hash","Item":{"pk":{"S":"a"},"n":{"N":"123456789012345678901234567890123456789"}}}`, "ValidationException: Attempting to store more than 38 significant digits in a Number", srcPutItem},
		{"item too big", `{"TableName":"hash","Item":{"pk":{"S":"a"},"b":{"S":"` + big + `"}}}`, "ValidationException: Item size has exceeded the maximum allowed size", srcPutItem},
		{"missing table", `{"TableName":"nope","Item":{"pk":{"S":"a"}}}`, "ResourceNotFoundException: Requested resource not found", srcPutItem},
		{"missing key", `{"TableName":"hash","Item":{"x":{"S":"a"}}}`, "ValidationException: One or more parameter values were invalid: Missing the key pk in the item",
			"https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.CoreComponents.html (keys are required); text quoted in https://github.com/nubo-db/dynoxide/issues/97"},
		{"wrong key type", `{"TableName":"hash","Item":{"pk":{"N":"1"}}}`, "ValidationException: One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N", "https://github.com/nubo-db/dynoxide/issues/97"},
	})
}
