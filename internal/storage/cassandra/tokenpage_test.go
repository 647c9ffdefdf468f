package cassandra

import (
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
		its = append(its, item.Item{"pk": item.S(fmt.Sprint("p", p)), "sk": item.S("s"), "exp": item.N(fmt.Sprint(100 + p))})
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
		if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
			t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: gen,
				BackfillCursor: &last, BackfillOrder: tc.order}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for done, pages := false, 0; !done; pages++ {
			if pages > 50 {
				t.Fatalf("order %q: backfill not done after %d pages", tc.order, pages)
			}
			if done, err = b.BackfillTTL(ctx, tb.Account, tb.Name, gen, 7); err != nil {
				t.Fatal(err)
			}
		}
		cur, err := b.GetTable(ctx, tb.Account, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := b.ExpiredRows(ctx, cur, math.MinInt64, math.MaxInt64, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != tc.want {
			t.Errorf("cursor at the last key in token order, order %q: %d items registered, want %d", tc.order, len(rows), tc.want)
		}
		// Disable and drain, for the next round.
		if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
			t.TTL.Status, t.TTL.Generation = storage.TTLDisabling, gen+1
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for done := false; !done; {
			if done, err = b.DrainTTL(ctx, tb.Account, tb.Name, gen+1, 100); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBackfillPageRedone: a backfill page whose expiry rows were written
// but whose cursor was never stored (its server stopped in between) is
// read and written again by the next page: the backfill neither skips
// items nor registers one twice, and ends.
func TestBackfillPageRedone(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := bulkTable(t, b)
	var its []item.Item
	for i := range 30 {
		its = append(its, item.Item{"pk": item.S(fmt.Sprint("p", i%4)), "sk": item.S(fmt.Sprint("s", i)), "exp": item.N(fmt.Sprint(100 + i))})
	}
	writeAll(t, ctx, b, tb, its, put)
	tb, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The first page up to its expiry rows, as BackfillTTL writes them.
	rows, err := b.readTokenPage(ctx, b.phys(tb), nil, 8)
	if err != nil || len(rows) != 8 {
		t.Fatalf("first page: %d rows, %v", len(rows), err)
	}
	if err := b.backfillRows(ctx, tb, 1, rows); err != nil {
		t.Fatal(err)
	}
	pages := 0
	for done := false; !done; pages++ {
		if pages > 10 {
			t.Fatalf("backfill not done after %d pages", pages)
		}
		if done, err = b.BackfillTTL(ctx, tb.Account, tb.Name, 1, 8); err != nil {
			t.Fatal(err)
		}
	}
	if pages != 4 {
		t.Errorf("the backfill took %d pages of 8 for 30 items, want 4 (the first page redone)", pages)
	}
	cur, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled {
		t.Fatalf("after the backfill: %+v, %v", cur.TTL, err)
	}
	got, err := b.ExpiredRows(ctx, cur, math.MinInt64, math.MaxInt64, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, it := range its {
		k, _ := storage.ItemKey(tb, it)
		want[fmt.Sprintf("%x/%x", k.PK, k.SK)] = storage.TTLBackfillRow(tb, it).ExpireAt
	}
	seen := map[string]bool{}
	for _, r := range got {
		k := fmt.Sprintf("%x/%x", r.Key.PK, r.Key.SK)
		if seen[k] || want[k] != r.ExpireAt {
			t.Errorf("expiry row %s at %d: twice %v, want at %d", k, r.ExpireAt, seen[k], want[k])
		}
		seen[k] = true
	}
	if len(seen) != len(want) {
		t.Errorf("%d items registered, want %d", len(seen), len(want))
	}
}

// TestBackfillEmptyTable: the backfill of an empty table is done after its
// first page, which finds nothing after the start of the ring.
func TestBackfillEmptyTable(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := bulkTable(t, b)
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if done, err := b.BackfillTTL(ctx, tb.Account, tb.Name, 1, 1); err != nil || !done {
		t.Fatalf("first page of an empty table: done %v, %v", done, err)
	}
	cur, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled || cur.TTL.BackfillCursor != nil || cur.TTL.BackfillOrder != "" {
		t.Fatalf("after the backfill: %+v, %v", cur.TTL, err)
	}
}

// staleTTLWriteAfterBackfill: frontend A loads a table's entry while its
// TTL is DISABLED; frontend B enables the TTL and runs the whole backfill;
// then A writes a new item with an expiry time on its entry. It returns
// the expiry rows of that item.
func staleTTLWriteAfterBackfill(t *testing.T) []storage.TTLRow {
	t.Helper()
	a, bk := backend(t), otherFrontend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := bulkTable(t, a)
	for i := range 5 {
		writeAll(t, ctx, a, tb, []item.Item{{"pk": item.S(fmt.Sprint("p", i)), "sk": item.S("s"), "exp": item.N("100")}}, put)
	}
	tA, err := a.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bk.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for done, pages := false, 0; !done; pages++ {
		if pages > 10 {
			t.Fatal("backfill does not finish")
		}
		if done, err = bk.BackfillTTL(ctx, tb.Account, tb.Name, 1, 2); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("the backfill took %v (grace %v)", time.Since(start), bk.backfillGrace())
	if tA.TTL.Maintained() {
		t.Fatal("A's entry has the TTL on: the test exercises nothing")
	}
	it := item.Item{"pk": item.S("new"), "sk": item.S("s"), "exp": item.N("200")}
	writeAll(t, ctx, a, tA, []item.Item{it}, put)
	cur, err := bk.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled {
		t.Fatalf("after the backfill: %+v, %v", cur.TTL, err)
	}
	rows, err := bk.ExpiredRows(ctx, cur, math.MinInt64, math.MaxInt64, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 5 {
		t.Fatalf("the backfill registered %d of the 5 items", len(rows))
	}
	var out []storage.TTLRow
	for _, r := range rows {
		if r.ExpireAt == 200 {
			out = append(out, r)
		}
	}
	return out
}

// TestTTLStaleEntryWriteAfterBackfill: a TTL backfill reads its first page
// only backfillGrace after it found the TTL ENABLING, so a write that
// commits after the backfill, on an entry a frontend loaded before the TTL
// was enabled, derives its expiry row from a fresh entry (the entry budget
// is shorter than the grace) and the item will expire, as every item whose
// TTL attribute is in the past does once the TTL is on (UpdateTimeToLive,
// https://docs.aws.amazon.com/goto/WebAPI/dynamodb-2012-08-10/UpdateTimeToLive).
func TestTTLStaleEntryWriteAfterBackfill(t *testing.T) {
	withFreshness(t, time.Second, 2*time.Second)
	if rows := staleTTLWriteAfterBackfill(t); len(rows) != 1 {
		t.Fatalf("the late write has %d expiry rows, want 1", len(rows))
	}
}

// TestTTLStaleEntryWithoutGrace is the negative control of the grace:
// with none, the backfill ends while A's entry is still within the budget,
// so the write keeps no expiry row and its item would never expire.
func TestTTLStaleEntryWithoutGrace(t *testing.T) {
	withFreshness(t, 30*time.Second, 0)
	if rows := staleTTLWriteAfterBackfill(t); len(rows) != 0 {
		t.Fatalf("without a grace the late write has %d expiry rows, want none", len(rows))
	}
}
