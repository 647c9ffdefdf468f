package storagetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Contract tests of storage.StreamStore and storage.TTLStore: stream
// records commit atomically with their writes, in per-item order, and
// none for writes that change nothing; expiry rows always agree with the
// items; a backfill resumes from a planted cursor.

// streamTTLTests are added to Run's list.
var streamTTLTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"StreamRecordsWithWrites", testStreamRecords},
	{"StreamRecordsAtomic", testStreamAtomic},
	{"StreamPerItemOrder", testStreamOrder},
	{"TTLRowsAgreeWithItems", testTTLAgreement},
	{"TTLBackfillResume", testTTLBackfillResume},
	{"TTLBackfillWhileWriting", testTTLBackfillWhileWriting},
	{"TTLDrain", testTTLDrain},
	{"TTLPagesOfDeletedTable", testTTLPagesOfDeletedTable},
}

// RunSharedStreams runs the stream tests at the same time on the one
// backend b, rounds times over, each in a subtest that -parallel does not
// hold back (under Run how much they overlap depends on the machine's
// CPUs).
func RunSharedStreams(t *testing.T, b storage.Backend, rounds int) {
	for r := range rounds {
		t.Run(fmt.Sprint("round", r), func(t *testing.T) {
			var wg sync.WaitGroup
			for _, tc := range streamTTLTests {
				if !strings.HasPrefix(tc.name, "Stream") {
					continue
				}
				wg.Go(func() {
					t.Run(tc.name, func(t *testing.T) {
						ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
						defer cancel()
						tc.fn(t, &env{t: t, b: b, ctx: ctx, account: newAccount()})
					})
				})
			}
			wg.Wait()
		})
	}
}

// streamGates holds, per backend, the gate between TrimStreams and the
// tests that count their stream's records. Trimming is global: it removes
// the old records of every stream of the backend, those of the other
// subtests included when they share it (Run lets open return one backend
// for all). So the test that trims holds its backend's gate alone, and
// every other stream test holds it shared, each for the rest of the test.
var (
	streamGates sync.Map // storage.Backend -> *sync.RWMutex
	gateHeld    sync.Map // *testing.T -> true, once the test holds its gate
)

// holdStreams takes the backend's stream gate until the test ends: alone
// when trims is set, else shared. A test takes it once (a second shared
// hold could wait behind a queued trimmer forever).
func (e *env) holdStreams(trims bool) {
	e.t.Helper()
	if _, held := gateHeld.LoadOrStore(e.t, true); held {
		e.t.Fatal("stream gate taken twice by one test")
	}
	g, _ := streamGates.LoadOrStore(e.b, new(sync.RWMutex))
	gate := g.(*sync.RWMutex)
	if trims {
		gate.Lock()
		e.t.Cleanup(gate.Unlock)
	} else {
		gate.RLock()
		e.t.Cleanup(gate.RUnlock)
	}
	e.t.Cleanup(func() { gateHeld.Delete(e.t) })
}

// streamTable creates a table with an enabled NEW_AND_OLD_IMAGES stream,
// holding the backend's stream gate (see holdStreams) for the rest of the
// test.
func (e *env) streamTable(name string, trims bool) (*storage.Table, storage.StreamStore) {
	e.t.Helper()
	var ss storage.StreamStore = e.b
	e.holdStreams(trims)
	tb := e.table(name, "")
	tb.Stream = storage.StreamSpecification{StreamEnabled: true, StreamViewType: storage.ViewNewAndOldImage}
	tb.LatestStreamLabel = "2024-01-01T00:00:00.000"
	return e.create(tb), ss
}

func (e *env) records(ss storage.StreamStore, tb *storage.Table) []*storage.StreamRecord {
	e.t.Helper()
	var out []*storage.StreamRecord
	after := uint64(0)
	for {
		rs, err := ss.ReadStream(e.ctx, tb.ID, tb.LatestStreamLabel, after, 50)
		if err != nil {
			e.t.Fatalf("ReadStream: %v", err)
		}
		if len(rs) == 0 {
			return out
		}
		for _, r := range rs {
			if r.Seq <= after {
				e.t.Fatalf("sequence number %d after %d", r.Seq, after)
			}
			after = r.Seq
		}
		out = append(out, rs...)
	}
}

func testStreamRecords(t *testing.T, e *env) {
	tb, ss := e.streamTable("streams", true) // it trims
	k := e.key(tb, item.Item{"pk": s("a")})
	e.put(tb, item.Item{"pk": s("a"), "v": n("1")})
	e.put(tb, item.Item{"pk": s("a"), "v": n("1")}) // equal image: no record
	e.put(tb, item.Item{"pk": s("a"), "v": n("2")})
	e.del(tb, e.key(tb, item.Item{"pk": s("missing")})) // nothing deleted: no record
	if err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) { return old, nil }); err != nil {
		t.Fatal(err) // returning old writes nothing
	}
	if err := e.b.Mutate(e.ctx, tb, k, func(item.Item) (item.Item, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("failing Mutate succeeded")
	}
	ctx := storage.WithUserIdentity(e.ctx, storage.TTLService)
	if err := e.b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	// A transaction emits one record per changed item.
	if err := e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("b")}), Fn: func(item.Item) (item.Item, error) { return item.Item{"pk": s("b")}, nil }},
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("c")}), Fn: func(item.Item) (item.Item, error) { return item.Item{"pk": s("c")}, nil }},
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("d")}), Fn: func(old item.Item) (item.Item, error) { return old, nil }},
	}); err != nil {
		t.Fatal(err)
	}
	rs := e.records(ss, tb)
	var got []string
	for _, r := range rs {
		got = append(got, r.EventName+" "+r.Keys["pk"].S)
	}
	want := "[INSERT a MODIFY a REMOVE a INSERT b INSERT c]"
	if fmt.Sprint(got) != want && fmt.Sprint(got) != "[INSERT a MODIFY a REMOVE a INSERT c INSERT b]" {
		t.Fatalf("records %v, want %s", got, want)
	}
	if m := rs[1]; m.OldImage["v"].S != "1" || m.NewImage["v"].S != "2" || m.ViewType != storage.ViewNewAndOldImage || m.SizeBytes <= 0 || m.Identity != nil {
		t.Errorf("MODIFY record: %+v", m)
	}
	if r := rs[2]; r.NewImage != nil || r.OldImage["v"].S != "2" || r.Identity == nil || *r.Identity != *storage.TTLService {
		t.Errorf("REMOVE record: %+v", r)
	}
	bd, err := ss.StreamBounds(e.ctx, tb.ID, tb.LatestStreamLabel)
	if err != nil || bd.First != rs[0].Seq || bd.Last != rs[len(rs)-1].Seq || bd.Trimmed != 0 {
		t.Errorf("StreamBounds %+v %v", bd, err)
	}
	// Trimming removes old records, of every stream, and remembers how
	// far: streamTable took the gate alone, so the other stream tests
	// sharing this backend wait (see holdStreams).
	if _, err := ss.TrimStreams(e.ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	bd, err = ss.StreamBounds(e.ctx, tb.ID, tb.LatestStreamLabel)
	if err != nil || bd.First != 0 || bd.Trimmed != rs[len(rs)-1].Seq {
		t.Errorf("after trimming: %+v %v", bd, err)
	}
	// Deleting the table removes its records.
	if err := e.b.DeleteTable(e.ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	if bd, err := ss.StreamBounds(e.ctx, tb.ID, tb.LatestStreamLabel); err != nil || bd != (storage.StreamBounds{}) {
		t.Errorf("after DeleteTable: %+v %v", bd, err)
	}
}

// testStreamAtomic: a cancelled transaction leaves no record; every
// committed write has exactly its record.
func testStreamAtomic(t *testing.T, e *env) {
	tb, ss := e.streamTable("atomic", false)
	err := e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("x")}), Fn: func(item.Item) (item.Item, error) { return item.Item{"pk": s("x")}, nil }},
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("y")}), Fn: func(item.Item) (item.Item, error) { return nil, errors.New("cancel") }},
	})
	var te *storage.TransactionError
	if !errors.As(err, &te) {
		t.Fatalf("TransactWrite: %v", err)
	}
	if rs := e.records(ss, tb); len(rs) != 0 {
		t.Fatalf("cancelled transaction left %d records", len(rs))
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 25 {
				it := item.Item{"pk": s(fmt.Sprint("k", w, "-", i))}
				if err := e.b.Mutate(e.ctx, tb, e.key(tb, it), func(item.Item) (item.Item, error) { return it, nil }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if rs := e.records(ss, tb); len(rs) != 200 {
		t.Fatalf("%d records for 200 writes", len(rs))
	}
}

// testStreamOrder: racing writers on a few keys; per key, the records
// chain (each OldImage is the previous NewImage) and the last NewImage is
// the item.
func testStreamOrder(t *testing.T, e *env) {
	tb, ss := e.streamTable("order", false)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 40 {
				name := fmt.Sprint("k", r.IntN(3))
				k := e.key(tb, item.Item{"pk": s(name)})
				del := r.IntN(4) == 0
				err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
					if del {
						return nil, nil
					}
					c := 0
					if old != nil {
						fmt.Sscan(old["c"].S, &c)
					}
					return item.Item{"pk": s(name), "c": n(fmt.Sprint(c + 1))}, nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	last := map[string]item.Item{}
	for _, r := range e.records(ss, tb) {
		k := r.Keys["pk"].S
		if !equalItems(r.OldImage, last[k]) {
			t.Fatalf("key %s: record %d OldImage %v, previous NewImage %v", k, r.Seq, r.OldImage, last[k])
		}
		last[k] = r.NewImage
	}
	for k, want := range last {
		e.wantItem("replayed "+k, e.get(tb, e.key(tb, item.Item{"pk": s(k)})), want)
	}
}

// ttlTable creates a table whose TTL is ENABLED on attribute "exp".
func (e *env) ttlTable(name string, status string) (*storage.Table, storage.TTLStore) {
	e.t.Helper()
	var ts storage.TTLStore = e.b
	tb := e.table(name, "S")
	tb.TTL = storage.TimeToLive{AttributeName: "exp", Status: status, Generation: 1}
	return e.create(tb), ts
}

// ttlRows returns every expiry row of tb.
func (e *env) ttlRows(ts storage.TTLStore, tb *storage.Table) map[string]int64 {
	e.t.Helper()
	rows, err := ts.ExpiredRows(e.ctx, tb, math.MinInt64, math.MaxInt64, 1<<20)
	if err != nil {
		e.t.Fatalf("ExpiredRows: %v", err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[fmt.Sprintf("%x/%x", r.Key.PK, r.Key.SK)] = r.ExpireAt
	}
	return out
}

// wantTTLAgreement checks that tb's expiry rows are exactly those its items
// derive.
func (e *env) wantTTLAgreement(ts storage.TTLStore, tb *storage.Table) {
	e.t.Helper()
	want := map[string]int64{}
	for _, r := range e.scan(tb, storage.ScanRequest{Consistent: true}) {
		if row := storage.TTLBackfillRow(tb, r.Item); row != nil {
			want[fmt.Sprintf("%x/%x", row.Key.PK, row.Key.SK)] = row.ExpireAt
		}
	}
	got := e.ttlRows(ts, tb)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		e.t.Fatalf("expiry rows disagree with items:\n got %v\nwant %v", got, want)
	}
}

func testTTLAgreement(t *testing.T, e *env) {
	tb, ts := e.ttlTable("ttlagree", storage.TTLEnabled)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for range 50 {
				it := item.Item{"pk": s(fmt.Sprint("p", r.IntN(4))), "sk": s(fmt.Sprint("s", r.IntN(5)))}
				switch r.IntN(5) {
				case 0:
					e.del(tb, e.key(tb, it))
					continue
				case 1:
					it["exp"] = s("not a number")
				case 2:
				default:
					it["exp"] = n(fmt.Sprint(1700000000 + r.IntN(3)))
				}
				e.put(tb, it)
			}
		})
	}
	wg.Wait()
	e.wantTTLAgreement(ts, tb)
	// Expired rows are ordered and bounded.
	rows, err := ts.ExpiredRows(e.ctx, tb, 1700000000, 1700000001, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.ExpireAt != 1700000001 {
			t.Fatalf("ExpiredRows (1700000000, 1700000001]: row at %d", r.ExpireAt)
		}
	}
	// A DISABLED table's writes keep no rows.
	off, _ := e.ttlTable("ttloff", storage.TTLDisabled)
	e.put(off, item.Item{"pk": s("a"), "sk": s("b"), "exp": n("1")})
	if got := e.ttlRows(ts, off); len(got) != 0 {
		t.Fatalf("DISABLED table has expiry rows %v", got)
	}
}

// testTTLBackfillResume: a backfill resumes after its cursor in the
// backend's own backfill order (storage.TTLStore, docs/adr/0018g), which
// the test learns from the backend: a first backfill from no cursor, page
// by page, records the rows each page registers (the pages partition the
// items) and the cursor stored after it; after a drain, the cursor of page
// k planted under a new generation registers exactly the items of pages
// k+1 onwards, storing the same cursors as the first run (the order is
// stable on a quiet table), fenced on the generation, then makes the TTL
// ENABLED.
func testTTLBackfillResume(t *testing.T, e *env) {
	var ts storage.TTLStore = e.b
	tb := e.create(e.table("ttlresume", "S"))
	const items, limit = 120, 9
	for i := range items {
		e.put(tb, item.Item{"pk": s(fmt.Sprint("p", i%12)), "sk": s(fmt.Sprint("s", i)), "exp": n(fmt.Sprint(1000 + i))})
	}
	tb = e.enableTTLAt(tb, 7, storage.TimeToLive{})
	pages, cursors := e.backfillPages(ts, tb, 7, limit)
	seen := map[string]bool{}
	for i, pg := range pages {
		if i < len(pages)-1 && len(pg) != limit {
			t.Fatalf("page %d of %d registered %d items, want %d (no tombstones in this table)", i, len(pages), len(pg), limit)
		}
		for _, k := range pg {
			seen[k] = true
		}
	}
	if len(seen) != items {
		t.Fatalf("first backfill registered %d items, want %d", len(seen), items)
	}
	if _, err := e.b.UpdateTable(e.ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL.Status, t.TTL.Generation = storage.TTLDisabling, 8
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		var err error
		if done, err = ts.DrainTTL(e.ctx, tb.Account, tb.Name, 8, 50); err != nil {
			t.Fatal(err)
		}
	}
	k := len(cursors) / 3
	tb = e.enableTTLAt(tb, 9, cursors[k])
	// A stale generation does nothing.
	if done, err := ts.BackfillTTL(e.ctx, tb.Account, tb.Name, 8, limit); err != nil || !done {
		t.Fatalf("stale generation: %v %v", done, err)
	}
	if got := e.ttlRows(ts, tb); len(got) != 0 {
		t.Fatalf("stale generation registered %d items", len(got))
	}
	_, again := e.backfillPages(ts, tb, 9, limit)
	if cursorStrings(again) != cursorStrings(cursors[k+1:]) {
		t.Fatalf("resumed backfill stored cursors %s, want the first run's after page %d %s", cursorStrings(again), k, cursorStrings(cursors[k+1:]))
	}
	want := map[string]bool{}
	for _, pg := range pages[k+1:] {
		for _, key := range pg {
			want[key] = true
		}
	}
	cur, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled || cur.TTL.BackfillCursor != nil {
		t.Fatalf("after the backfill: %+v %v", cur.TTL, err)
	}
	got := e.ttlRows(ts, cur)
	if len(got) != len(want) {
		t.Fatalf("resumed backfill registered %d items, want the %d of pages %d.. of the first run", len(got), len(want), k+1)
	}
	for key := range got {
		if !want[key] {
			t.Fatalf("resumed backfill registered %s, at or before the cursor", key)
		}
	}
}

// enableTTLAt sets tb's TTL ENABLING on attribute exp with generation gen
// and the backfill cursor (with its order) of from.
func (e *env) enableTTLAt(tb *storage.Table, gen int64, from storage.TimeToLive) *storage.Table {
	e.t.Helper()
	tb, err := e.b.UpdateTable(e.ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: gen,
			BackfillCursor: from.BackfillCursor, BackfillOrder: from.BackfillOrder}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tb
}

// cursorStrings formats the backfill cursors of ttls as order:pk/sk in hex.
func cursorStrings(ttls []storage.TimeToLive) string {
	out := make([]string, len(ttls))
	for i, t := range ttls {
		out[i] = fmt.Sprintf("%s:%x/%x", t.BackfillOrder, t.BackfillCursor.PK, t.BackfillCursor.SK)
	}
	return strings.Join(out, " ")
}

// backfillPages runs tb's backfill of generation gen page by page until
// done and returns the keys each page newly registered (rows registered
// earlier must stay) and the TTL (its cursor and the cursor's order)
// stored after each page but the last.
func (e *env) backfillPages(ts storage.TTLStore, tb *storage.Table, gen int64, limit int) (pages [][]string, cursors []storage.TimeToLive) {
	e.t.Helper()
	seen := e.ttlRows(ts, tb)
	for done := false; !done; {
		if len(pages) > 1000 {
			e.t.Fatalf("backfill not done after %d pages", len(pages))
		}
		var err error
		if done, err = ts.BackfillTTL(e.ctx, tb.Account, tb.Name, gen, limit); err != nil {
			e.t.Fatal(err)
		}
		cur, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
		if err != nil {
			e.t.Fatal(err)
		}
		rows := e.ttlRows(ts, cur)
		var page []string
		for key := range rows {
			if _, ok := seen[key]; !ok {
				page = append(page, key)
			}
		}
		if len(rows) != len(seen)+len(page) {
			e.t.Fatalf("page %d removed registered rows", len(pages))
		}
		seen = rows
		pages = append(pages, page)
		if !done {
			if cur.TTL.BackfillCursor == nil {
				e.t.Fatalf("no cursor stored after page %d", len(pages)-1)
			}
			cursors = append(cursors, cur.TTL)
		}
	}
	return pages, cursors
}

// testTTLBackfillWhileWriting: items written and deleted between the
// pages of a backfill, the item at the stored cursor among them, leave
// every item with exactly its expiry row when the backfill is done (the
// writes keep their own rows while the TTL is ENABLING; a cursor whose
// item is gone is still a position in the backfill order), within a
// bounded number of pages. DynamoDB compares every item's TTL attribute
// with the current time once the TTL is enabled, whenever the item was
// written (UpdateTimeToLive in the API reference,
// https://docs.aws.amazon.com/goto/WebAPI/dynamodb-2012-08-10/UpdateTimeToLive).
func testTTLBackfillWhileWriting(t *testing.T, e *env) {
	var ts storage.TTLStore = e.b
	tb := e.create(e.table("ttlwrites", "S"))
	for i := range 60 {
		it := item.Item{"pk": s(fmt.Sprint("p", i%6)), "sk": s(fmt.Sprint("s", i))}
		if i%7 != 0 {
			it["exp"] = n(fmt.Sprint(1000 + i))
		}
		e.put(tb, it)
	}
	tb = e.enableTTLAt(tb, 3, storage.TimeToLive{})
	pages, cursorsDeleted := 0, 0
	for done := false; !done; pages++ {
		if pages > 100 {
			t.Fatalf("backfill not done after %d pages of 4", pages)
		}
		var err error
		if done, err = ts.BackfillTTL(e.ctx, tb.Account, tb.Name, 3, 4); err != nil {
			t.Fatal(err)
		}
		cur, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			if cur.TTL.Status != storage.TTLEnabled || cur.TTL.BackfillCursor != nil {
				t.Fatalf("after the backfill: %+v", cur.TTL)
			}
			break
		}
		if c := cur.TTL.BackfillCursor; c != nil && pages%2 == 0 {
			e.del(tb, *c)
			cursorsDeleted++
		}
		e.put(tb, item.Item{"pk": s(fmt.Sprint("n", pages)), "sk": s("x"), "exp": n(fmt.Sprint(2000 + pages))})
		e.put(tb, item.Item{"pk": s(fmt.Sprint("p", pages%6)), "sk": s(fmt.Sprint("s", (pages*5)%60)), "exp": n(fmt.Sprint(3000 + pages))})
		e.del(tb, e.key(tb, item.Item{"pk": s(fmt.Sprint("p", (pages+3)%6)), "sk": s(fmt.Sprint("s", (pages*11+3)%60))}))
	}
	if cursorsDeleted == 0 {
		t.Fatal("no cursor's item was deleted: the test did not run its case")
	}
	e.wantTTLAgreement(ts, tb)
}

func testTTLDrain(t *testing.T, e *env) {
	tb, ts := e.ttlTable("ttldrain", storage.TTLEnabled)
	for i := range 30 {
		e.put(tb, item.Item{"pk": s("p"), "sk": s(fmt.Sprint(i)), "exp": n("5")})
	}
	tb, err := e.b.UpdateTable(e.ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL.Status, t.TTL.Generation = storage.TTLDisabling, 2
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.put(tb, item.Item{"pk": s("p"), "sk": s("new"), "exp": n("5")}) // not maintained while DISABLING
	for done := false; !done; {
		if done, err = ts.DrainTTL(context.WithoutCancel(e.ctx), tb.Account, tb.Name, 2, 7); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.ttlRows(ts, tb); len(got) != 0 {
		t.Fatalf("%d rows after the drain", len(got))
	}
	cur, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLDisabled || cur.TTL.AttributeName != "" {
		t.Fatalf("after the drain: %+v %v", cur.TTL, err)
	}
}

// testTTLPagesOfDeletedTable: a backfill or drain page of a table that is
// gone reports storage.ErrTableNotFound, and not done (the job ends on the
// error, as for an index build whose table is gone), alike on every
// backend.
func testTTLPagesOfDeletedTable(t *testing.T, e *env) {
	for _, status := range []string{storage.TTLEnabling, storage.TTLDisabling} {
		tb, ts := e.ttlTable("ttlgone"+strings.ToLower(status), status)
		e.put(tb, item.Item{"pk": s("p"), "sk": s("1"), "exp": n("5")})
		if err := e.b.DeleteTable(e.ctx, tb.Account, tb.Name); err != nil {
			t.Fatal(err)
		}
		page := map[string]func(ctx context.Context, account, name string, gen int64, limit int) (bool, error){
			storage.TTLEnabling: ts.BackfillTTL, storage.TTLDisabling: ts.DrainTTL}[status]
		if done, err := page(e.ctx, tb.Account, tb.Name, 1, 10); done || !errors.Is(err, storage.ErrTableNotFound) {
			t.Fatalf("%s page of a deleted table = %v, %v; want false, ErrTableNotFound", status, done, err)
		}
	}
}
