package api

import (
	"fmt"
	"testing"
)

// Query and Scan answer the same bytes whether they transcode stored items
// (query_raw.go) or decode every item first: numbers as stored, sets in
// their order, binaries in base64, nesting, projections of nested paths,
// filters, Select COUNT, Limit, LastEvaluatedKey of tables and indexes,
// consumed capacity.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
func TestRawReadsMatchDecoded(t *testing.T) {
	e := itemEngine(t)
	for i := range 24 {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"p%d"},"sk":{"N":"%d.50"},"lsk":{"S":"l%02d"},"g":{"S":"g%d"},`+
			`"n":{"N":"%de-3"},"big":{"N":"-000123456789012345678901234567890123456.7800"},"s":{"S":"tab\t\"quote\" \u00e9\u2028 <&>"},`+
			`"b":{"B":"AAH/+w=="},"ss":{"SS":["z","a","m%d"]},"ns":{"NS":["10","-2.50","1E+2"]},"bs":{"BS":["AQ==","/w=="]},`+
			`"doc":{"M":{"inr":{"L":[{"N":"%d"},{"S":"x"},{"M":{"deep":{"NULL":true}}}]},"flag":{"BOOL":%v}}},"empty":{"M":{}},"list":{"L":[]}}}`,
			i%3, i, i%7, i%2, i, i, i, i%2 == 0))
	}
	for i := range 6 {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"bin","Item":{"pk":{"B":"%s"},"v":{"N":"%d"}}}`, []string{"AA==", "/w==", "AQI=", "gA==", "fw==", "AAAA"}[i], i))
	}
	reads := []struct{ op, body string }{
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p1"}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p AND sk > :s","ScanIndexForward":false,"Limit":3,"ReturnConsumedCapacity":"TOTAL","ExpressionAttributeValues":{":p":{"S":"p1"},":s":{"N":"4"}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExclusiveStartKey":{"pk":{"S":"p2"},"sk":{"N":"5.5"}},"ExpressionAttributeValues":{":p":{"S":"p2"}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"doc.inr[0] > :n AND size(ss) = :three","ProjectionExpression":"doc.inr[2], ss, #b, sk",` +
			`"ExpressionAttributeNames":{"#b":"big"},"ExpressionAttributeValues":{":p":{"S":"p0"},":n":{"N":"5"},":three":{"N":"3"}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"doc.flag = :t","ProjectionExpression":"s, b, bs, nope","ExpressionAttributeValues":{":p":{"S":"p0"},":t":{"BOOL":true}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"attribute_exists(nothing)","Limit":4,"ExpressionAttributeValues":{":p":{"S":"p1"}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","Select":"COUNT","FilterExpression":"n < :n","ExpressionAttributeValues":{":p":{"S":"p1"},":n":{"N":"0.01"}}}`},
		{"Query", `{"TableName":"range","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p2"}]}},"QueryFilter":{"ns":{"ComparisonOperator":"CONTAINS","AttributeValueList":[{"N":"100"}]}},"AttributesToGet":["ns","lsk"],"Limit":5}`},
		{"Query", `{"TableName":"range","IndexName":"gsiall","KeyConditionExpression":"g = :g","Limit":5,"ReturnConsumedCapacity":"INDEXES","ExpressionAttributeValues":{":g":{"S":"g1"}}}`},
		{"Query", `{"TableName":"range","IndexName":"gsi","KeyConditionExpression":"g = :g","Limit":4,"ExpressionAttributeValues":{":g":{"S":"g0"}}}`},
		{"Query", `{"TableName":"range","IndexName":"lsi","KeyConditionExpression":"pk = :p","Limit":2,"ExpressionAttributeValues":{":p":{"S":"p0"}}}`},
		{"Query", `{"TableName":"range","IndexName":"lsi","KeyConditionExpression":"pk = :p","Select":"ALL_ATTRIBUTES","Limit":2,"ExpressionAttributeValues":{":p":{"S":"p0"}}}`},
		{"Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"none"}}}`},
		{"Scan", `{"TableName":"range","Limit":7,"ReturnConsumedCapacity":"TOTAL"}`},
		{"Scan", `{"TableName":"range","Segment":1,"TotalSegments":3,"ProjectionExpression":"pk, doc.inr, #e, #l","ExpressionAttributeNames":{"#e":"empty","#l":"list"}}`},
		{"Scan", `{"TableName":"range","ScanFilter":{"g":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"g1"}]}},"Select":"COUNT"}`},
		{"Scan", `{"TableName":"range","IndexName":"gsiall","Limit":9,"ExclusiveStartKey":{"pk":{"S":"p0"},"sk":{"N":"3.5"},"g":{"S":"g1"}}}`},
		{"Scan", `{"TableName":"range","IndexName":"lsi","Limit":5}`},
		{"Scan", `{"TableName":"bin","Limit":4}`},
		{"Scan", `{"TableName":"bin","FilterExpression":"v >= :v","ExpressionAttributeValues":{":v":{"N":"2"}}}`},
	}
	for _, r := range reads {
		e.decodeReads = false
		raw, rawErr := call(e, r.op, r.body)
		e.decodeReads = true
		decoded, decodedErr := call(e, r.op, r.body)
		if raw != decoded || rawErr != decodedErr || rawErr != "" {
			t.Errorf("%s %s:\n raw     %s %s\n decoded %s %s", r.op, r.body, raw, rawErr, decoded, decodedErr)
		}
	}
}
