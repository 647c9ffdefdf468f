package cassandra

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/storagetest"
)

// blindBackend returns the shared backend with every write that can go
// blind doing so (blind.go) until the end of the test. It is the shared
// backend rather than a frontend of its own, so that no stopped frontend
// is left whose intents a later test's Recover would replay.
func blindBackend(t *testing.T) *Backend {
	t.Helper()
	b := backend(t)
	b.blindAlways.Store(true)
	t.Cleanup(func() { b.blindAlways.Store(false) })
	return b
}

// TestContractBlindInserts runs the whole storage contract with every
// write that yields an image for an absent item trying a blind insert
// first: over existing items, tombstones and items held by transactions
// the outcome must be the same as with the read first.
func TestContractBlindInserts(t *testing.T) {
	b := blindBackend(t)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return b })
}

// TestAbsenceCounter: a table's writes go blind after absentBlind writes
// that found their items absent, and stop after a few that found them
// present; tables count apart.
func TestAbsenceCounter(t *testing.T) {
	var a absence
	for i := range absentBlind {
		if a.blind("t1") {
			t.Fatalf("blind after %d absent items", i)
		}
		a.note("t1", true)
	}
	if !a.blind("t1") {
		t.Fatalf("not blind after %d absent items", absentBlind)
	}
	if a.slot("t1") != a.slot("t2") && a.blind("t2") {
		t.Fatal("another table's counter moved")
	}
	for range 1000 {
		a.note("t1", true)
	}
	misses := 0
	for a.blind("t1") {
		a.note("t1", false)
		misses++
	}
	if want := (absentMax - absentBlind + absentMiss) / absentMiss; misses != want {
		t.Fatalf("blind for %d writes that found their items, want %d", misses, want)
	}
	// One miss in five keeps a table blind; one in two does not.
	for range absentMax {
		a.note("t1", true)
	}
	for range 100 {
		for range absentMiss {
			a.note("t1", true)
		}
		a.note("t1", false)
	}
	if !a.blind("t1") {
		t.Fatal("not blind with one miss in five")
	}
	for range 100 {
		a.note("t1", true)
		a.note("t1", false)
	}
	if a.blind("t1") {
		t.Fatal("blind with one miss in two")
	}
}

// TestBlindInsert: blind writes of a new item, over an existing item and
// over a deleted one store what the read-first write stores, with the
// same stream records (old images included), and a blind write's
// function that fails or writes nothing on no item is never decided
// blind.
func TestBlindInsert(t *testing.T) {
	b := blindBackend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := streamTestTable(t, b)
	k := strKey(t, tb, "a")
	var calls atomic.Int32
	set := func(v string) storage.MutateFunc {
		return func(old item.Item) (item.Item, error) {
			calls.Add(1)
			return item.Item{"pk": item.S("a"), "v": item.S(v)}, nil
		}
	}
	mutate := func(fn storage.MutateFunc) {
		t.Helper()
		if err := b.Mutate(ctx, tb, k, fn); err != nil {
			t.Fatal(err)
		}
	}
	mutate(set("1")) // new: blind, applies
	if n := calls.Swap(0); n != 1 {
		t.Errorf("new item: function ran %d times, want 1 (blind)", n)
	}
	mutate(set("2")) // exists: blind, does not apply, then read
	if n := calls.Swap(0); n != 2 {
		t.Errorf("existing item: function ran %d times, want 2 (blind, then on the item)", n)
	}
	// A condition that wants the item fails on no item: it is decided on
	// the item read, and passes.
	mutate(func(old item.Item) (item.Item, error) {
		if old == nil {
			return nil, errors.New("condition wants the item")
		}
		return item.Item{"pk": item.S("a"), "v": item.S(old["v"].S + "+")}, nil
	})
	mutate(del)
	mutate(set("3")) // over the delete's tombstone: blind, then read
	got, err := b.GetItem(ctx, tb, k, true)
	if err != nil || got["v"].S != "3" {
		t.Fatalf("item %v %v, want v=3", got, err)
	}
	var sum []string
	for _, r := range allRecords(t, b, tb) {
		sum = append(sum, fmt.Sprintf("%s %s>%s", r.EventName, r.OldImage["v"].S, r.NewImage["v"].S))
	}
	want := "INSERT >1|MODIFY 1>2|MODIFY 2>2+|REMOVE 2+>|INSERT >3"
	if got := strings.Join(sum, "|"); got != want {
		t.Fatalf("records %s, want %s", got, want)
	}
}
