package workers

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/postgres"
)

// slowBatches is a real PostgreSQL backend (a storage.Leaser) whose ExpiredRows waits before it reads,
// so that an expiry pass of a few batches outlasts its lease, and runs
// onBatch (when set) after the wait of the first call.
type slowBatches struct {
	*postgres.Backend
	wait    time.Duration
	onBatch func()
	calls   atomic.Int32
}

func (s *slowBatches) ExpiredRows(ctx context.Context, t *storage.Table, from, to int64, limit int) ([]storage.TTLRow, error) {
	time.Sleep(s.wait)
	if s.calls.Add(1) == 1 && s.onBatch != nil {
		s.onBatch()
	}
	return s.Backend.ExpiredRows(ctx, t, from, to, limit)
}

// TestExpiryPassRenewsLease: two servers share a PostgreSQL database (a
// storage.Leaser). An expiry pass of four batches, each longer than a
// third of the lease "ttl/<table id>" (three intervals) and together
// longer than the whole lease, renews it between batches: the other
// server, claiming it all along, never gets it while the pass runs, and
// gets it once the pass is over and the lease ran out.
func TestExpiryPassRenewsLease(t *testing.T) {
	b1, b2 := sharedPostgres(t)
	ctx := context.Background()
	past := fmt.Sprint(time.Now().Add(-time.Minute).Unix())
	tb, cur := expiringTableOn(t, b1, 35, func(int) string { return past })
	const interval = 500 * time.Millisecond // a lease of 1.5 s
	w := NewTTL(&slowBatches{Backend: b1, wait: 600 * time.Millisecond}, TTLConfig{Interval: interval, Batch: 10, Owner: "one"})
	var n int
	var err error
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		n, err = w.ExpireTable(ctx, cur)
	}()
	claims := 0
	for running := true; running; claims++ {
		select {
		case <-done:
			running = false
		case <-time.After(20 * time.Millisecond):
			if ok, cerr := b2.AcquireLease(ctx, "ttl/"+tb.ID, "two", time.Minute); cerr != nil || ok {
				<-done
				t.Fatalf("the other server's claim %d during the pass = %v, %v; want refused", claims, ok, cerr)
			}
		}
	}
	if err != nil || n != 35 {
		t.Fatalf("ExpireTable = %d, %v; want all 35 expired", n, err)
	}
	if took := time.Since(start); took < 3*interval { // 4 batches of 600 ms at least
		t.Fatalf("the pass took %v; want it to outlast its lease of %v", took, 3*interval)
	}
	time.Sleep(3 * interval)
	if ok, err := b2.AcquireLease(ctx, "ttl/"+tb.ID, "two", time.Minute); err != nil || !ok {
		t.Fatalf("the other server's claim after the lease ran out = %v, %v; want granted", ok, err)
	}
}

// TestExpiryPassEndsWhenLeaseLost: a pass whose first batch outlasts its
// lease, which the other server then takes, stops after that batch (its
// deletes are fenced, so the batch in hand is safe to finish) instead of
// doing the other server's work; the lease stays the other's.
func TestExpiryPassEndsWhenLeaseLost(t *testing.T) {
	b1, b2 := sharedPostgres(t)
	ctx := context.Background()
	past := fmt.Sprint(time.Now().Add(-time.Minute).Unix())
	tb, cur := expiringTableOn(t, b1, 30, func(int) string { return past })
	const interval = 100 * time.Millisecond // a lease of 300 ms
	var taken bool
	var takeErr error
	s := &slowBatches{Backend: b1, wait: 500 * time.Millisecond, onBatch: func() {
		taken, takeErr = b2.AcquireLease(ctx, "ttl/"+tb.ID, "two", time.Minute)
	}}
	w := NewTTL(s, TTLConfig{Interval: interval, Batch: 10, Owner: "one"})
	n, err := w.ExpireTable(ctx, cur)
	if takeErr != nil || !taken {
		t.Fatalf("the other server's claim after the lease ran out = %v, %v; want granted", taken, takeErr)
	}
	if err != nil || n != 10 {
		t.Fatalf("ExpireTable = %d, %v; want the first batch of 10 only", n, err)
	}
	if st, err := b1.Stats(ctx, tb); err != nil || st.ItemCount != 20 {
		t.Fatalf("after the pass: %+v %v; want 20 items left", st, err)
	}
	if ok, err := b1.AcquireLease(ctx, "ttl/"+tb.ID, "one", time.Minute); err != nil || ok {
		t.Fatalf("the first server's claim after the pass = %v, %v; want refused", ok, err)
	}
}
