package api

import (
	"strings"
	"testing"
)

// Attribute names of 1 to 65,535 bytes, at the top level of an item and as
// map keys at every depth, in every request position that writes them.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes
func TestValidationAttributeNames(t *testing.T) {
	e := itemEngine(t)
	const (
		srcLarge = "https://github.com/ExtendDB/extenddb/issues/365 (measured against DynamoDB)"
		srcEmpty = "https://github.com/scylladb/scylladb/blob/master/test/alternator/test_limits.py (test_limit_attribute_length_nonkey_empty) and DynamoDB Local's error table"
		tooLarge = "ValidationException: 1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
		empty    = "ValidationException: 1 validation error detected: Empty attribute name"
	)
	long, max := strings.Repeat("n", 65536), strings.Repeat("n", 65535)
	put := func(attrs string) string { return `{"TableName":"hash","Item":{"pk":{"S":"a"},` + attrs + `}}` }
	runValidations(t, e, "PutItem", []validation{
		{"long name", put(`"` + long + `":{"N":"1"}`), tooLarge, srcLarge},
		{"long nested key", put(`"doc":{"M":{"` + long + `":{"N":"1"}}}`), tooLarge, srcLarge},
		{"long key in a list's map", put(`"doc":{"L":[{"M":{"` + long + `":{"N":"1"}}}]}`), tooLarge, srcLarge},
		{"empty name", put(`"":{"N":"1"}`), empty, srcEmpty},
		{"empty nested key", put(`"doc":{"M":{"":{"N":"1"}}}`), empty, srcEmpty},
	})
	if _, err := call(e, "PutItem", put(`"`+max+`":{"N":"1"},"doc":{"M":{"`+max+`":{"N":"1"}}}`)); err != "" {
		t.Fatalf("PutItem with 65,535-byte names: %s", err)
	}
	runValidations(t, e, "UpdateItem", []validation{
		{"long name in ExpressionAttributeNames", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET #n = :v","ExpressionAttributeNames":{"#n":"` + long + `"},"ExpressionAttributeValues":{":v":{"N":"1"}}}`,
			tooLarge, srcLarge},
		{"long name in AttributeUpdates", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"` + long + `":{"Action":"PUT","Value":{"N":"1"}}}}`,
			tooLarge, "https://github.com/scylladb/scylladb/blob/master/test/alternator/test_limits.py (test_limit_attribute_length_nonkey_bad)"},
		{"empty name in AttributeUpdates", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"":{"Action":"PUT","Value":{"N":"1"}}}}`,
			empty, srcEmpty},
		{"long key in a value", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET doc = :v","ExpressionAttributeValues":{":v":{"M":{"` + long + `":{"N":"1"}}}}}`,
			tooLarge, srcLarge},
	})
	runValidations(t, e, "GetItem", []validation{
		{"long name in a projection", `{"TableName":"hash","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":"` + long + `"}}`,
			tooLarge, "https://github.com/scylladb/scylladb/blob/master/test/alternator/test_limits.py (test_limit_attribute_length_nonkey_bad)"},
	})
	runValidations(t, e, "BatchWriteItem", []validation{
		{"long name", `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"a"},"` + long + `":{"N":"1"}}}}]}}`, tooLarge, srcLarge},
	})
	runValidations(t, e, "TransactWriteItems", []validation{
		{"long name", `{"TransactItems":[{"Put":{"TableName":"hash","Item":{"pk":{"S":"a"},"doc":{"M":{"` + long + `":{"N":"1"}}}}}}]}`, tooLarge, srcLarge},
	})
}
