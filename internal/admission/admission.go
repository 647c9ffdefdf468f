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
	if r.b.sem.TryAcquire(n - r.held) {
		r.held = n
		return nil
	}
	// Waiting while holding bytes would let requests that grow step by
	// step (a gzip body inflating) hold the whole budget between them and
	// all time out, none admitted. A request that must wait gives its bytes
	// back and queues for all n; the semaphore serves waiters first come,
	// first served, so the request at the head gets what it needs and
	// finishes. What waiters still hold in buffers is then outside the
	// budget: at worst the budget again (docs/operations.md).
	if r.held > 0 {
		r.b.sem.Release(r.held)
		r.held = 0
	}
	wctx, cancel := context.WithTimeout(ctx, r.b.wait)
	defer cancel()
	if err := r.b.sem.Acquire(wctx, n); err != nil {
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

// responseFactor is how many bytes of memory a response holds per byte of
// item it returns: the items as read, as projected and as encoded.
const responseFactor = 3

type ctxKey struct{}

// NewContext returns ctx carrying r, so that operations can charge the
// items they read to the request's reservation (ChargeItems).
func NewContext(ctx context.Context, r *Reservation) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// ChargeItems adds the memory of n bytes of items (DynamoDB item size) that
// an operation is about to return to the reservation ctx carries, waiting
// like Grow; without one it does nothing. Operations call it as they read,
// so that responses (a BatchGetItem answer can reach 16 MB) count against
// the budget as request bodies do. Errors: ThrottlingException when the
// budget stays full, or ctx's error.
func ChargeItems(ctx context.Context, n int) error {
	r, _ := ctx.Value(ctxKey{}).(*Reservation)
	if r == nil || r.b == nil || n <= 0 {
		return nil
	}
	return r.Grow(ctx, r.Held()+responseFactor*int64(n))
}

// TryChargeItems is ChargeItems without waiting and without the cap at the
// budget's size: it reports whether the budget had room (always true
// without a reservation in ctx). Operations
// use it for all but the first items of a response, and end the response
// early when it is false, so that requests holding part of the budget never
// wait on each other.
func TryChargeItems(ctx context.Context, n int) bool {
	r, _ := ctx.Value(ctxKey{}).(*Reservation)
	if r == nil || r.b == nil || n <= 0 {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	want := r.held + responseFactor*int64(n)
	if want > r.b.size || !r.b.sem.TryAcquire(want-r.held) {
		return false
	}
	r.held = want
	return true
}
