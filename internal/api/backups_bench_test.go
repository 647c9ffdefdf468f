package api

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/protocol"
)

// BenchmarkWriteWithPointInTimeRecovery measures the write path's cost of
// the change history: UpdateItem on a table without point in time recovery
// (the baseline) and with it, end to end through Serve on SQLite. Besides
// ns/op it reports the process CPU time per write (user and system).
func BenchmarkWriteWithPointInTimeRecovery(b *testing.B) {
	for _, pitr := range []bool{false, true} {
		name := "pitr=off"
		if pitr {
			name = "pitr=on"
		}
		b.Run(name, func(b *testing.B) {
			e := itemEngine(b)
			if pitr {
				mustServe(b, e, "UpdateContinuousBackups", `{"TableName":"hash","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`)
				time.Sleep(tableCacheTTL) // every cached entry has the setting
			}
			mustServe(b, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"x"},"a":{"S":"some text"},"n":{"N":"0"}}}`)
			req := &protocol.Request{Operation: "UpdateItem", Body: []byte(`{"TableName":"hash","Key":{"pk":{"S":"x"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}`)}
			ctx := context.Background()
			start := cpuTime()
			for b.Loop() {
				if _, err := e.Serve(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
