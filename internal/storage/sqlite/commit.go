package sqlite

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/internal/storage"
)

// writeReq is one queued write: apply runs inside its own savepoint of a
// group-commit transaction, on the goroutine leading that commit.
type writeReq struct {
	ctx     context.Context
	apply   func(w *writer) error
	catalog bool // apply changes the catalog
	err     error
	// done receives one signal: the request was answered (err is final),
	// or, when lead is set, its goroutine is to lead the next group commit.
	done     chan struct{}
	lead     bool
	answered bool // set by the leader that answered it
}

// answer wakes the request's goroutine with its outcome in r.err.
func (r *writeReq) answer() {
	r.answered = true
	r.done <- struct{}{}
}

// submit queues a write and waits for its outcome (ADR 0018c). There is no
// writer goroutine: the first write to find no commit under way leads one
// on its own goroutine, taking every write queued by then (its own first)
// into one transaction; writes that arrive meanwhile wait, and when the
// commit is done the leader hands the lead to the oldest of them, which
// commits the next group. A lone writer therefore commits on its own
// goroutine without any handoff, and concurrent writers still share each
// COMMIT (and its fsync) in FIFO order.
//
// Once queued, a write is always answered: a request whose context ends
// before its group starts fails with the context's error and writes
// nothing; one whose group has started is committed or rolled back as
// usual, whatever the context.
func (b *Backend) submit(ctx context.Context, catalog bool, apply func(w *writer) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &writeReq{ctx: ctx, apply: apply, catalog: catalog, done: make(chan struct{}, 1)}
	b.wmu.Lock()
	if b.closed.Load() {
		b.wmu.Unlock()
		return storage.ErrClosed
	}
	b.pending = append(b.pending, r)
	if b.leading {
		b.wmu.Unlock()
		<-r.done
		if !r.lead {
			return r.err
		}
	} else {
		b.leading = true
		b.wmu.Unlock()
	}
	b.lead()
	return r.err
}

// lead commits one group: the queued writes (at most maxBatch, oldest
// first, the leader's own at their head), then passes the lead on. It runs
// while b.leading is set, so no other goroutine touches the writer.
func (b *Backend) lead() {
	w := b.w
	b.wmu.Lock()
	n := min(len(b.pending), w.maxBatch)
	w.batch = append(w.batch[:0], b.pending[:n]...)
	rest := copy(b.pending, b.pending[n:])
	clear(b.pending[rest:])
	b.pending = b.pending[:rest]
	b.wmu.Unlock()
	defer b.passLead()
	defer w.recoverBatch()
	w.runBatch(w.batch)
	clear(w.batch)
}

// passLead wakes the oldest queued write to lead the next group, or marks
// the writer idle (waking Close) when none is queued.
func (b *Backend) passLead() {
	b.wmu.Lock()
	if len(b.pending) == 0 {
		b.leading = false
		b.idle.Broadcast()
		b.wmu.Unlock()
		return
	}
	next := b.pending[0]
	b.wmu.Unlock()
	next.lead = true
	next.done <- struct{}{}
}

// recoverBatch, deferred around a group, turns a panic outside the write
// functions (which call recovers) into a failure of the whole group, so
// that every write of it is answered and the next leader finds the
// connection outside a transaction; the panic then goes on up the
// leader's goroutine.
func (w *writer) recoverBatch() {
	p := recover()
	if p == nil {
		return
	}
	var live []*writeReq
	for _, r := range w.batch {
		if !r.answered {
			live = append(live, r)
		}
	}
	w.abort(live, fmt.Errorf("sqlite: writer panicked: %v", p))
	clear(w.batch)
	panic(p)
}
