package cassandra

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEffectsOutliveTheirCaller: a write whose caller goes away between
// its commit and its index rows still writes them, and its stream record:
// the item has changed, so what follows from it must too (a global
// secondary index and a stream agree with their table; see
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html).
func TestEffectsOutliveTheirCaller(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, time.Minute)
	tb := intentTable(t, b)
	k := strKey(t, tb, "a")
	if err := b.Mutate(ctx, tb, k, put(gItem("a", "x1"))); err != nil {
		t.Fatal(err)
	}
	b2 := openFrontend(t)
	wctx, leave := context.WithCancel(ctx)
	hook := func() { leave() }
	b2.beforeIndexes.Store(&hook)
	err := b2.Mutate(wctx, tb, k, put(gItem("a", "x2")))
	b2.beforeIndexes.Store(nil)
	if err != nil {
		t.Fatalf("Mutate whose caller left after its commit: %v", err)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) != 0 {
		t.Errorf("index after the caller left: %v, %v", d, err)
	}
	if got := streamSummary(t, b, tb); !slices.Equal(got, []string{"INSERT a >x1", "MODIFY a x1>x2"}) {
		t.Errorf("records %q", got)
	}
	settle(t, ctx, b, b2)
}

// settle stops the frontend b2 and lets b replay its intents, so that the
// recovery tests that follow find no frontend left by this one.
func settle(t *testing.T, ctx context.Context, b, b2 *Backend) {
	t.Helper()
	b2.Close()
	recoverUntil(t, ctx, b, 10*testLease)
}

// TestFailedEffectsAreRecovered: when a committed write's index rows and
// stream record fail (here they outlast effectsTimeout), they are handed
// to the recovery worker and the write succeeds (the item is committed: a
// client retrying it would apply it twice). A recovery pass replays that
// write alone, although its process is alive and keeps its owner ID: a
// live owner's intents are never replayed, so without the hand-over the
// index would disagree with the item for as long as the process runs.
func TestFailedEffectsAreRecovered(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := intentTable(t, b)
	k := strKey(t, tb, "a")
	if err := b.Mutate(ctx, tb, k, put(gItem("a", "x1"))); err != nil {
		t.Fatal(err)
	}
	b2 := openFrontend(t)
	owner := b2.fe.id.Load().owner
	b2.effectsTimeout = 50 * time.Millisecond
	stall := func() { time.Sleep(300 * time.Millisecond) }
	b2.beforeIndexes.Store(&stall)
	err := b2.Mutate(ctx, tb, k, put(gItem("a", "x2")))
	b2.beforeIndexes.Store(nil)
	b2.effectsTimeout = effectsTimeout
	if err != nil {
		t.Fatalf("Mutate whose effects were handed to recovery: %v", err)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) == 0 {
		t.Fatalf("the index agreed with the item (%v, %v): the effects did not fail", d, err)
	}
	deadline := time.Now().Add(20 * testLease)
	for {
		if _, err := b.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2"))
		if err != nil {
			t.Fatal(err)
		}
		if len(d) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index after recovery passes: %v", d)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got := streamSummary(t, b, tb); !slices.Equal(got, []string{"INSERT a >x1", "MODIFY a x1>x2"}) {
		t.Errorf("records %q", got)
	}
	if got := b2.fe.id.Load().owner; got != owner {
		t.Errorf("the process changed its owner ID from %s to %s", owner, got)
	}
	if owners := listedOwners(t, ctx, b); slices.ContainsFunc(owners, func(o string) bool { return strings.HasPrefix(o, "repair-") }) {
		t.Errorf("a repair is still listed after it was replayed: %v", owners)
	}
	if err := b2.Mutate(ctx, tb, k, put(gItem("a", "x3"))); err != nil {
		t.Fatal(err)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x2"), gItem("a", "x3")); err != nil || len(d) != 0 {
		t.Errorf("index after the next write: %v, %v", d, err)
	}
	settle(t, ctx, b, b2)
}
