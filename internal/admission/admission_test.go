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
