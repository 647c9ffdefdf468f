package cassandra

import (
	"fmt"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/workers"
)

// TestExpiryPassDefaults: the TTL worker's expiry pass with its
// defaults on Cassandra (batches of 256 expiry rows, 64 deletes at once,
// docs/adr/0018h) deletes every expired item of a table with a stream,
// several batches of them, leaves the others with their expiry
// rows, and appends one REMOVE record per deleted item naming the TTL
// service, as DynamoDB does:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html
func TestExpiryPassDefaults(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 5*time.Minute)
	tb := streamTestTable(t, b)
	cur := setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabled, Generation: 1})
	const expired, live = 1100, 30
	err := storage.EachWrite(ctx, expired+live, b.WriteParallelism(), func(i int) error {
		exp := "500" // expired at the pass's time, 1000
		if i >= expired {
			exp = "5000"
		}
		it := item.Item{"pk": item.S(fmt.Sprint("k", i)), "exp": item.N(exp)}
		return b.Mutate(ctx, cur, strKey(t, cur, fmt.Sprint("k", i)), put(it))
	})
	if err != nil {
		t.Fatal(err)
	}
	w := workers.NewTTL(b, workers.TTLConfig{PageConfig: workers.PageConfig{Accounts: []string{cur.Account}, Now: func() time.Time { return time.Unix(1000, 0) }}})
	if n, err := w.ExpireTable(ctx, cur); err != nil || n != expired {
		t.Fatalf("ExpireTable = %d, %v; want %d", n, err, expired)
	}
	for _, i := range []int{0, expired / 2, expired - 1} {
		if got, err := b.GetItem(ctx, cur, strKey(t, cur, fmt.Sprint("k", i)), true); err != nil || got != nil {
			t.Fatalf("expired item k%d: %v %v; want it gone", i, got, err)
		}
	}
	for i := expired; i < expired+live; i++ {
		if got, err := b.GetItem(ctx, cur, strKey(t, cur, fmt.Sprint("k", i)), true); err != nil || got == nil {
			t.Fatalf("live item k%d: %v %v; want it kept", i, got, err)
		}
	}
	rows, err := b.ExpiredRows(ctx, cur, 0, 10000, 10000)
	if err != nil || len(rows) != live {
		t.Fatalf("expiry rows after the pass: %d, %v; want the %d live items' only", len(rows), err, live)
	}
	removes := 0
	for _, r := range allRecords(t, b, cur) {
		if r.EventName != "REMOVE" {
			continue
		}
		removes++
		if r.Identity == nil || *r.Identity != *storage.TTLService {
			t.Fatalf("REMOVE record of %v: identity %+v; want the TTL service", r.Keys, r.Identity)
		}
	}
	if removes != expired {
		t.Fatalf("%d REMOVE records; want %d", removes, expired)
	}
}
