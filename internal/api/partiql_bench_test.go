package api

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/extenddb/extenddb/internal/protocol"
)

// PartiQL statements against the operations they run as, end to end through
// Serve and the response encoder (no HTTP): the cost of the PartiQL layer.
func BenchmarkPartiQLOps(b *testing.B) {
	e := itemEngine(b)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		mustServe(b, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"p"},"sk":{"N":"%d"},"a":{"S":"some text"},"n":{"N":"%d"}}}`, i, i))
	}
	mustServe(b, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"x"},"n":{"N":"0"}}}`)
	serve := func(b *testing.B, op, body string) {
		req := &protocol.Request{Operation: op, Body: []byte(body)}
		b.ReportAllocs()
		for b.Loop() {
			out, err := e.Serve(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if a, ok := out.(protocol.Appender); ok {
				_ = a.AppendJSON(nil)
			} else if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, c := range []struct{ name, op, body string }{
		{"GetItem", "GetItem", `{"TableName":"range","Key":{"pk":{"S":"p"},"sk":{"N":"7"}}}`},
		{"SelectByKey", "ExecuteStatement", `{"Statement":"SELECT * FROM \"range\" WHERE pk = ? AND sk = ?","Parameters":[{"S":"p"},{"N":"7"}]}`},
		{"UpdateItem", "UpdateItem", `{"TableName":"hash","Key":{"pk":{"S":"x"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}`},
		{"Update", "ExecuteStatement", `{"Statement":"UPDATE \"hash\" SET n = n + 1 WHERE pk = 'x'"}`},
		{"Query100", "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}}`},
		{"SelectQuery100", "ExecuteStatement", `{"Statement":"SELECT * FROM \"range\" WHERE pk = ?","Parameters":[{"S":"p"}]}`},
	} {
		b.Run(c.name, func(b *testing.B) { serve(b, c.op, c.body) })
	}
}
