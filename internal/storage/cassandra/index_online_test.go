package cassandra

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// The tests run with a shorter freshness rule than the defaults (every
// build waits its grace); withFreshness changes it for one test.
func init() {
	freshness.Store(&freshnessTimes{budget: 500 * time.Millisecond, grace: time.Second})
}

// withFreshness sets the freshness rule until the end of the test.
func withFreshness(t *testing.T, budget, grace time.Duration) {
	prev := freshness.Swap(&freshnessTimes{budget: budget, grace: grace})
	t.Cleanup(func() { freshness.Store(prev) })
}

// otherFrontend opens a second backend on the cluster and keyspaces of
// backend(t): another extenddb frontend sharing the catalog.
func otherFrontend(t *testing.T) *Backend {
	t.Helper()
	backend(t) // skips without a cluster
	rf, _ := strconv.Atoi(os.Getenv(rfEnv))
	o, err := Open(ctxT(t, 2*time.Minute), Options{Hosts: strings.Split(os.Getenv(hostsEnv), ","), KeyspacePrefix: prefix, ReplicationFactor: rf})
	if err != nil {
		t.Fatalf("Open (second frontend): %v", err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

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
// was dropped (another frontend's cached entry): the item is written once
// (its function runs once on the item; a blind first try, which the
// table's recent writes of absent items can call for, runs it on none),
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
	// An entry cached within the freshness budget can predate the drop
	// (freshEntry keeps it): it still lists gsi1, whose table is gone.
	stale.LoadedAt = time.Now()
	calls := 0 // on the item: a blind first try (blind.go) sees none and writes nothing
	err := b.Mutate(ctx, stale, k, func(old item.Item) (item.Item, error) {
		if old != nil {
			calls++
		}
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

// staleWriteAfterBackfill is the race of two frontends sharing a catalog:
// frontend A holds a cached entry of a table (loaded age before it was
// read) when frontend B adds a GSI and builds it to the end; then A writes
// a new item with its entry, which does not list the GSI. It returns the
// write's rows in the GSI and what every index holds against the item
// (divergences).
func staleWriteAfterBackfill(t *testing.T, age time.Duration) (rows []storage.Row, diverging []string) {
	t.Helper()
	a, bk := backend(t), otherFrontend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := raceTable(t, a, newAccount())
	for i := range 5 { // items for the build to copy
		pk, sk := "p", fmt.Sprint("s", i)
		if err := a.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S(sk))}, put(raceImage(pk, sk, i))); err != nil {
			t.Fatal(err)
		}
	}
	tA, err := a.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	tA.LoadedAt = tA.LoadedAt.Add(-age)

	_, ix := addOnlineIndex(t, bk, tb)
	start := time.Now()
	for pages := 0; ; pages++ {
		done, err := bk.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		if pages > 20 {
			t.Fatal("build does not finish")
		}
	}
	if took := time.Since(start); took < bk.backfillGrace() {
		t.Fatalf("the build took %v, less than its grace %v", took, bk.backfillGrace())
	}
	cur, err := bk.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	if gix := cur.Index("online"); gix == nil || gix.Status != storage.StatusActive {
		t.Fatalf("after the build: %+v", gix)
	}
	if tA.Index("online") != nil {
		t.Fatal("A's entry lists the new index: the test exercises nothing")
	}

	im := raceImage("q", "new", 7)
	k := storage.Key{PK: item.EncodeKey(item.S("q")), SK: item.EncodeKey(item.S("new"))}
	if err := a.Mutate(ctx, tA, k, put(im)); err != nil {
		t.Fatal(err)
	}
	gix := cur.Index("online")
	want := storage.IndexRowFor(cur, gix, im)
	if rows, err = indexRowsOf(ctx, bk, cur, gix, k, [][]byte{want.IndexKey.PK}); err != nil {
		t.Fatal(err)
	}
	if diverging, err = divergences(ctx, bk, cur, k, im); err != nil {
		t.Fatal(err)
	}
	return rows, diverging
}

// TestStaleEntryWriteAfterBackfill: the write of a frontend whose cached
// entry predates a GSI, committed after that GSI's build has finished,
// still gets its GSI row (freshEntry reads the entry again).
func TestStaleEntryWriteAfterBackfill(t *testing.T) {
	rows, d := staleWriteAfterBackfill(t, 5*time.Second)
	if len(rows) != 1 || len(d) > 0 {
		t.Fatalf("the GSI holds %d rows of the write, want 1; divergences: %v", len(rows), d)
	}
}

// TestStaleEntryWriteAfterBackfillUnguarded is the negative control of
// TestStaleEntryWriteAfterBackfill: without freshEntry the stale write's
// GSI row is missing for good.
func TestStaleEntryWriteAfterBackfillUnguarded(t *testing.T) {
	freshEntryOff.Store(true)
	defer freshEntryOff.Store(false)
	rows, d := staleWriteAfterBackfill(t, 5*time.Second)
	if len(rows) != 0 || len(d) != 1 || !strings.HasPrefix(d[0], "index online: 0 rows") {
		t.Fatalf("without freshEntry the GSI holds %d rows of the write (divergences %v); want it missing", len(rows), d)
	}
}

// TestStaleEntryWithoutGrace is the negative control of the grace: with
// none, a build finishes while the entry A loaded before the GSI was added
// is still within the budget, so freshEntry keeps it and the write's GSI
// row is missing.
func TestStaleEntryWithoutGrace(t *testing.T) {
	withFreshness(t, 30*time.Second, 0)
	rows, d := staleWriteAfterBackfill(t, 0)
	if len(rows) != 0 || len(d) != 1 || !strings.HasPrefix(d[0], "index online: 0 rows") {
		t.Fatalf("without a grace the GSI holds %d rows of the write (divergences %v); want it missing", len(rows), d)
	}
}

// TestBackfillGrace: a build copies nothing until its grace has passed
// since it found the index, and a build cancelled during the grace ends
// with ctx's error having copied nothing.
func TestBackfillGrace(t *testing.T) {
	withFreshness(t, 500*time.Millisecond, 2*time.Second)
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := raceTable(t, b, newAccount())
	for i := range 8 {
		pk, sk := fmt.Sprint("p", i%3), fmt.Sprint("s", i)
		if err := b.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S(sk))}, put(raceImage(pk, sk, i))); err != nil {
			t.Fatal(err)
		}
	}
	tb, ix := addOnlineIndex(t, b, tb)
	count := func() int {
		t.Helper()
		n := 0
		if err := b.Scan(ctx, tb, &storage.ScanRequest{Index: "online", Consistent: true}, func(storage.Row) bool { n++; return true }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	state := func() *storage.Index {
		t.Helper()
		got, err := b.GetTable(ctx, tb.Account, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		return got.Index("online")
	}

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if done, err := b.BackfillIndex(short, tb.Account, tb.Name, ix.ID, 100); done || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("BackfillIndex cancelled within its grace = %v, %v", done, err)
	}
	if n, s := count(), state(); n != 0 || s.BackfillCursor != nil || !building(s) {
		t.Fatalf("after a build cancelled within its grace: %d rows, index %+v", n, s)
	}

	type result struct {
		done bool
		err  error
		took time.Duration
	}
	res := make(chan result, 1)
	start := time.Now()
	go func() {
		done, err := b.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 100)
		res <- result{done, err, time.Since(start)}
	}()
	time.Sleep(time.Second) // half the grace
	if n, s := count(), state(); n != 0 || s.BackfillCursor != nil || !building(s) {
		t.Fatalf("within the grace: %d rows, index %+v", n, s)
	}
	r := <-res
	if !r.done || r.err != nil || r.took < 2*time.Second {
		t.Fatalf("BackfillIndex = %v, %v after %v; want done after the grace (2s)", r.done, r.err, r.took)
	}
	if n, s := count(), state(); n != 8 || s.Status != storage.StatusActive {
		t.Fatalf("after the build: %d rows (want 8), index %+v", n, s)
	}
}

// TestFreshEntry: an entry loaded within the budget is used as it is; an
// older one, or one of unknown age, is read again; one whose table is gone
// or is another table is kept.
func TestFreshEntry(t *testing.T) {
	withFreshness(t, 2*time.Second, 3*time.Second)
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	tb := raceTable(t, b, newAccount())
	if tb.LoadedAt.IsZero() || time.Since(tb.LoadedAt) > time.Minute {
		t.Fatalf("GetTable's LoadedAt = %v", tb.LoadedAt)
	}
	if got, err := b.freshEntry(ctx, tb); got != tb || err != nil {
		t.Fatalf("freshEntry of a fresh entry = %p, %v; want it as it is (%p)", got, err, tb)
	}
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Tags = append(t.Tags, storage.Tag{Key: "k", Value: "v"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, age := range []time.Duration{-1, 3 * time.Second} {
		old := *tb
		if age < 0 {
			old.LoadedAt = time.Time{}
		} else {
			old.LoadedAt = old.LoadedAt.Add(-age)
		}
		before := time.Now()
		got, err := b.freshEntry(ctx, &old)
		if err != nil || got == &old || got.Version != tb.Version+1 || len(got.Tags) != 1 || got.LoadedAt.Before(before) {
			t.Fatalf("freshEntry of an entry aged %v = %+v, %v; want the entry read again", age, got, err)
		}
	}
	other := *tb
	other.ID, other.LoadedAt = "another", time.Time{}
	if got, err := b.freshEntry(ctx, &other); got != &other || err != nil {
		t.Fatalf("freshEntry of another table's entry = %+v, %v; want it as it is", got, err)
	}
	if err := b.DeleteTable(ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	gone := *tb
	gone.LoadedAt = time.Time{}
	if got, err := b.freshEntry(ctx, &gone); got != &gone || err != nil {
		t.Fatalf("freshEntry of a deleted table's entry = %+v, %v; want it as it is", got, err)
	}
}
