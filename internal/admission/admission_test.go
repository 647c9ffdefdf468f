package admission

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// A request past the budget waits, then gets DynamoDB's retryable
// ThrottlingException; bytes given back admit the next request.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
func TestBudgetWaitsThenThrottles(t *testing.T) {
	b := New(1000, 30*time.Millisecond)
	ctx := context.Background()
	first := b.Reserve()
	if err := first.Grow(ctx, 800); err != nil {
		t.Fatal(err)
	}
	second := b.Reserve()
	start := time.Now()
	err := second.Grow(ctx, 300)
	if !ddberr.Is(err, "ThrottlingException") {
		t.Fatalf("past the budget: %v, want ThrottlingException", err)
	}
	if e := ddberr.As(err); e.Status != 400 || e.Type != "com.amazon.coral.availability#ThrottlingException" ||
		e.Message != "Rate of requests exceeds the allowed throughput." {
		t.Fatalf("error %+v", e)
	}
	if waited := time.Since(start); waited < 30*time.Millisecond {
		t.Fatalf("refused after %v, before the wait", waited)
	}
	if second.Held() != 0 {
		t.Fatalf("a refused reservation holds %d bytes", second.Held())
	}
	go func() {
		time.Sleep(10 * time.Millisecond)
		first.Release()
	}()
	if err := second.Grow(ctx, 300); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	first.Release() // idempotent
	second.Release()
	third := b.Reserve()
	if err := third.Grow(ctx, 1000); err != nil {
		t.Fatalf("whole budget free again: %v", err)
	}
	third.Release()
}

// A request larger than the whole budget is admitted alone rather than
// never; a nil budget admits everything.
func TestBudgetCapsAndNil(t *testing.T) {
	b := New(100, time.Millisecond)
	r := b.Reserve()
	if err := r.Grow(context.Background(), 1<<30); err != nil || r.Held() != 100 {
		t.Fatalf("oversized request: %v, holds %d", err, r.Held())
	}
	r.Release()
	var none *Budget
	if err := none.Reserve().Grow(context.Background(), 1<<40); err != nil {
		t.Fatal(err)
	}
	if New(0, time.Second) != nil {
		t.Fatal("New(0) is a budget")
	}
}

// Items a response returns are charged at three times their size; the
// first charge waits and throttles, later ones only take free room.
func TestChargeItems(t *testing.T) {
	bg := context.Background()
	b := New(1000, 20*time.Millisecond)
	r := b.Reserve()
	defer r.Release()
	ctx := NewContext(bg, r)
	if err := ChargeItems(ctx, 100); err != nil || r.Held() != 300 {
		t.Fatalf("ChargeItems(100): %v, held %d, want nil and 300", err, r.Held())
	}
	if TryChargeItems(ctx, 300) || r.Held() != 300 {
		t.Fatalf("TryChargeItems past the budget took it (held %d)", r.Held())
	}
	if !TryChargeItems(ctx, 200) || r.Held() != 900 {
		t.Fatalf("TryChargeItems within the budget refused (held %d)", r.Held())
	}
	other := b.Reserve()
	defer other.Release()
	err := ChargeItems(NewContext(bg, other), 100)
	if e := ddberr.As(err); e.Type != "com.amazon.coral.availability#ThrottlingException" {
		t.Fatalf("ChargeItems on a full budget: %v, want ThrottlingException", err)
	}
	if err := ChargeItems(bg, 1<<40); err != nil || !TryChargeItems(bg, 1<<40) {
		t.Fatalf("a context without a reservation is charged: %v", err)
	}
}

// Requests that grow step by step, each holding part of the budget, do not
// all wait on each other until every one is refused: a request that must
// wait gives its bytes back, so the first in line is admitted
// (TestHTTPInflatingBodiesWithinBudget's 16 gzip bodies under load).
func TestGrowingRequestsDoNotStarveEachOther(t *testing.T) {
	b := New(1000, 200*time.Millisecond)
	ctx := context.Background()
	rs := make([]*Reservation, 4)
	for i := range rs {
		rs[i] = b.Reserve()
		if err := rs[i].Grow(ctx, 250); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, len(rs))
	for _, r := range rs {
		go func() {
			err := r.Grow(ctx, 600)
			if err == nil {
				time.Sleep(5 * time.Millisecond) // the request is served
			}
			r.Release()
			errs <- err
		}()
	}
	admitted := 0
	for range rs {
		if err := <-errs; err == nil {
			admitted++
		} else if !ddberr.Is(err, "ThrottlingException") {
			t.Fatalf("grow: %v", err)
		}
	}
	if admitted == 0 {
		t.Fatal("four requests holding the budget between them were all refused")
	}
	t.Logf("%d of 4 admitted", admitted)
}
