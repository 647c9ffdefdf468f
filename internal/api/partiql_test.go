package api

import (
	"encoding/json"
	"testing"
)

// NextToken is opaque to clients; a token this server did not issue is
// DynamoDB's "Invalid NextToken" (the message of DynamoDB Local's table,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
// documents only that NextToken continues a read).
func TestNextToken(t *testing.T) {
	key := json.RawMessage(`{"pk":{"S":"a"},"sk":{"N":"1"}}`)
	got, err := decodeNextToken(encodeNextToken(key))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := got.MarshalJSON(); string(b) != string(key) {
		t.Errorf("round trip: %s", b)
	}
	for _, bad := range []string{"", "bogus", "eGRiMTo=", "eGRiMTp7fQ==", "eDpkYjE6e30="} {
		if _, err := decodeNextToken(bad); err == nil || err.Error() != "ValidationException: Invalid NextToken" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// A batch's ConsumedCapacity has one entry per table, the statements' units summed.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html#API_BatchExecuteStatement_ResponseSyntax
func TestMergeCapacity(t *testing.T) {
	in := []json.RawMessage{
		json.RawMessage(`{"TableName":"a","CapacityUnits":1,"Table":{"CapacityUnits":1}}`),
		json.RawMessage(`{"TableName":"b","CapacityUnits":0.5}`),
		json.RawMessage(`{"TableName":"a","CapacityUnits":2,"Table":{"CapacityUnits":2}}`),
	}
	out := mergeCapacity(in)
	var got []string
	for _, r := range out {
		got = append(got, string(r))
	}
	want := []string{`{"CapacityUnits":3,"Table":{"CapacityUnits":3},"TableName":"a"}`, `{"CapacityUnits":0.5,"TableName":"b"}`}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// A failed write's charge (no Table arm) before a success keeps the
// success's arm in the merged entry.
func TestMergeCapacityFailureFirst(t *testing.T) {
	out := mergeCapacity([]json.RawMessage{
		json.RawMessage(`{"TableName":"a","CapacityUnits":3}`),
		json.RawMessage(`{"TableName":"a","CapacityUnits":1,"Table":{"CapacityUnits":1}}`),
	})
	if len(out) != 1 || string(out[0]) != `{"CapacityUnits":4,"Table":{"CapacityUnits":1},"TableName":"a"}` {
		t.Errorf("got %s", out)
	}
}
