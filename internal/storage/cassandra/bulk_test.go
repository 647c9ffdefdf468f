package cassandra

import (
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

// TestTokenPagesCoverEveryRow: token pages (readTokenPage) read one after
// another from each page's last key hold every row of the table once,
// tombstones included, with the version and image the sequential page
// reader (readItemPage) gives, whatever the page size, with partitions of
// one, a few and many items; pages are full until the last.
func TestTokenPagesCoverEveryRow(t *testing.T) {
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
	all, _, err := b.readItemPage(ctx, p, nil, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(its) {
		t.Fatalf("sequential reader: %d rows, want %d", len(all), len(its))
	}
	want := map[string]pageItem{}
	for _, r := range all {
		k, err := storage.ItemKey(tb, r.it)
		if r.it == nil { // a tombstone: its key is not in its image
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		want[string(k.PK)+"/"+string(k.SK)] = r
	}
	for _, limit := range []int{1, 3, 7, 16, 33, 1000} {
		var cursor *storage.Key
		seen := map[string]bool{}
		pages, tombstones := 0, 0
		for {
			got, err := b.readTokenPage(ctx, p, cursor, limit)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got {
				k := string(r.key.PK) + "/" + string(r.key.SK)
				if seen[k] {
					t.Fatalf("limit %d, page %d: %s read twice", limit, pages, k)
				}
				seen[k] = true
				if r.it == nil {
					tombstones++
					continue
				}
				if w, ok := want[k]; !ok || w.version != r.version || !equalItems(w.it, r.it) {
					t.Fatalf("limit %d, page %d: row %s %+v, want %+v", limit, pages, k, r.pageItem, w)
				}
			}
			pages++
			if len(got) < limit {
				break
			}
			last := got[len(got)-1].key
			cursor = &last
		}
		if len(seen) != len(its) || tombstones != len(gone) {
			t.Errorf("limit %d: %d rows (%d tombstones) in %d pages, want %d (%d)", limit, len(seen), tombstones, pages, len(its), len(gone))
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
	cur := setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1})
	if done, err := b.BackfillTTL(ctx, cur.Account, cur.Name, 1, 1000); err != nil || !done {
		t.Fatalf("BackfillTTL = %v, %v; want done in one page", done, err)
	}
	cur, err := b.GetTable(ctx, cur.Account, cur.Name)
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
