// Package admission bounds the memory that requests in flight may hold.
//
// A Budget is a number of bytes shared by all requests. A request reserves
// bytes as its body arrives (and for the response it builds) and gives them
// back when it is answered. A request that would take the budget past its
// size waits up to Wait for others to finish; if the bytes are still not
// free it is refused with DynamoDB's ThrottlingException, which every AWS
// SDK retries with backoff, instead of the process growing without bound.
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
// ("ThrottlingException ... OK to retry? Yes").
package admission

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// Budget is the memory budget of requests in flight. A nil *Budget admits
// everything. It is safe for concurrent use.
type Budget struct {
	size int64
	wait time.Duration
	sem  *semaphore.Weighted
}

// New returns a budget of size bytes; a request waits at most wait for
// bytes to become free. size <= 0 means no budget (New returns nil).
func New(size int64, wait time.Duration) *Budget {
	if size <= 0 {
		return nil
	}
	return &Budget{size: size, wait: wait, sem: semaphore.NewWeighted(size)}
}

// Size is the budget in bytes (0 for a nil budget).
func (b *Budget) Size() int64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Reservation is the bytes one request holds. Its zero value (and one from
// a nil Budget) holds nothing. Release must be called once the request is
// answered.
type Reservation struct {
	b    *Budget
	mu   sync.Mutex
	held int64
}

// Reserve returns an empty reservation on b.
func (b *Budget) Reserve() *Reservation { return &Reservation{b: b} }

// Grow makes the reservation hold at least n bytes. A request larger than
// the whole budget is capped at the budget, so it is admitted alone rather
// than never. It returns ThrottlingException when the bytes do not become
// free within the budget's wait, or ctx's error.
func (r *Reservation) Grow(ctx context.Context, n int64) error {
	if r == nil || r.b == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n = min(n, r.b.size)
	if n <= r.held {
		return nil
	}
	need := n - r.held
	if r.b.sem.TryAcquire(need) {
		r.held = n
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, r.b.wait)
	defer cancel()
	if err := r.b.sem.Acquire(wctx, need); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return Throttled()
		}
		return err
	}
	r.held = n
	return nil
}

// Held is the number of bytes the reservation holds.
func (r *Reservation) Held() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// Release gives the reservation's bytes back. It is idempotent.
func (r *Reservation) Release() {
	if r == nil || r.b == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held > 0 {
		r.b.sem.Release(r.held)
		r.held = 0
	}
}

// Throttled is the error a request past the budget gets: DynamoDB's
// ThrottlingException (HTTP 400, retryable).
func Throttled() *ddberr.Error {
	return ddberr.Throttling("Rate of requests exceeds the allowed throughput.")
}
