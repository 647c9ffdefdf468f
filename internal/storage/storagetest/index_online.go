package storagetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Index agreement under racing writers, and online index builds
// (storage.IndexBuilder): backfill concurrent with writers, resume from a
// planted cursor, drop.

// raceTable has two LSIs and two GSIs, one of them with a multi-attribute
// key (two partition-key and two sort-key attributes).
func (e *env) raceTable(name string) *storage.Table {
	return e.create(withAttrs(e.table(name, "S",
		storage.Index{IndexName: "lsi1", KeySchema: keySchema("pk", "l1"),
			Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}},
		storage.Index{IndexName: "lsi2", KeySchema: keySchema("pk", "l2"),
			Projection: storage.Projection{ProjectionType: storage.ProjectAll}},
		storage.Index{IndexName: "gsi1", Global: true, KeySchema: keySchema("g1", "g1s"),
			Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"a"}}},
		storage.Index{IndexName: "gsim", Global: true, KeySchema: []storage.KeyElement{
			{AttributeName: "g1", KeyType: "HASH"}, {AttributeName: "g2", KeyType: "HASH"},
			{AttributeName: "l2", KeyType: "RANGE"}, {AttributeName: "g1s", KeyType: "RANGE"}},
			Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}},
	), "l1", "S", "l2", "N", "g1", "S", "g1s", "N", "g2", "B"))
}

// auditIndexStats compares a backend's per-index counts with the rows of
// each index.
func (e *env) auditIndexStats(tb *storage.Table) {
	e.t.Helper()
	got, err := e.b.IndexStats(e.ctx, tb)
	if err != nil {
		e.t.Fatalf("IndexStats: %v", err)
	}
	for _, ix := range tb.Indexes {
		rows := e.scan(tb, storage.ScanRequest{Index: ix.IndexName})
		var size int64
		for _, r := range rows {
			size += int64(item.Size(r.Item))
		}
		if st := got[ix.ID]; st.ItemCount != int64(len(rows)) || st.SizeBytes != size {
			e.t.Errorf("IndexStats[%s] = %+v; the index holds %d rows of %d bytes", ix.IndexName, st, len(rows), size)
		}
	}
}

// testIndexRace runs 16 goroutines × 80 rounds (1,280 writes) of
// conditional puts, conditional updates that keep or change index keys, and
// deletes on 12 keys, then audits every index against the table, item by
// item, and the per-index counts.
func testIndexRace(t *testing.T, e *env) {
	tb := e.raceTable("race")
	const workers, rounds = 16, 80
	var wrote, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			for range rounds {
				pk, sk := fmt.Sprint("p", r.IntN(3)), fmt.Sprint("s", r.IntN(4))
				k := storage.Key{PK: enc(s(pk)), SK: enc(s(sk))}
				op, seed := r.IntN(10), r.Uint64()
				err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
					r := rand.New(rand.NewPCG(seed, 3))
					switch {
					case op < 3: // conditional put: attribute_not_exists(pk)
						if old != nil {
							return nil, errExists
						}
						return raceItem(r, pk, sk), nil
					case op < 5: // update keeping every index key
						if old == nil {
							return nil, errExists
						}
						nw := copyItem(old)
						nw["a"] = s(fmt.Sprint("a", r.IntN(50)))
						return nw, nil
					case op < 8: // update changing, dropping or mistyping one index key
						if old == nil {
							return raceItem(r, pk, sk), nil
						}
						nw := copyItem(old)
						fresh := raceItem(r, pk, sk)
						name := []string{"l1", "l2", "g1", "g1s", "g2"}[r.IntN(5)]
						if v, ok := fresh[name]; ok {
							nw[name] = v
						} else {
							delete(nw, name)
						}
						return nw, nil
					default:
						return nil, nil
					}
				})
				switch {
				case errors.Is(err, errExists):
					refused.Add(1)
				case err != nil:
					e.t.Errorf("mutate: %v", err)
					return
				default:
					wrote.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if wrote.Load()+refused.Load() != workers*rounds || refused.Load() == 0 {
		t.Fatalf("%d writes, %d refused of %d rounds", wrote.Load(), refused.Load(), workers*rounds)
	}
	e.auditIndexes(tb)
	e.auditIndexStats(tb)
}

// raceItem is randomItem with few index key values, so that index keys tie.
func raceItem(r *rand.Rand, pk, sk string) item.Item {
	it := randomItem(r, pk, sk)
	if v, ok := it["g2"]; ok && v.Type == item.TypeB {
		it["g2"] = b(byte(r.IntN(2)))
	}
	return it
}

// onlineIndex is a GSI added to a live table, to be built by BackfillIndex.
func onlineIndex() storage.Index {
	return storage.Index{IndexName: "online", Global: true, ID: uuid.NewString(),
		KeySchema:  []storage.KeyElement{{AttributeName: "g1", KeyType: "HASH"}, {AttributeName: "g1s", KeyType: "RANGE"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"c"}},
		Status:     storage.StatusCreating, Backfilling: true}
}

func (e *env) addIndex(tb *storage.Table, ix storage.Index) *storage.Table {
	e.t.Helper()
	up, err := e.b.UpdateTable(e.ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Indexes = append(t.Indexes, ix)
		return nil
	})
	if err != nil {
		e.t.Fatalf("UpdateTable (add index): %v", err)
	}
	return up
}

// build runs BackfillIndex until done; it returns the pages it took.
func (e *env) build(ib storage.IndexBuilder, tb *storage.Table, id string, page int) int {
	e.t.Helper()
	for pages := 1; ; pages++ {
		done, err := ib.BackfillIndex(e.ctx, tb.Account, tb.Name, id, page)
		if err != nil {
			e.t.Fatalf("BackfillIndex: %v", err)
		}
		if done {
			return pages
		}
		if pages > 100000 {
			e.t.Fatal("BackfillIndex never finishes")
		}
	}
}

// testIndexBackfill adds a GSI to a table with items while writers run,
// builds it page by page, and audits it once ACTIVE.
func testIndexBackfill(t *testing.T, e *env) {
	var ib storage.IndexBuilder = e.b
	tb := e.auditTable("backfill")
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 400 {
		e.put(tb, randomItem(r, fmt.Sprint("p", i%40), fmt.Sprint("s", i)))
	}
	tb = e.addIndex(tb, onlineIndex())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 77))
			for {
				select {
				case <-stop:
					return
				default:
				}
				pk, sk := fmt.Sprint("p", r.IntN(40)), fmt.Sprint("s", r.IntN(420))
				k := storage.Key{PK: enc(s(pk)), SK: enc(s(sk))}
				seed, del := r.Uint64(), r.IntN(5) == 0
				if err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
					if del {
						return nil, nil
					}
					return randomItem(rand.New(rand.NewPCG(seed, 1)), pk, sk), nil
				}); err != nil {
					e.t.Errorf("mutate during backfill: %v", err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	pages := e.build(ib, tb, tb.Indexes[len(tb.Indexes)-1].ID, 16)
	time.Sleep(20 * time.Millisecond) // writes after ACTIVE, too
	close(stop)
	wg.Wait()
	if pages < 10 || writes.Load() == 0 {
		t.Fatalf("backfill took %d pages with %d concurrent writes; the test exercises nothing", pages, writes.Load())
	}
	got, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	ix := got.Index("online")
	if ix == nil || ix.Status != storage.StatusActive || ix.Backfilling || ix.BackfillCursor != nil {
		t.Fatalf("built index = %+v", ix)
	}
	e.auditIndexes(got)
	e.auditIndexStats(got)
	if done, err := ib.BackfillIndex(e.ctx, got.Account, got.Name, ix.ID, 16); !done || err != nil {
		t.Fatalf("BackfillIndex of an ACTIVE index = %v, %v", done, err)
	}
}

// testIndexBackfillResume plants a cursor in the catalog, as a restart in
// the middle of a build leaves it, and checks that the build copies exactly
// the items after it.
func testIndexBackfillResume(t *testing.T, e *env) {
	var ib storage.IndexBuilder = e.b
	tb := e.auditTable("resume")
	for i := range 300 {
		e.put(tb, item.Item{"pk": s(fmt.Sprint("p", i%30)), "sk": s(fmt.Sprint("s", i)), "g1": s(fmt.Sprint("g", i%3)), "g1s": n(fmt.Sprint(i))})
	}
	base := e.scan(tb, storage.ScanRequest{}) // scan order is the backfill's order
	cut := len(base) / 3
	ix := onlineIndex()
	cursor := base[cut].Pos.Key
	ix.BackfillCursor = &cursor
	tb = e.addIndex(tb, ix)
	e.build(ib, tb, ix.ID, 25)
	rows := e.scan(tb, storage.ScanRequest{Index: "online"})
	want := map[string]bool{}
	for _, r := range base[cut+1:] {
		want[posKey(storage.Position{Key: r.Pos.Key})] = true
	}
	if len(rows) != len(want) {
		t.Fatalf("resumed build copied %d items, want the %d after the cursor", len(rows), len(want))
	}
	for _, r := range rows {
		if !want[posKey(storage.Position{Key: r.Pos.Key})] {
			t.Fatalf("resumed build copied %x/%x, at or before the cursor", r.Pos.Key.PK, r.Pos.Key.SK)
		}
	}
	got, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
	if err != nil || got.Index("online").Status != storage.StatusActive || got.Index("online").BackfillCursor != nil {
		t.Fatalf("after the resumed build: %+v, %v", got.Index("online"), err)
	}
	e.auditIndexStats(got)

	// A build from the start (no cursor) copies everything.
	full := onlineIndex()
	full.IndexName = "full"
	tb = e.addIndex(got, full)
	e.build(ib, tb, full.ID, 7)
	if rows := e.scan(tb, storage.ScanRequest{Index: "full"}); len(rows) != len(base) {
		t.Fatalf("full build copied %d of %d items", len(rows), len(base))
	}
}

// testIndexDrop marks an index DELETING and drops it: writes stop
// maintaining it, then its rows and its catalog entry go.
func testIndexDrop(t *testing.T, e *env) {
	var ib storage.IndexBuilder = e.b
	tb := e.auditTable("drop")
	r := rand.New(rand.NewPCG(8, 9))
	for i := range 50 {
		e.put(tb, randomItem(r, fmt.Sprint("p", i%5), fmt.Sprint("s", i)))
	}
	id := tb.Index("gsi1").ID
	if err := ib.DropIndex(e.ctx, tb.Account, tb.Name, id); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.b.GetTable(e.ctx, tb.Account, tb.Name); got.Index("gsi1") == nil {
		t.Fatal("DropIndex dropped an ACTIVE index")
	}
	tb, err := e.b.UpdateTable(e.ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Index("gsi1").Status = storage.StatusDeleting
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.put(tb, randomItem(r, "p1", "after"))
	for range 2 { // idempotent
		if err := ib.DropIndex(e.ctx, tb.Account, tb.Name, id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
	if err != nil || got.Index("gsi1") != nil || len(got.Indexes) != 3 {
		t.Fatalf("after DropIndex: %+v, %v", got, err)
	}
	e.auditIndexes(got)
	e.auditIndexStats(got)
}
