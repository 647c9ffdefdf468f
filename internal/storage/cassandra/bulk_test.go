package cassandra

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// bulkTable creates a table with a string partition key pk and string
// sort key sk.
func bulkTable(t *testing.T, b *Backend) *storage.Table {
	t.Helper()
	tb := &storage.Table{
		Account: newAccount(), Name: "bulk", ID: uuid.NewString(),
		KeySchema: []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		AttributeDefinitions: []storage.AttributeDefinition{
			{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}},
		BillingMode: "PAY_PER_REQUEST", Status: storage.StatusActive, CreatedAt: time.Now().UTC(),
	}
	if err := b.CreateTable(ctxT(t, 3*time.Minute), tb); err != nil {
		t.Fatal(err)
	}
	return tb
}

// writeAll applies fn to the items of keys, several at once.
func writeAll(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, its []item.Item, fn func(item.Item) storage.MutateFunc) {
	t.Helper()
	err := storage.EachWrite(ctx, len(its), b.WriteParallelism(), func(i int) error {
		k, err := storage.ItemKey(tb, its[i])
		if err != nil {
			return err
		}
		return b.Mutate(ctx, tb, k, fn(its[i]))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestParallelPageMatchesSequentialPage: pages read several partitions at
// once (readPageParallel) hold the same rows, versions and tombstones, in
// the same order, as the sequential page reader (readItemPage), whatever
// the page size, with partitions of one, a few and many items.
func TestParallelPageMatchesSequentialPage(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 5*time.Minute)
	tb := bulkTable(t, b)
	var its, gone []item.Item
	for p := range 30 {
		n := 1
		switch {
		case p%7 == 0:
			n = 40
		case p%3 == 0:
			n = 5
		}
		for s := range n {
			it := item.Item{"pk": item.S(fmt.Sprint("p", p)), "sk": item.S(fmt.Sprintf("s%03d", s)), "exp": item.N("100")}
			its = append(its, it)
			if (p+s)%4 == 1 {
				gone = append(gone, it)
			}
		}
	}
	writeAll(t, ctx, b, tb, its, put)
	writeAll(t, ctx, b, tb, gone, func(item.Item) storage.MutateFunc { return del })
	p := b.phys(tb)
	for _, limit := range []int{1, 3, 7, 16, 33, 1000} {
		var cursor *storage.Key
		pages, rows := 0, 0
		for {
			want, wantLast, err := b.readItemPage(ctx, p, cursor, limit)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.readPageParallel(ctx, p, cursor, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("limit %d, page %d: %d rows, want %d", limit, pages, len(got), len(want))
			}
			for i := range got {
				if got[i].version != want[i].version || (got[i].it == nil) != (want[i].it == nil) ||
					(got[i].it != nil && !equalItems(got[i].it, want[i].it)) {
					t.Fatalf("limit %d, page %d, row %d: %+v, want %+v", limit, pages, i, got[i], want[i])
				}
			}
			pages, rows = pages+1, rows+len(got)
			if len(got) < limit {
				break
			}
			last := got[len(got)-1].key
			if !bytes.Equal(last.PK, wantLast.PK) || !bytes.Equal(last.SK, wantLast.SK) {
				t.Fatalf("limit %d, page %d: last key %q/%q, want %q/%q", limit, pages, last.PK, last.SK, wantLast.PK, wantLast.SK)
			}
			cursor = &last
		}
		if rows != len(its) {
			t.Errorf("limit %d: %d rows in %d pages, want every one of the %d written (tombstones included)", limit, rows, pages, len(its))
		}
	}
}

// TestTTLBackfillBatchesOnePartition: a backfill page whose items all fall
// in one expiry shard (one partition key, many sort keys) writes them in
// several unlogged batches, and every live item with a Number TTL
// attribute gets its row; deleted items and items without one get none.
func TestTTLBackfillBatchesOnePartition(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 5*time.Minute)
	tb := bulkTable(t, b)
	var its, gone []item.Item
	for s := range 2*ttlBatchRows + 10 {
		it := item.Item{"pk": item.S("one"), "sk": item.S(fmt.Sprintf("s%04d", s)), "exp": item.N(fmt.Sprint(100 + s))}
		switch s % 10 {
		case 3:
			delete(it, "exp")
		case 5:
			it["exp"] = item.S("not a number")
		case 7:
			gone = append(gone, it)
		}
		its = append(its, it)
	}
	writeAll(t, ctx, b, tb, its, put)
	writeAll(t, ctx, b, tb, gone, func(item.Item) storage.MutateFunc { return del })
	cur, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.TTL = storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if done, err := b.BackfillTTL(ctx, cur.Account, cur.Name, 1, 1000); err != nil || !done {
		t.Fatalf("BackfillTTL = %v, %v; want done in one page", done, err)
	}
	cur, err = b.GetTable(ctx, cur.Account, cur.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled {
		t.Fatalf("after the backfill: %+v %v", cur.TTL, err)
	}
	rows, err := b.ExpiredRows(ctx, cur, 0, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{} // sort key -> expiry time
	for s, it := range its {
		if s%10 == 3 || s%10 == 5 || s%10 == 7 {
			continue
		}
		k, err := storage.ItemKey(cur, it)
		if err != nil {
			t.Fatal(err)
		}
		want[string(k.SK)] = int64(100 + s)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d expiry rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if at, ok := want[string(r.Key.SK)]; !ok || at != r.ExpireAt {
			t.Errorf("row %q expiring at %d; want %d (listed %v)", r.Key.SK, r.ExpireAt, at, ok)
		}
	}
}
