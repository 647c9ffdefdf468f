package cassandra

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/workers"
)

// streamTestTable creates a table (hash key pk, a String) whose
// NEW_AND_OLD_IMAGES stream is enabled.
func streamTestTable(t *testing.T, b *Backend) *storage.Table {
	t.Helper()
	tb := &storage.Table{
		Account: newAccount(), Name: "streams", ID: uuid.NewString(),
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST", Status: storage.StatusActive, CreatedAt: time.Now().UTC(),
		Stream:            storage.StreamSpecification{StreamEnabled: true, StreamViewType: storage.ViewNewAndOldImage},
		LatestStreamLabel: "2024-01-01T00:00:00.000",
	}
	if err := b.CreateTable(ctxT(t, 3*time.Minute), tb); err != nil {
		t.Fatal(err)
	}
	return tb
}

func strKey(t *testing.T, tb *storage.Table, pk string) storage.Key {
	t.Helper()
	k, err := storage.ItemKey(tb, item.Item{"pk": {Type: item.TypeS, S: pk}})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// allRecords reads the whole stream in pages of 7.
func allRecords(t *testing.T, b *Backend, tb *storage.Table) []*storage.StreamRecord {
	t.Helper()
	ctx := ctxT(t, time.Minute)
	var out []*storage.StreamRecord
	for after := uint64(0); ; {
		rs, err := b.ReadStream(ctx, tb.ID, tb.LatestStreamLabel, after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			return out
		}
		for _, r := range rs {
			if r.Seq <= after {
				t.Fatalf("sequence number %d after %d", r.Seq, after)
			}
			after = r.Seq
		}
		out = append(out, rs...)
	}
}

// TestStreamRecords covers what the contract's StreamRecordsWithWrites
// checks besides transactions: one record per changed item, none for
// writes that change nothing, identities, bounds, trimming and removal
// with the table.
func TestStreamRecords(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := streamTestTable(t, b)
	k := strKey(t, tb, "a")
	set := func(v string) storage.MutateFunc {
		return func(item.Item) (item.Item, error) {
			return item.Item{"pk": {Type: item.TypeS, S: "a"}, "v": {Type: item.TypeN, S: v}}, nil
		}
	}
	for _, fn := range []storage.MutateFunc{set("1"), set("1"), set("2"),
		func(old item.Item) (item.Item, error) { return old, nil }} {
		if err := b.Mutate(ctx, tb, k, fn); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Mutate(ctx, tb, strKey(t, tb, "missing"), del); err != nil {
		t.Fatal(err)
	}
	if err := b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("failing Mutate succeeded")
	}
	if err := b.Mutate(storage.WithUserIdentity(ctx, storage.TTLService), tb, k, del); err != nil {
		t.Fatal(err)
	}
	rs := allRecords(t, b, tb)
	var got []string
	for _, r := range rs {
		got = append(got, r.EventName+" "+r.Keys["pk"].S)
	}
	if fmt.Sprint(got) != "[INSERT a MODIFY a REMOVE a]" {
		t.Fatalf("records %v", got)
	}
	if m := rs[1]; m.OldImage["v"].S != "1" || m.NewImage["v"].S != "2" || m.SizeBytes <= 0 || m.Identity != nil {
		t.Errorf("MODIFY record: %+v", m)
	}
	if r := rs[2]; r.NewImage != nil || r.OldImage["v"].S != "2" || r.Identity == nil || *r.Identity != *storage.TTLService {
		t.Errorf("REMOVE record: %+v", r)
	}
	bd, err := b.StreamBounds(ctx, tb.ID, tb.LatestStreamLabel)
	if err != nil || bd.First != rs[0].Seq || bd.Last != rs[2].Seq || bd.Trimmed != 0 {
		t.Errorf("StreamBounds %+v %v", bd, err)
	}
	// A cutoff in the past keeps everything; one past the bucket's end
	// removes it and remembers the last sequence number.
	if n, err := b.TrimStreams(ctx, time.Now().Add(-2*time.Hour)); err != nil || n != 0 {
		t.Fatalf("TrimStreams in the past: %d %v", n, err)
	}
	if n, err := b.TrimStreams(ctx, time.Now().Add(time.Hour)); err != nil || n < 3 {
		t.Fatalf("TrimStreams: %d %v", n, err)
	}
	bd, err = b.StreamBounds(ctx, tb.ID, tb.LatestStreamLabel)
	if err != nil || bd.First != 0 || bd.Last != 0 || bd.Trimmed != rs[2].Seq {
		t.Errorf("after trimming: %+v %v", bd, err)
	}
	// New records follow the trimmed ones.
	if err := b.Mutate(ctx, tb, k, set("3")); err != nil {
		t.Fatal(err)
	}
	rs2 := allRecords(t, b, tb)
	if len(rs2) != 1 || rs2[0].Seq <= rs[2].Seq || rs2[0].EventName != storage.EventInsert {
		t.Fatalf("after trimming, records %+v", rs2)
	}
	if err := b.DeleteTable(ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	if bd, err := b.StreamBounds(ctx, tb.ID, tb.LatestStreamLabel); err != nil || bd != (storage.StreamBounds{}) {
		t.Errorf("after DeleteTable: %+v %v", bd, err)
	}
}

// TestStreamChains: racing writers and deleters on a few keys; per key the
// records chain (each OldImage is the previous NewImage) and replay to
// the item, and there is one record per applied write.
func TestStreamChains(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := streamTestTable(t, b)
	var mu sync.Mutex
	applied := 0
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for range 40 {
				name := fmt.Sprint("k", r.IntN(3))
				isDel := r.IntN(4) == 0
				var changed bool
				err := b.Mutate(ctx, tb, strKey(t, tb, name), func(old item.Item) (item.Item, error) {
					changed = old != nil || !isDel
					if isDel {
						return nil, nil
					}
					c := 0
					if old != nil {
						fmt.Sscan(old["c"].S, &c)
					}
					return item.Item{"pk": {Type: item.TypeS, S: name}, "c": {Type: item.TypeN, S: fmt.Sprint(c + 1)}}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				if changed {
					mu.Lock()
					applied++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	rs := allRecords(t, b, tb)
	last := map[string]item.Item{}
	var log []string
	for _, r := range rs {
		k := r.Keys["pk"].S
		log = append(log, fmt.Sprintf("%d %s %s old=%v new=%v", r.Seq, r.EventName, k, r.OldImage["c"].S, r.NewImage["c"].S))
		if !equalItems(r.OldImage, last[k]) {
			t.Fatalf("key %s: record %d OldImage %v, previous NewImage %v\n%s", k, r.Seq, r.OldImage, last[k], strings.Join(log, "\n"))
		}
		last[k] = r.NewImage
	}
	if len(rs) != applied {
		t.Errorf("%d records for %d applied writes", len(rs), applied)
	}
	for k, want := range last {
		got, err := b.GetItem(ctx, tb, strKey(t, tb, k), true)
		if err != nil || !equalItems(got, want) {
			t.Errorf("key %s: item %v, replayed %v (%v)", k, got, want, err)
		}
	}
}

// TestLease: a lease has one owner until it expires; the owner renews it.
func TestLease(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, time.Minute)
	name := "test/" + uuid.NewString()
	try := func(owner string, want bool) {
		t.Helper()
		ok, err := b.AcquireLease(ctx, name, owner, 2*time.Second)
		if err != nil || ok != want {
			t.Fatalf("AcquireLease(%s) = %v, %v; want %v", owner, ok, err, want)
		}
	}
	try("a", true)
	try("b", false)
	try("a", true) // renewal
	time.Sleep(1500 * time.Millisecond)
	try("a", true) // renewed before it lapsed
	time.Sleep(1500 * time.Millisecond)
	try("b", false) // still a's: the renewal extended it
	time.Sleep(2500 * time.Millisecond)
	try("b", true) // lapsed
	try("a", false)
	// Racing claimers of a free lease: exactly one wins.
	race := "test/" + uuid.NewString()
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for i := range 8 {
		wg.Go(func() {
			ok, err := b.AcquireLease(ctx, race, fmt.Sprint("o", i), time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				winners++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if winners != 1 {
		t.Fatalf("%d claimers won one lease", winners)
	}
}

// TestTTLFencedOnCatalog: a backfill or drain of a deleted table reports
// it and never recreates its catalog entry; a stale generation does
// nothing.
func TestTTLFencedOnCatalog(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := streamTestTable(t, b)
	for i := range 5 {
		k := fmt.Sprint("k", i)
		if err := b.Mutate(ctx, tb, strKey(t, tb, k), put(item.Item{"pk": {Type: item.TypeS, S: k}, "exp": {Type: item.TypeN, S: "100"}})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 3}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if done, err := b.BackfillTTL(ctx, tb.Account, tb.Name, 2, 2); err != nil || !done {
		t.Fatalf("stale generation: %v %v", done, err)
	}
	if done, err := b.BackfillTTL(ctx, tb.Account, tb.Name, 3, 2); err != nil || done {
		t.Fatalf("first page: %v %v", done, err)
	}
	cur, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.BackfillCursor == nil || cur.TTL.Status != storage.TTLEnabling {
		t.Fatalf("after a page: %+v %v", cur.TTL, err)
	}
	if rows, err := b.ExpiredRows(ctx, cur, 0, 1000, 100); err != nil || len(rows) != 2 {
		t.Fatalf("after a page of 2: %v %v", rows, err)
	}
	if err := b.DeleteTable(ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := b.BackfillTTL(ctx, tb.Account, tb.Name, 3, 2); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("backfill of a deleted table: %v", err)
	}
	if _, err := b.DrainTTL(ctx, tb.Account, tb.Name, 3, 2); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("drain of a deleted table: %v", err)
	}
	if _, err := b.updateEntryIf(ctx, tb.Account, tb.Name, func(*storage.Table) bool { return true }); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("fenced update of a deleted table: %v", err)
	}
	if got, err := b.readTable(ctx, tb.Account, tb.Name, gocql.Serial); err != nil || got != nil {
		t.Fatalf("catalog entry after DeleteTable: %+v %v", got, err)
	}
	if rows, err := b.ExpiredRows(ctx, cur, 0, 1000, 100); err != nil || len(rows) != 0 {
		t.Fatalf("expiry rows after DeleteTable: %v %v", rows, err)
	}
}

// Expiry rows whose items are gone (rows a write left behind: Cassandra
// writes them after the item's LWT) must not stop the TTL worker: a full
// batch of them ahead of an expired item is looked past.
func TestExpiryPastStaleRows(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := streamTestTable(t, b)
	cur, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabled, Generation: 1}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	real := item.Item{"pk": {Type: item.TypeS, S: "real"}, "exp": {Type: item.TypeN, S: "500"}}
	if err := b.Mutate(ctx, cur, strKey(t, cur, "real"), put(real)); err != nil {
		t.Fatal(err)
	}
	// Three stale rows, at earlier seconds than the real item's.
	for i := range 3 {
		k := strKey(t, cur, fmt.Sprint("gone", i))
		shard := ttlShard(k.PK)
		if err := b.s.Query(`INSERT INTO `+b.catalog+`.ttl_rows (tid, gen, shard, expire_at, pk, sk) VALUES (?, ?, ?, ?, ?, ?)`,
			cur.ID, int64(1), shard, int64(100+i), k.PK, storage.StoredSK(k.SK)).WithContext(ctx).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	w := workers.NewTTL(b, workers.TTLConfig{PageConfig: workers.PageConfig{Accounts: []string{cur.Account}, Now: func() time.Time { return time.Unix(1000, 0) }}, Batch: 2})
	n, err := w.ExpireTable(ctx, cur)
	if err != nil || n != 1 {
		t.Fatalf("ExpireTable = %d, %v; want the real item deleted past the stale rows", n, err)
	}
	if got, _ := b.GetItem(ctx, cur, strKey(t, cur, "real"), true); got != nil {
		t.Fatalf("the expired item is still there: %v", got)
	}
}
