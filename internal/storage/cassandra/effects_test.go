package cassandra

import (
	"context"
	"slices"
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
	ctx, b, b2, tb, k := twoFrontends(t, gItem("a", "x1"))
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

// settleOption changes what settle accepts of the recovery passes.
type settleOption int

// failingRepairsLeft tells settle that the test leaves repairs that fail
// at every pass (until its cleanup), so that a pass's error is expected.
const failingRepairsLeft settleOption = 1

// settle stops the frontend b2 and runs b's recovery passes until b2 is
// unlisted (its intents replayed), for up to 10 leases, so that the
// recovery tests that follow find no frontend left by this one. A pass
// that fails fails the test, unless opts holds failingRepairsLeft.
func settle(t *testing.T, ctx context.Context, b, b2 *Backend, opts ...settleOption) {
	t.Helper()
	owner := b2.fe.id.Load().owner
	b2.Close()
	for deadline := time.Now().Add(10 * testLease); slices.Contains(listedOwners(t, ctx, b), owner); time.Sleep(300 * time.Millisecond) {
		if _, err := b.Recover(ctx); err != nil && !slices.Contains(opts, failingRepairsLeft) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the stopped frontend is still listed")
		}
	}
}
