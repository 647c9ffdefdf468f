package api

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// FuzzServe sends arbitrary bodies to every operation of a real engine over a
// real SQLite file. No input may panic or produce a server error (HTTP 500):
// a client mistake is always a DynamoDB 400 error.
func FuzzServe(f *testing.F) {
	seeds := []string{
		`{}`, `[]`, `null`, `{"TableName":1}`, `{"TableName":"fuzz"}`,
		`{"TableName":"fuzz","Item":{"pk":{"S":"a"},"n":{"N":"1e5"}}}`,
		`{"TableName":"fuzz","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET a = a + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}`,
		`{"TableName":"fuzz","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"Limit":1}`,
		`{"TableName":"fuzz","Segment":0,"TotalSegments":2,"FilterExpression":"size(a) > :z"}`,
		`{"RequestItems":{"fuzz":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}]}}`,
		`{"RequestItems":{"fuzz":{"Keys":[{"pk":{"S":"b"}}]}}}`,
		`{"TableName":"fuzz","Item":{"pk":{"B":"!!"}}}`,
		`{"TableName":"fuzz","Item":{"pk":{"S":"a"},"s":{"SS":[]}}}`,
	}
	ops := []string{"PutItem", "GetItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem", "CreateTable", "UpdateTable", "DescribeTable", "TagResource", "TransactWriteItems", "TransactGetItems"}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	dir := f.TempDir()
	store, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "fuzz.sqlite")})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	e := New(store, Config{})
	ctx := context.Background()
	mustServe(f, e, "CreateTable", `{"TableName":"fuzz","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)

	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := ops[int(op)%len(ops)]
		if name == "CreateTable" || name == "UpdateTable" {
			return // control-plane fuzzing would grow the catalog without bound
		}
		_, err := e.Serve(ctx, &protocol.Request{Operation: name, Caller: protocol.Caller{Region: "us-east-1"}, Body: body})
		if err != nil {
			if de := ddberr.As(err); de.Status >= 500 {
				t.Fatalf("%s %q: server error %v", name, body, err)
			}
		}
	})
}

func mustServe(tb testing.TB, e *Engine, op, body string) any {
	tb.Helper()
	out, err := e.Serve(context.Background(), &protocol.Request{Operation: op, Caller: protocol.Caller{Region: "us-east-1"}, Body: []byte(body)})
	if err != nil {
		tb.Fatalf("%s: %v", op, err)
	}
	return out
}
