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
