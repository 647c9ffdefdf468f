package cassandra

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// A snapshot read of a table without point in time recovery is the table
// at its instant, whatever is written during the read: an item deleted
// during it is in it, one created during it is not, one updated during it
// has its image from before (docs/adr/0013g). Its history capture is gone
// from the catalog afterwards, and also after a read that ended early or
// failed.
func TestScanSnapshotUndoesLaterWrites(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := raceTable(t, b, newAccount())
	keyOf := func(pk string) storage.Key {
		k, err := storage.ItemKey(tb, raceImage(pk, "s", 0))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, pk := range []string{"a", "b", "c", "d"} {
		if err := b.Mutate(ctx, tb, keyOf(pk), put(raceImage(pk, "s", 1))); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	wrote := false
	err := b.ScanSnapshot(ctx, tb, func(r storage.Row) bool {
		if !wrote {
			wrote = true
			for _, w := range []struct {
				pk string
				fn storage.MutateFunc
			}{{"b", del}, {"c", put(raceImage("c", "s", 2))}, {"z", put(raceImage("z", "s", 2))}} {
				if err := b.Mutate(ctx, tb, keyOf(w.pk), w.fn); err != nil {
					t.Error(err)
				}
			}
		}
		got = append(got, r.Item["pk"].S+":"+r.Item["a"].S)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	want := []string{"a:a1", "b:a1", "c:a1", "d:a1"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("snapshot %v, want %v", got, want)
	}
	assertNoCapture(t, b, tb)
	if err := b.ScanSnapshot(ctx, tb, func(storage.Row) bool { return false }); err != nil {
		t.Fatal(err)
	}
	assertNoCapture(t, b, tb)
	stopped := errors.New("stopped")
	short, cancel := context.WithCancelCause(ctx)
	time.AfterFunc(200*time.Millisecond, func() { cancel(stopped) })
	if err := b.ScanSnapshot(short, tb, func(storage.Row) bool { return true }); err == nil {
		t.Fatal("a cancelled snapshot read succeeded")
	}
	assertNoCapture(t, b, tb)
}

func assertNoCapture(t *testing.T, b *Backend, tb *storage.Table) {
	t.Helper()
	cur, err := b.GetTable(ctxT(t, time.Minute), tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.HistoryCaptures) != 0 || cur.HistoryEnabled() {
		t.Fatalf("history capture left in the catalog: %v", cur.HistoryCaptures)
	}
}
