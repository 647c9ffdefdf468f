package workers

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// The stream trimmer removes the records older than the 24-hour retention
// of DynamoDB Streams, reading the server's clock, and counts them in
// extenddb_stream_records_trimmed_total.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html
func TestStreamTrimmerCountsTrimmedRecords(t *testing.T) {
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: t.TempDir() + "/db.sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	tb := &storage.Table{
		Account: storage.DefaultAccount, Name: "streamed", ID: uuid.NewString(),
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		Stream:               storage.StreamSpecification{StreamEnabled: true, StreamViewType: "KEYS_ONLY"},
		LatestStreamLabel:    "2026-01-01T00:00:00.000",
		Status:               storage.StatusActive,
	}
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"a", "b", "c"} {
		it := item.Item{"pk": item.S(pk)}
		k, _ := storage.ItemKey(tb, it)
		if err := b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			t.Fatal(err)
		}
	}
	m := metrics.New()
	trimmed := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body, _ := io.ReadAll(rec.Result().Body)
		for line := range strings.SplitSeq(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "extenddb_stream_records_trimmed_total "); ok {
				return v
			}
		}
		return "absent"
	}
	now := time.Now()
	p := newStreamTrimmer(b, time.Hour, nil, m, func() time.Time { return now })
	if err := p.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if got := trimmed(); got != "0" {
		t.Fatalf("records within the retention: trimmed counter %s, want 0", got)
	}
	now = now.Add(storage.StreamRetention + time.Minute)
	if err := p.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if got := trimmed(); got != "3" {
		t.Fatalf("a day on: trimmed counter %s, want 3", got)
	}
	rs, err := b.ReadStream(ctx, tb.ID, tb.LatestStreamLabel, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 0 {
		t.Fatalf("a day on: %d stream records left, want 0", len(rs))
	}
}
