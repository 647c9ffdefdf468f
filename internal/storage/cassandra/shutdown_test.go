package cassandra

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// crash stops b as a killed process would: no more lease renewals, the
// session closed, its frontend left listed with the intents it wrote.
func (b *Backend) crash() {
	if b.closed.Swap(true) {
		return
	}
	b.gate.mu.Lock()
	b.gate.closing = true
	b.gate.mu.Unlock()
	b.stopFrontend()
	b.s.Close()
}

// ownerIntents counts the intents owner recorded in the last few minutes.
func ownerIntents(t *testing.T, ctx context.Context, b *Backend, owner string) int {
	t.Helper()
	n := 0
	now := time.Now().Unix() / 60
	for m := now - 5; m <= now+1; m++ {
		var c int
		if err := b.s.Query(`SELECT count(*) FROM `+b.catalog+`.intents WHERE owner = ? AND minute = ?`, owner, m).
			WithContext(ctx).Scan(&c); err != nil {
			t.Fatal(err)
		}
		n += c
	}
	return n
}

// TestCleanCloseLeavesNothingToRecover: a frontend that writes items
// (puts, an update, a delete, a transaction) and is then closed cleanly
// unlists itself, so no other frontend replays its intents: its owner ID
// is gone from the frontends table as soon as Close returns, and, once its
// lease has lapsed, Recover repairs nothing.
func TestCleanCloseLeavesNothingToRecover(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := intentTable(t, b)
	b2 := openFrontend(t)
	owner := b2.fe.id.Load().owner
	for _, it := range []item.Item{gItem("a", "x1"), gItem("b", "y1"), gItem("a", "x2")} {
		if err := b2.Mutate(ctx, tb, strKey(t, tb, it["pk"].S), put(it)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b2.Mutate(ctx, tb, strKey(t, tb, "b"), del); err != nil {
		t.Fatal(err)
	}
	if err := b2.TransactWrite(ctx, []storage.Mutation{{Table: tb, Key: strKey(t, tb, "c"), Fn: put(gItem("c", "z1"))}}); err != nil {
		t.Fatal(err)
	}
	if n := ownerIntents(t, ctx, b, owner); n < 5 {
		t.Fatalf("the frontend recorded %d intents, want at least 5", n)
	}
	if !slices.Contains(listedOwners(t, ctx, b), owner) {
		t.Fatal("the running frontend is not listed")
	}
	// Other frontends of this run that stopped earlier are recovered first.
	recoverUntil(t, ctx, b, 3*testLease)
	if err := b2.Close(); err != nil {
		t.Fatal(err)
	}
	if owners := listedOwners(t, ctx, b); slices.Contains(owners, owner) {
		t.Fatalf("a cleanly closed frontend is still listed (%v): its writes would be replayed", owners)
	}
	if err := b2.Mutate(ctx, tb, strKey(t, tb, "d"), put(gItem("d", "w"))); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Mutate after Close: %v, want ErrClosed", err)
	}
	time.Sleep(2 * testLease)
	if n, err := b.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover after a clean Close repaired %d writes (%v), want none", n, err)
	}
}

// TestCloseAfterFailedWrite: a write that failed after its item committed
// (its context ended before the index batch) leaves its intent to
// recover, so a later clean Close keeps the frontend listed and another
// frontend's Recover writes the missing index rows once the lease lapses.
func TestCloseAfterFailedWrite(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := intentTable(t, b)
	k := strKey(t, tb, "a")
	if err := b.Mutate(ctx, tb, k, put(gItem("a", "x1"))); err != nil {
		t.Fatal(err)
	}
	b2 := openFrontend(t)
	owner := b2.fe.id.Load().owner
	wctx, cancel := context.WithCancel(ctx)
	stop := func() { cancel() }
	b2.beforeIndexes.Store(&stop)
	if err := b2.Mutate(wctx, tb, k, put(gItem("a", "x2"))); err == nil {
		t.Fatal("Mutate succeeded with its context cancelled before its index batch")
	}
	b2.beforeIndexes.Store(nil)
	if got, err := b.GetItem(ctx, tb, k, true); err != nil || got["g"].S != "x2" {
		t.Fatalf("item %v, %v: the write did not commit", got, err)
	}
	if err := b2.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(listedOwners(t, ctx, b), owner) {
		t.Fatal("Close unlisted a frontend with a write to recover")
	}
	if n := recoverUntil(t, ctx, b, 10*testLease); n != 1 {
		t.Fatalf("Recover repaired %d writes, want 1", n)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) != 0 {
		t.Errorf("index after recovery: %v, %v", d, err)
	}
}
