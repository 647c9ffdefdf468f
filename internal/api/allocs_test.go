package api

import (
	"context"
	"fmt"
	"testing"

	"github.com/extenddb/extenddb/internal/protocol"
)

// hotPaths are the single-item operations and the reads of many items,
// each with the most allocations per request it may make through Serve and
// the response encoder (storage included, SQLite in a file). Allocations
// per request are deterministic, so a ceiling catches a regression that
// timing would blur; BenchmarkHotPaths beside it measures the same
// requests, with the process's CPU time per request (cpu-ns/op):
//
//	go test -run TestAllocationCeilings -v ./internal/api/
//	go test -run X -bench HotPaths -benchmem ./internal/api/
//
// Lower a ceiling when a change cuts allocations; raise one only with the
// reason in the commit.
var hotPaths = []struct {
	name, op, body string
	ceiling        float64
}{
	{"GetItem", "GetItem", `{"TableName":"range","Key":{"pk":{"S":"p"},"sk":{"N":"7"}}}`, 52},
	{"PutItem", "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"x"},"a":{"S":"some text"},"n":{"N":"12"}}}`, 75},
	{"UpdateItem", "UpdateItem", `{"TableName":"hash","Key":{"pk":{"S":"x"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}`, 108},
	{"DeleteItem", "DeleteItem", `{"TableName":"hash","Key":{"pk":{"S":"gone"}}}`, 49},
	{"Query", "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"q"}}}`, 103},
	{"Query100", "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}}`, 291},
	{"QueryFilterProjection", "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"n < :n","ProjectionExpression":"sk, a",` +
		`"ExpressionAttributeValues":{":p":{"S":"q"},":n":{"N":"5"}}}`, 174},
	{"QueryLimit", "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","Limit":5,"ExpressionAttributeValues":{":p":{"S":"q"}}}`, 100},
	{"Scan100", "Scan", `{"TableName":"range","Limit":100}`, 254},
}

// hotPathEngine is itemEngine with item x in table hash, items 0..99 in
// partition p of table range and items 0..9 in partition q.
func hotPathEngine(t testing.TB) *Engine {
	e := itemEngine(t)
	mustServe(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"x"},"n":{"N":"1"}}}`)
	for i := range 100 {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"p"},"sk":{"N":"%d"},"a":{"S":"some text"},"n":{"N":"%d"}}}`, i, i))
	}
	for i := range 10 {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"q"},"sk":{"N":"%d"},"a":{"S":"some text"},"n":{"N":"%d"}}}`, i, i))
	}
	return e
}

// serveEncoded serves one request and encodes its response into buf.
func serveEncoded(tb testing.TB, e *Engine, req *protocol.Request, buf []byte) []byte {
	out, err := e.Serve(context.Background(), req)
	if err != nil {
		tb.Fatalf("%s: %v", req.Operation, err)
	}
	return out.(protocol.Appender).AppendJSON(buf[:0])
}

func TestAllocationCeilings(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	e := hotPathEngine(t)
	for _, hp := range hotPaths {
		t.Run(hp.name, func(t *testing.T) {
			req := &protocol.Request{Operation: hp.op, Body: []byte(hp.body)}
			buf := make([]byte, 0, 4096)
			got := testing.AllocsPerRun(200, func() { buf = serveEncoded(t, e, req, buf) })
			t.Logf("%s: %.0f allocations per request (ceiling %.0f)", hp.name, got, hp.ceiling)
			if got > hp.ceiling {
				t.Errorf("%s allocates %.0f times per request, ceiling %.0f", hp.name, got, hp.ceiling)
			}
		})
	}
}

func BenchmarkHotPaths(b *testing.B) {
	e := hotPathEngine(b)
	for _, hp := range hotPaths {
		b.Run(hp.name, func(b *testing.B) {
			req := &protocol.Request{Operation: hp.op, Body: []byte(hp.body)}
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				buf = serveEncoded(b, e, req, buf)
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
