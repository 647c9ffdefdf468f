package api

import (
	"reflect"
	"testing"
)

// The table use GetItem and TransactGetItems report: per table, the units
// DynamoDB charges, the items found and their bytes.
func TestMeterReads(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"a"},"s":{"S":"x"}}}`)
	type use struct {
		table, kind string
		units       float64
		items       int
		bytes       int64
	}
	var got []use
	e.cfg.OnTableUse = func(table, kind string, units float64, items int, bytes int64) {
		got = append(got, use{table, kind, units, items, bytes})
	}
	mustServe(t, e, "GetItem", `{"TableName":"hash","Key":{"pk":{"S":"a"}}}`)
	mustServe(t, e, "GetItem", `{"TableName":"hash","Key":{"pk":{"S":"none"}},"ConsistentRead":true}`)
	mustServe(t, e, "TransactGetItems", `{"TransactItems":[
		{"Get":{"TableName":"range","Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}},
		{"Get":{"TableName":"hash","Key":{"pk":{"S":"a"}}}},
		{"Get":{"TableName":"hash","Key":{"pk":{"S":"none"}}}}]}`)
	want := []use{
		{"hash", useRead, 0.5, 1, 5},
		{"hash", useRead, 1, 0, 0},
		{"range", useRead, 2, 0, 0},
		{"hash", useRead, 4, 1, 5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
