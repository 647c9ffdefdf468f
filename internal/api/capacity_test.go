package api

import (
	"strings"
	"testing"
)

// ReturnConsumedCapacity and ReturnItemCollectionMetrics.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConsumedCapacity.html
func TestConsumedCapacity(t *testing.T) {
	e := itemEngine(t)
	kb := func(n int) string { return strings.Repeat("x", n*1024) }
	runSteps(t, e, []step{
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"TOTAL"}`, want: `{"ConsumedCapacity":{"TableName":"hash","CapacityUnits":1.0}}`},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"NONE"}`, want: `{}`},
		{name: "2.5 KB rounds up to 3 WCU", op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"b"},"v":{"S":"` + kb(2) + strings.Repeat("y", 500) + `"}},"ReturnConsumedCapacity":"INDEXES"}`,
			want: `{"ConsumedCapacity":{"TableName":"hash","CapacityUnits":3.0,"Table":{"CapacityUnits":3.0}}}`},
		{name: "overwriting charges the larger image", op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"b"}},"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":{"TableName":"hash","CapacityUnits":3.0}}`},
		// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_consumedcapacity.py
		{name: "missing item read", op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"zz"}},"ReturnConsumedCapacity":"TOTAL"}`, want: `{"ConsumedCapacity":{"TableName":"hash","CapacityUnits":0.5}}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"zz"}},"ConsistentRead":true,"ReturnConsumedCapacity":"INDEXES"}`, want: `{"ConsumedCapacity":{"TableName":"hash","CapacityUnits":1.0,"Table":{"CapacityUnits":1.0}}}`},
		{op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"c"},"v":{"S":"` + kb(5) + `"}}}`, want: `{}`},
		{name: "5 KB read is 2 RCU, halved", op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}},"ProjectionExpression":"pk","ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"Item":{"pk":{"S":"c"}},"ConsumedCapacity":{"TableName":"hash","CapacityUnits":1.0}}`},
		{name: "delete of a missing item", op: "DeleteItem", body: `{"TableName":"hash","Key":{"pk":{"S":"zz"}},"ReturnConsumedCapacity":"TOTAL"}`, want: `{"ConsumedCapacity":{"TableName":"hash","CapacityUnits":1.0}}`},
		{name: "index writes", op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"lsk":{"S":"l"},"g":{"S":"g"}},"ReturnConsumedCapacity":"INDEXES"}`,
			want: `{"ConsumedCapacity":{"TableName":"range","CapacityUnits":4.0,"Table":{"CapacityUnits":1.0},"LocalSecondaryIndexes":{"lsi":{"CapacityUnits":1.0}},"GlobalSecondaryIndexes":{"gsi":{"CapacityUnits":1.0},"gsiall":{"CapacityUnits":1.0}}}}`},
		{name: "moving an index key deletes and puts", op: "UpdateItem", body: `{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET g = :h","ExpressionAttributeValues":{":h":{"S":"h"}},"ReturnConsumedCapacity":"INDEXES"}`,
			want: `{"ConsumedCapacity":{"TableName":"range","CapacityUnits":5.0,"Table":{"CapacityUnits":1.0},"GlobalSecondaryIndexes":{"gsi":{"CapacityUnits":2.0},"gsiall":{"CapacityUnits":2.0}}}}`},
		{name: "index query", op: "Query", body: `{"TableName":"range","IndexName":"gsiall","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"h"}},"Select":"COUNT","ReturnConsumedCapacity":"INDEXES"}`,
			want: `{"Count":1,"ScannedCount":1,"ConsumedCapacity":{"TableName":"range","CapacityUnits":0.5,"Table":{"CapacityUnits":0.0},"GlobalSecondaryIndexes":{"gsiall":{"CapacityUnits":0.5}}}}`},
		{name: "query sums sizes before rounding", op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"Select":"COUNT","ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"Count":1,"ScannedCount":1,"ConsumedCapacity":{"TableName":"range","CapacityUnits":1.0}}`},
		{name: "empty scan", op: "Scan", body: `{"TableName":"bin","ReturnConsumedCapacity":"TOTAL"}`, want: `{"Items":[],"Count":0,"ScannedCount":0,"ConsumedCapacity":{"TableName":"bin","CapacityUnits":0.5}}`},
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html
		{name: "item collection metrics on a table with an LSI", op: "PutItem", body: `{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"2"}},"ReturnItemCollectionMetrics":"SIZE"}`,
			want: `{"ItemCollectionMetrics":{"ItemCollectionKey":{"pk":{"S":"a"}},"SizeEstimateRangeGB":[0.0,1.0]}}`},
		{name: "none without an LSI", op: "PutItem", body: `{"TableName":"hash","Item":{"pk":{"S":"a"}},"ReturnItemCollectionMetrics":"SIZE"}`, want: `{}`},
		{op: "DeleteItem", body: `{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"2"}},"ReturnItemCollectionMetrics":"SIZE","ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":{"TableName":"range","CapacityUnits":1.0},"ItemCollectionMetrics":{"ItemCollectionKey":{"pk":{"S":"a"}},"SizeEstimateRangeGB":[0.0,1.0]}}`},
	})
}
