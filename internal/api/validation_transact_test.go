package api

import (
	"strings"
	"testing"
)

// TransactWriteItems' documented validations beyond those of
// transact_write_test.go: the members' model constraints (ClientRequestToken
// 1 to 36 characters, the enums, each action's required members), then
// each action's expressions, then the tables.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConditionCheck.html
func TestValidationTransactWriteItems(t *testing.T) {
	e := itemEngine(t)
	const (
		src    = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html"
		srcChk = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConditionCheck.html (ConditionExpression required)"
		srcMot = "https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_transact.py"
		srcUpd = "https://github.com/mhart/dynalite/blob/master/test/updateItem.js (undefined expression attribute value)"
	)
	put := `{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"}}}}`
	runValidations(t, e, "TransactWriteItems", []validation{
		{"check without condition", `{"TransactItems":[{"ConditionCheck":{"TableName":"hash","Key":{"pk":{"S":"a"}}}}]}`,
			n1("Value null at 'transactItems.1.member.conditionCheck.conditionExpression' " + vNull), srcChk},
		{"long ClientRequestToken", `{"TransactItems":[` + put + `],"ClientRequestToken":"` + strings.Repeat("a", 37) + `"}`,
			n1("Value '" + strings.Repeat("a", 37) + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"), src},
		{"empty ClientRequestToken", `{"TransactItems":[` + put + `],"ClientRequestToken":""}`,
			n1("Value '' at 'clientRequestToken' " + vEmptyList), src},
		{"bad enums", `{"TransactItems":[` + put + `],"ReturnConsumedCapacity":"x","ReturnItemCollectionMetrics":"y"}`,
			"ValidationException: 2 validation errors detected: Value 'x' at 'returnConsumedCapacity' " + vRCC + "; Value 'y' at 'returnItemCollectionMetrics' " + vRICM, src},
		{"short TableName", `{"TransactItems":[{"Put":{"TableName":"ab","Item":{"pk":{"S":"a"}}}}]}`,
			n1("Value 'ab' at 'transactItems.1.member.put.tableName' " + vMin3), src},
		{"Put without Item", `{"TransactItems":[{"Put":{"TableName":"hash"}}]}`,
			n1("Value null at 'transactItems.1.member.put.item' " + vNull), src},
		{"undefined value", `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET a = :v"}}]}`,
			"ValidationException: Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :v", srcUpd},
		{"missing table", `{"TransactItems":[` + put + `,{"Put":{"TableName":"nope","Item":{"pk":{"S":"a"}}}}]}`,
			"ResourceNotFoundException: Requested resource not found", srcMot},
	})
}

// TransactGetItems' documented validations beyond those of
// transact_get_test.go.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Get.html
func TestValidationTransactGetItems(t *testing.T) {
	e := itemEngine(t)
	const (
		src     = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html"
		srcGet  = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Get.html (Key and TableName required)"
		srcProj = "https://github.com/mhart/dynalite/blob/master/test/getItem.js (undefined expression attribute name)"
	)
	runValidations(t, e, "TransactGetItems", []validation{
		{"Get without Key", `{"TransactItems":[{"Get":{"TableName":"hash"}}]}`, n1("Value null at 'transactItems.1.member.get.key' " + vNull), srcGet},
		{"bad ReturnConsumedCapacity", `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}}}}],"ReturnConsumedCapacity":"x"}`,
			n1("Value 'x' at 'returnConsumedCapacity' " + vRCC), src},
		{"undefined name", `{"TransactItems":[{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#a"}}]}`,
			"ValidationException: Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #a", srcProj},
	})
}

// DescribeLimits and DescribeEndpoints take no members; unknown members
// are ignored as DynamoDB's JSON protocol ignores them.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeEndpoints.html
func TestValidationDescribeLimits(t *testing.T) {
	e := itemEngine(t)
	out, err := call(e, "DescribeLimits", `{"Unknown":1}`)
	if want := `{"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,"TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000}`; err != "" || !sameJSON(t, out, want) {
		t.Fatalf("DescribeLimits: %s %s, want %s", out, err, want)
	}
}
