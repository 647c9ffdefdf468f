package cassandra

import (
	"slices"
	"testing"
	"time"
)

// TestSettleWritersWaitsForReplay: a frontend commits a write that moves
// an item in an index (g x1 to x2) and stops before the index rows, so
// the old row x1 stays until its intent is replayed. SettleWriters, on
// another frontend, returns only once that replay is done (the old row
// gone, the stopped frontend unlisted), while a third frontend that stays
// alive is neither waited for past its next renewal nor unlisted.
func TestSettleWritersWaitsForReplay(t *testing.T) {
	ctx, b, b2, tb, k := twoFrontends(t, gItem("a", "x1"))
	b3 := openFrontend(t)
	owner2, owner3 := b2.fe.id.Load().owner, b3.fe.id.Load().owner
	commitWithoutEffects(t, ctx, b2, tb, k, gItem("a", "x2"))
	b2.Close()
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) == 0 {
		t.Fatalf("the index agrees before the replay (%v): the stop was not simulated", err)
	}
	start := time.Now()
	if err := b.SettleWriters(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("settled in %v", time.Since(start))
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) != 0 {
		t.Errorf("index when SettleWriters returned: %v, %v", d, err)
	}
	owners := listedOwners(t, ctx, b)
	if slices.Contains(owners, owner2) || !slices.Contains(owners, owner3) {
		t.Errorf("listed owners %v: want %s (alive) and not %s (stopped)", owners, owner3, owner2)
	}
	settle(t, ctx, b, b3)
}

// TestSettleWritersPromptWhenAlive: with every other frontend alive,
// SettleWriters returns after their next lease renewal (a third of the
// lease) and a poll, without waiting for any lease to lapse, and unlists
// nobody.
func TestSettleWritersPromptWhenAlive(t *testing.T) {
	ctx, b, b2, _, _ := twoFrontends(t, nil)
	owner2 := b2.fe.id.Load().owner
	start := time.Now()
	if err := b.SettleWriters(ctx); err != nil {
		t.Fatal(err)
	}
	// Well under the lease of the shared backend's frontends (15 s): no
	// lease was waited out.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("SettleWriters with the other frontends alive took %v, want under 10 s", took)
	}
	if !slices.Contains(listedOwners(t, ctx, b), owner2) {
		t.Error("a live frontend was unlisted")
	}
	settle(t, ctx, b, b2)
}
