package api

import (
	"context"
	"fmt"
	"testing"

	"github.com/extenddb/extenddb/internal/protocol"
)

// Hot paths, end to end through Serve and the response encoder (no HTTP).
func BenchmarkItemOps(b *testing.B) {
	e := itemEngine(b)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		mustServe(b, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"p"},"sk":{"N":"%d"},"a":{"S":"some text"},"n":{"N":"%d"}}}`, i, i))
	}
	serve := func(b *testing.B, op, body string) {
		req := &protocol.Request{Operation: op, Body: []byte(body)}
		buf := make([]byte, 0, 4096)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			out, err := e.Serve(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			buf = out.(protocol.Appender).AppendJSON(buf[:0])
		}
	}
	b.Run("GetItem", func(b *testing.B) {
		serve(b, "GetItem", `{"TableName":"range","Key":{"pk":{"S":"p"},"sk":{"N":"7"}}}`)
	})
	b.Run("PutItem", func(b *testing.B) {
		serve(b, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"x"},"a":{"S":"some text"},"n":{"N":"12"}}}`)
	})
	b.Run("UpdateItem", func(b *testing.B) {
		serve(b, "UpdateItem", `{"TableName":"hash","Key":{"pk":{"S":"x"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}`)
	})
	b.Run("Query100", func(b *testing.B) {
		serve(b, "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}}`)
	})
}
