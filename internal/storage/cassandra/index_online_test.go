package cassandra

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// addOnlineIndex adds a GSI on (g1, g1s), CREATING and backfilling, to tb.
func addOnlineIndex(t *testing.T, b *Backend, tb *storage.Table) (*storage.Table, *storage.Index) {
	t.Helper()
	ix := storage.Index{IndexName: "online", Global: true, ID: uuid.NewString(),
		KeySchema:  []storage.KeyElement{{AttributeName: "g1", KeyType: "HASH"}, {AttributeName: "g1s", KeyType: "RANGE"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectAll},
		Status:     storage.StatusCreating, Backfilling: true}
	up, err := b.UpdateTable(ctxT(t, 2*time.Minute), tb.Account, tb.Name, func(t *storage.Table) error {
		t.Indexes = append(t.Indexes, ix)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return up, up.Index("online")
}

// TestBackfillCopyLosesToNewerWrite reads a backfill page, lets writes
// change, re-key and delete its items, and only then writes the page's
// index rows: the copies carry the older versions, so the writes' rows
// win and the index agrees with the table.
func TestBackfillCopyLosesToNewerWrite(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	ctx := ctxT(t, 3*time.Minute)
	keys := make([]storage.Key, 6)
	for i := range keys {
		pk, sk := "p", fmt.Sprint("s", i)
		keys[i] = storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S(sk))}
		if err := b.Mutate(ctx, tb, keys[i], put(raceImage(pk, sk, i))); err != nil {
			t.Fatal(err)
		}
	}
	tb, ix := addOnlineIndex(t, b, tb)
	p := b.phys(tb)
	page, _, err := b.readItemPage(ctx, p, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != len(keys) {
		t.Fatalf("page of %d items, want %d", len(page), len(keys))
	}
	// Newer writes, after the page was read and before it is written.
	for i, k := range keys {
		var err error
		switch i % 3 {
		case 0: // index key changes
			err = b.Mutate(ctx, tb, k, put(raceImage("p", fmt.Sprint("s", i), i+10)))
		case 1: // projection changes, same index key
			err = b.Mutate(ctx, tb, k, func(old item.Item) (item.Item, error) {
				nw := item.Item{}
				for n, v := range old {
					nw[n] = v
				}
				nw["z"] = item.S("newer")
				return nw, nil
			})
		default:
			err = b.Mutate(ctx, tb, k, del)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := b.copyIndexRows(ctx, tb, p, ix, page); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		d, err := divergences(ctx, b, tb, k, raceImage("p", fmt.Sprint("s", i), i), raceImage("p", fmt.Sprint("s", i), i+10))
		if err != nil {
			t.Fatal(err)
		}
		if len(d) > 0 {
			t.Errorf("item %d: %v", i, d)
		}
	}
}

// TestBackfillCatalogRace changes the catalog between a page's rows and
// its cursor update: an unrelated change only makes the update retry on
// the fresh entry; another builder's page makes the call report not done
// without moving the cursor back. The build still copies every item.
func TestBackfillCatalogRace(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	ctx := ctxT(t, 3*time.Minute)
	for i := range 30 {
		pk, sk := fmt.Sprint("p", i%4), fmt.Sprint("s", i)
		k := storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S(sk))}
		if err := b.Mutate(ctx, tb, k, put(raceImage(pk, sk, i))); err != nil {
			t.Fatal(err)
		}
	}
	tb, ix := addOnlineIndex(t, b, tb)
	defer beforeCursorUpdate.Store(nil)
	cursor := func() *storage.Key {
		t.Helper()
		got, err := b.GetTable(ctx, tb.Account, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		return got.Index("online").BackfillCursor
	}

	// An unrelated change (a tag) wins the race: the page still counts.
	var hookErr error
	tag := func() {
		beforeCursorUpdate.Store(nil)
		_, hookErr = b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
			t.Tags = append(t.Tags, storage.Tag{Key: "k", Value: "v"})
			return nil
		})
	}
	beforeCursorUpdate.Store(&tag)
	if done, err := b.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 10); done || err != nil || hookErr != nil {
		t.Fatalf("first page: %v, %v (tagging: %v)", done, err, hookErr)
	}
	first := cursor()
	if first == nil {
		t.Fatal("the first page stored no cursor")
	}

	// Another builder copies the next page meanwhile: this call's page
	// (the same items) is not stored over it.
	var other *storage.Key
	rival := func() {
		beforeCursorUpdate.Store(nil)
		var done bool
		done, hookErr = b.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 10)
		if done {
			hookErr = fmt.Errorf("the rival page finished the build")
		}
		other = cursor()
	}
	beforeCursorUpdate.Store(&rival)
	if done, err := b.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 10); done || err != nil || hookErr != nil {
		t.Fatalf("raced page: %v, %v (rival: %v)", done, err, hookErr)
	}
	if now := cursor(); sameCursor(now, first) || !sameCursor(now, other) {
		t.Fatalf("cursor %x after the race; the rival stored %x, the first page %x", now, other, first)
	}

	for pages := 0; ; pages++ {
		done, err := b.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		if pages > 10 {
			t.Fatal("build does not finish")
		}
	}
	got, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	gix := got.Index("online")
	if gix.Status != storage.StatusActive || gix.Backfilling || gix.BackfillCursor != nil || len(got.Tags) != 1 {
		t.Fatalf("after the build: %+v, tags %v", gix, got.Tags)
	}
	var rows int
	if err := b.Scan(ctx, got, &storage.ScanRequest{Index: "online"}, func(storage.Row) bool { rows++; return true }); err != nil {
		t.Fatal(err)
	}
	if rows != 30 {
		t.Fatalf("built index holds %d rows, want 30", rows)
	}
	st, err := b.IndexStats(ctx, got)
	if err != nil || st[gix.ID].ItemCount != 30 {
		t.Fatalf("IndexStats = %+v, %v", st, err)
	}
}

// TestCollectionSize sums the items of one partition and their LSI rows.
func TestCollectionSize(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	ctx := ctxT(t, 2*time.Minute)
	var want int64
	for i := range 5 {
		for _, pk := range []string{"a", "b"} {
			it := raceImage(pk, fmt.Sprint("s", i), i)
			k := storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S(fmt.Sprint("s", i)))}
			if err := b.Mutate(ctx, tb, k, put(it)); err != nil {
				t.Fatal(err)
			}
			if pk != "a" {
				continue
			}
			want += int64(item.Size(it))
			for j := range tb.Indexes {
				if ix := &tb.Indexes[j]; !ix.Global {
					want += int64(item.Size(storage.IndexRowFor(tb, ix, it).Item))
				}
			}
		}
	}
	got, err := b.CollectionSize(ctx, tb, item.EncodeKey(item.S("a")))
	if err != nil || got != want {
		t.Fatalf("CollectionSize = %d, %v; want %d", got, err, want)
	}
	if got, err := b.CollectionSize(ctx, tb, item.EncodeKey(item.S("none"))); err != nil || got != 0 {
		t.Fatalf("CollectionSize of an empty partition = %d, %v", got, err)
	}
}

// TestWriteAfterIndexDrop writes with a table entry from before an index
// was dropped (another frontend's cached entry): the item is written once,
// and the indexes that remain get their rows.
func TestWriteAfterIndexDrop(t *testing.T) {
	b := backend(t)
	stale := raceTable(t, b, newAccount())
	ctx := ctxT(t, 3*time.Minute)
	k := storage.Key{PK: item.EncodeKey(item.S("p")), SK: item.EncodeKey(item.S("s"))}
	if err := b.Mutate(ctx, stale, k, put(raceImage("p", "s", 1))); err != nil {
		t.Fatal(err)
	}
	id := stale.Index("gsi1").ID
	if _, err := b.UpdateTable(ctx, stale.Account, stale.Name, func(t *storage.Table) error {
		t.Index("gsi1").Status = storage.StatusDeleting
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.DropIndex(ctx, stale.Account, stale.Name, id); err != nil {
		t.Fatal(err)
	}
	calls := 0
	err := b.Mutate(ctx, stale, k, func(old item.Item) (item.Item, error) {
		calls++
		nw := raceImage("p", "s", 2)
		nw["n"] = item.N(fmt.Sprint(calls))
		return nw, nil
	})
	if err != nil || calls != 1 {
		t.Fatalf("Mutate with the stale entry: %v after %d calls of its function", err, calls)
	}
	cur, err := b.GetTable(ctx, stale.Account, stale.Name)
	if err != nil || cur.Index("gsi1") != nil {
		t.Fatalf("after DropIndex: %+v, %v", cur, err)
	}
	d, err := divergences(ctx, b, cur, k, raceImage("p", "s", 1), raceImage("p", "s", 2))
	if err != nil || len(d) > 0 {
		t.Fatalf("indexes after the write: %v, %v", d, err)
	}
}
