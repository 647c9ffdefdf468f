package cassandra

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestBackfillCursorOfScanOrderRestarts: a backfill cursor stored by a
// release whose backfill read in scan order (a cursor with no
// BackfillOrder) cannot be read as a position in token order, so the
// backfill starts again from the beginning and registers every item;
// planted as a token-order cursor (TokenOrder), the same key is resumed
// after. The cursor is the last key in token order: resumed after in
// token order it would register nothing.
func TestBackfillCursorOfScanOrderRestarts(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := bulkTable(t, b)
	var its []item.Item
	for p := range 20 {
		its = append(its, ttlItem(fmt.Sprint("p", p), "s", int64(100+p)))
	}
	writeAll(t, ctx, b, tb, its, put)
	order, err := b.BackfillOrder(ctx, tb.Account, tb.Name)
	if err != nil || len(order) != len(its) {
		t.Fatalf("backfill order: %d keys, %v", len(order), err)
	}
	last := order[len(order)-1]
	for gen, tc := range []struct {
		order string
		want  int
	}{{"", len(its)}, {TokenOrder, 0}} {
		gen := int64(2*gen + 1)
		setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: gen,
			BackfillCursor: &last, BackfillOrder: tc.order})
		backfillAll(t, ctx, b, tb, gen, 7)
		if rows := ttlRowsOf(t, b, tb); len(rows) != tc.want {
			t.Errorf("cursor at the last key in token order, order %q: %d items registered, want %d", tc.order, len(rows), tc.want)
		}
		// Disable and drain, for the next round.
		setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLDisabling, Generation: gen + 1})
		for done := false; !done; {
			if done, err = b.DrainTTL(ctx, tb.Account, tb.Name, gen+1, 100); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBackfillPageRedone: a backfill page whose expiry rows were written
// but whose cursor was never stored (its server stopped in between) is
// read and written again by the next page: the backfill writes the
// first page's rows again (as many expiry rows written as items, counted
// in the statements sent), skips no item and ends. Rows are keyed by item,
// so a row written again is the same row (each item has one, at its time).
func TestBackfillPageRedone(t *testing.T) {
	b, log := openObserved(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := observedTable(t, b, log)
	var its []item.Item
	for i := range 30 {
		its = append(its, ttlItem(fmt.Sprint("p", i%4), fmt.Sprint("s", i), int64(100+i)))
	}
	writeAll(t, ctx, b, tb, its, put)
	tb = setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1})
	// The first page up to its expiry rows, as BackfillTTL writes them.
	rows, err := b.readTokenPage(ctx, b.phys(tb), nil, 8)
	if err != nil || len(rows) != 8 {
		t.Fatalf("first page: %d rows, %v", len(rows), err)
	}
	if err := b.backfillRows(ctx, tb, 1, rows); err != nil {
		t.Fatal(err)
	}
	log.take()
	if pages := backfillAll(t, ctx, b, tb, 1, 8); pages != 4 {
		t.Errorf("the backfill took %d pages of 8 for 30 items, want 4 (the first page redone)", pages)
	}
	if n := expiryRowsWritten(log.take()); n != len(its) {
		t.Errorf("the backfill wrote %d expiry rows, want one per item, %d (the first page's again)", n, len(its))
	}
	want := map[string]int64{}
	for _, it := range its {
		k, _ := storage.ItemKey(tb, it)
		want[fmt.Sprintf("%x/%x", k.PK, k.SK)] = storage.TTLBackfillRow(tb, it).ExpireAt
	}
	got := ttlRowsOf(t, b, tb)
	for _, r := range got {
		if k := fmt.Sprintf("%x/%x", r.Key.PK, r.Key.SK); want[k] != r.ExpireAt {
			t.Errorf("expiry row %s at %d, want at %d", k, r.ExpireAt, want[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d items registered, want %d", len(got), len(want))
	}
	if cur, err := b.GetTable(ctx, tb.Account, tb.Name); err != nil || cur.TTL.Status != storage.TTLEnabled {
		t.Fatalf("after the backfill: %+v, %v", cur.TTL, err)
	}
}

// expiryRowsWritten is how many expiry rows the batches among lines (a
// statementLog's) write.
func expiryRowsWritten(lines []string) int {
	n := 0
	for _, l := range lines {
		var rows int
		if _, err := fmt.Sscanf(l, "batch(%d: write ttl_rows)", &rows); err == nil {
			n += rows
		}
	}
	return n
}

// TestBackfillEmptyTable: the backfill of an empty table is done after its
// first page, which finds nothing after the start of the ring.
func TestBackfillEmptyTable(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := bulkTable(t, b)
	setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1})
	if done, err := b.BackfillTTL(ctx, tb.Account, tb.Name, 1, 1); err != nil || !done {
		t.Fatalf("first page of an empty table: done %v, %v", done, err)
	}
	cur, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled || cur.TTL.BackfillCursor != nil || cur.TTL.BackfillOrder != "" {
		t.Fatalf("after the backfill: %+v, %v", cur.TTL, err)
	}
}

// staleTTLWriteDuringFirstPage: frontend A loads a table's entry while
// its TTL is DISABLED; frontend B enables the TTL and starts the backfill
// (pages of 2 items). Writing 2.5 s after that start on its entry (the
// entry budget is set above that), A puts a new item whose key is the
// first in token order, so that only the first page can register it:
// while that page still waits its grace when there is one (the grace is
// set above 2.5 s), after the page otherwise. The write, from a stale
// entry, keeps no expiry row of its own (checked at once). The backfill
// then runs to its end; it returns the expiry rows of the new item.
func staleTTLWriteDuringFirstPage(t *testing.T) []storage.TTLRow {
	t.Helper()
	a, bk := backend(t), otherFrontend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := bulkTable(t, a)
	var its []item.Item
	for i := range 5 {
		its = append(its, ttlItem(fmt.Sprint("p", i), "s", 100))
	}
	writeAll(t, ctx, a, tb, its, put)
	order, err := a.BackfillOrder(ctx, tb.Account, tb.Name)
	if err != nil || len(order) != len(its) {
		t.Fatalf("backfill order: %d keys, %v", len(order), err)
	}
	// The new item: in the partition first in token order, before its item.
	var late item.Item
	for _, it := range its {
		if k, _ := storage.ItemKey(tb, it); bytes.Equal(k.PK, order[0].PK) {
			late = ttlItem(it["pk"].S, "a", 200)
		}
	}
	tA, err := a.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	cur := setTTL(t, ctx, bk, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1})
	start := time.Now()
	firstPage := make(chan error, 1)
	go func() {
		_, err := bk.BackfillTTL(ctx, tb.Account, tb.Name, 1, 2)
		firstPage <- err
	}()
	time.Sleep(2500 * time.Millisecond)
	pending := true
	if bk.backfillGrace() == 0 {
		if err := <-firstPage; err != nil {
			t.Fatal(err)
		}
		pending = false
	}
	if tA.TTL.Maintained() {
		t.Fatal("A's entry has the TTL on: the test exercises nothing")
	}
	writeAll(t, ctx, a, tA, []item.Item{late}, put)
	if pending && time.Since(start) >= bk.backfillGrace() {
		t.Fatalf("A's write landed %v after the backfill's start, after the grace of %v", time.Since(start), bk.backfillGrace())
	}
	if rows := lateRows(t, bk, cur); len(rows) != 0 {
		t.Fatalf("A's write from its stale entry kept %d expiry rows: the test exercises nothing", len(rows))
	}
	if pending {
		if err := <-firstPage; err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("first page after %v (grace %v)", time.Since(start), bk.backfillGrace())
	backfillAll(t, ctx, bk, tb, 1, 2)
	if len(ttlRowsOf(t, bk, tb)) < len(its) {
		t.Fatalf("the backfill did not register the %d items", len(its))
	}
	return lateRows(t, bk, cur)
}

// lateRows returns the expiry rows of tb at 200, those of the late item
// of staleTTLWriteDuringFirstPage.
func lateRows(t *testing.T, b *Backend, tb *storage.Table) []storage.TTLRow {
	t.Helper()
	var out []storage.TTLRow
	for _, r := range ttlRowsOf(t, b, tb) {
		if r.ExpireAt == 200 {
			out = append(out, r)
		}
	}
	return out
}

// TestTTLStaleEntryWriteAfterBackfill: a TTL backfill reads its first page
// only backfillGrace after it found the TTL ENABLING, so a write that
// commits during that grace, on an entry a frontend loaded before the TTL
// was enabled (within its budget, so it keeps no expiry row itself), is
// read by the first page and its item will expire, as every item whose
// TTL attribute is in the past does once the TTL is on (UpdateTimeToLive,
// https://docs.aws.amazon.com/goto/WebAPI/dynamodb-2012-08-10/UpdateTimeToLive).
// Writes after the first page derive their rows from a fresh entry (the
// entry budget is shorter than the grace). The item's key comes first in
// token order: a grace anywhere but before the first page's read would
// leave it unregistered.
func TestTTLStaleEntryWriteAfterBackfill(t *testing.T) {
	withFreshness(t, 5*time.Second, 6*time.Second)
	if rows := staleTTLWriteDuringFirstPage(t); len(rows) != 1 {
		t.Fatalf("the write during the grace has %d expiry rows, want 1", len(rows))
	}
}

// TestTTLStaleEntryWithoutGrace is the negative control of the grace:
// with none, the first page reads before A's write, which keeps no expiry
// row from its stale entry, so its item would never expire.
func TestTTLStaleEntryWithoutGrace(t *testing.T) {
	withFreshness(t, 30*time.Second, 0)
	if rows := staleTTLWriteDuringFirstPage(t); len(rows) != 0 {
		t.Fatalf("without a grace the late write has %d expiry rows, want none", len(rows))
	}
}

// ttlItem is an item of bulkTable expiring at exp.
func ttlItem(pk, sk string, exp int64) item.Item {
	return item.Item{"pk": item.S(pk), "sk": item.S(sk), "exp": item.N(fmt.Sprint(exp))}
}

// setTTL stores ttl as the TTL of tb's entry and returns the entry.
func setTTL(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, ttl storage.TimeToLive) *storage.Table {
	t.Helper()
	cur, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = ttl
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// backfillAll runs BackfillTTL pages of limit items on tb's generation gen
// until done, and returns how many it took.
func backfillAll(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, gen int64, limit int) int {
	t.Helper()
	pages := 0
	for done := false; !done; pages++ {
		if pages > 100 {
			t.Fatalf("backfill not done after %d pages", pages)
		}
		var err error
		if done, err = b.BackfillTTL(ctx, tb.Account, tb.Name, gen, limit); err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// ttlRowsOf returns every expiry row of the current generation of tb's
// table.
func ttlRowsOf(t *testing.T, b *Backend, tb *storage.Table) []storage.TTLRow {
	t.Helper()
	cur, err := b.GetTable(ctxT(t, time.Minute), tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.ExpiredRows(ctxT(t, time.Minute), cur, math.MinInt64, math.MaxInt64, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
