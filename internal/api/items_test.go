package api

import (
	"strings"
	"testing"
)

// PutItem, GetItem and DeleteItem basics.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
func TestPutGetDelete(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"},"n":{"N":"1.50"},"l":{"L":[{"S":"x"},{"BOOL":true}]}}}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}}}`, want: `{"Item":{"pk":{"S":"a"},"n":{"N":"1.5"},"l":{"L":[{"S":"x"},{"BOOL":true}]}}}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"missing"}}}`, want: `{}`},
		{name: "ALL_OLD returns the replaced item", op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"},"v":{"S":"2"}},"ReturnValues":"ALL_OLD"}`,
			want: `{"Attributes":{"pk":{"S":"a"},"n":{"N":"1.5"},"l":{"L":[{"S":"x"},{"BOOL":true}]}}}`},
		{name: "ALL_OLD of a new item returns nothing", op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"new"}},"ReturnValues":"ALL_OLD"}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ConsistentRead":true}`, want: `{"Item":{"pk":{"S":"a"},"v":{"S":"2"}}}`},
		{op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ReturnValues":"ALL_OLD"}`, want: `{"Attributes":{"pk":{"S":"a"},"v":{"S":"2"}}}`},
		{op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ReturnValues":"ALL_OLD"}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}}}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"x":{"S":"1"}}}`, want: `{}`},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"2"},"x":{"S":"2"}}}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"2.0"}}}`, want: `{"Item":{"pk":{"S":"a"},"sk":{"N":"2"},"x":{"S":"2"}}}`},
		{op: "PutItem", body: `{"TableName":"bin","Item":{"pk":{"B":"AAE="}}}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"bin","Key":{"pk":{"B":"AAE="}}}`, want: `{"Item":{"pk":{"B":"AAE="}}}`},
	})
}

// Member constraints are reported together, before anything else.
// https://github.com/mhart/dynalite/blob/master/test/getItem.js
func TestItemConstraints(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "GetItem", body: `{}`, err: "ValidationException: 2 validation errors detected: Value null at 'key' failed to satisfy constraint: Member must not be null; Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{op: "GetItem", body: `{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[]}`,
			err: "ValidationException: 4 validation errors detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1; Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value null at 'key' failed to satisfy constraint: Member must not be null; Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_consumedcapacity.py
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"Garbage"}`,
			err: "ValidationException: 1 validation error detected: Value 'Garbage' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnValues":"hi"}`,
			err: "ValidationException: 1 validation error detected: Value 'hi' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnItemCollectionMetrics":"hi"}`,
			err: "ValidationException: 1 validation error detected: Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"},
		{op: "PutItem", body: `{"TableName":"hash"}`, err: "ValidationException: 1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null"},
		{op: "DeleteItem", body: `{"TableName":"hash"}`, err: "ValidationException: 1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null"},
	})
}

// Errors of PutItem, in DynamoDB's order.
func TestPutItemValidation(t *testing.T) {
	e := itemEngine(t)
	big := strings.Repeat("x", 2049)
	runSteps(t, e, []step{
		// https://github.com/mhart/dynalite/blob/master/test/putItem.js
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnValues":"UPDATED_OLD"}`, err: "ValidationException: ReturnValues can only be ALL_OLD or NONE"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnValues":"ALL_NEW"}`, err: "ValidationException: ReturnValues can only be ALL_OLD or NONE"},
		{op: "PutItem", body: `{"TableName":"nope","Item":{}}`, err: "ResourceNotFoundException: Requested resource not found"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{}}`, err: "ValidationException: One or more parameter values were invalid: Missing the key pk in the item"},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"}}}`, err: "ValidationException: One or more parameter values were invalid: Missing the key sk in the item"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"N":"23"}}}`, err: "ValidationException: One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"S":"x"}}}`, err: "ValidationException: One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S"},
		// https://github.com/localstack/localstack and moto: current wording for empty key values.
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":""}}}`, err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{op: "PutItem", body: `{"TableName":"bin","Item":{"pk":{"B":""}}}`, err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: pk"},
		// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/exceptions/test_key_length_exceptions.py
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"` + big + `"}}}`, err: "ValidationException: One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"lsk":{"S":"` + big[:1025] + `"}}}`, err: "ValidationException: One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
		// https://github.com/mhart/dynalite/blob/master/db/index.js (validateItem)
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"N":"1"}}}`, err: "ValidationException: One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: gsi"},
		{op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":""}}}`, err: "ValidationException: One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gsi, IndexKey: g"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"},"big":{"S":"` + strings.Repeat("x", 400*1024) + `"}}}`, err: "ValidationException: Item size has exceeded the maximum allowed size"},
		{name: "item size checked before the table", op: "PutItem", body: `{"TableName":"nope","Item":{"pk":{"S":"a"},"big":{"S":"` + strings.Repeat("x", 400*1024) + `"}}}`, err: "ValidationException: Item size has exceeded the maximum allowed size"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"},"s":{"SS":[]}}}`, err: "ValidationException: One or more parameter values were invalid: An string set  may not be empty"},
	})
}

// Key validation of GetItem and DeleteItem.
// https://github.com/mhart/dynalite/blob/master/test/getItem.js
func TestKeyValidation(t *testing.T) {
	e := itemEngine(t)
	mismatch := "ValidationException: The provided key element does not match the schema"
	var steps []step
	for _, key := range []string{`{}`, `{"b":{"S":"a"}}`, `{"pk":{"S":"a"},"b":{"S":"a"}}`, `{"pk":{"B":"abcd"}}`, `{"pk":{"N":"1"}}`,
		`{"pk":{"BOOL":true}}`, `{"pk":{"NULL":true}}`, `{"pk":{"SS":["a"]}}`, `{"pk":{"M":{}}}`, `{"pk":{"L":[]}}`} {
		steps = append(steps, step{op: "GetItem", body: `{"TableName":"hash","Key":` + key + `}`, err: mismatch})
		steps = append(steps, step{op: "DeleteItem", body: `{"TableName":"hash","Key":` + key + `}`, err: mismatch})
	}
	steps = append(steps,
		step{op: "GetItem", body: `{"TableName":"range","Key":{"pk":{"S":"a"}}}`, err: mismatch},
		step{op: "GetItem", body: `{"TableName":"nope","Key":{}}`, err: "ResourceNotFoundException: Requested resource not found"},
		step{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":""}}}`, err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		step{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"` + strings.Repeat("a", 2049) + `"}}}`, err: "ValidationException: One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		step{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"SS":[]}}}`, err: "ValidationException: One or more parameter values were invalid: An string set  may not be empty"},
		step{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributesToGet":["a","a"]}`, err: "ValidationException: One or more parameter values were invalid: Duplicate value in attribute name: a"},
		step{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#a.b.c","ExpressionAttributeNames":{"#a":"pk"}}`,
			err: "ValidationException: Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: pk"},
		step{op: "GetItem", body: `{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"g[0]"}`,
			err: "ValidationException: Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: g"},
	)
	runSteps(t, e, steps)
}

// Expression and non-expression parameters.
// https://github.com/mhart/dynalite/blob/master/test/getItem.js
func TestExpressionParameterRules(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "GetItem", body: `{"TableName":"abc","Key":{"a":{"S":"x"}},"AttributesToGet":["a"],"ExpressionAttributeNames":{},"ProjectionExpression":""}`,
			err: "ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		{op: "GetItem", body: `{"TableName":"abc","Key":{"a":{"S":"x"}},"AttributesToGet":["a"],"ExpressionAttributeNames":{}}`,
			err: "ValidationException: ExpressionAttributeNames can only be specified when using expressions"},
		{op: "GetItem", body: `{"TableName":"abc","Key":{},"ExpressionAttributeNames":{},"ProjectionExpression":""}`, err: "ValidationException: ExpressionAttributeNames must not be empty"},
		{op: "GetItem", body: `{"TableName":"abc","Key":{},"ExpressionAttributeNames":{"a":"a"},"ProjectionExpression":""}`, err: `ValidationException: ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{op: "GetItem", body: `{"TableName":"abc","Key":{},"ProjectionExpression":""}`, err: "ValidationException: Invalid ProjectionExpression: The expression can not be empty;"},
		{op: "GetItem", body: `{"TableName":"abc","Key":{},"ProjectionExpression":"a","ExpressionAttributeNames":{"#a":"a","#b":"b"}}`,
			err: "ValidationException: Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"S":"a"}}}`,
			err: "ValidationException: ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_exists(a)","ExpressionAttributeValues":{":v":{"S":"a"}}}`,
			err: "ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :v","ExpressionAttributeValues":{}}`,
			err: "ValidationException: ExpressionAttributeValues must not be empty"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :v","ExpressionAttributeValues":{":v":{"SS":[]}}}`,
			err: "ValidationException: ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v"},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :v","Expected":{"a":{"Exists":false}},"ExpressionAttributeValues":{":v":{"S":"a"}}}`,
			err: "ValidationException: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
	})
}
