package cassandra

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// A clean Close leaves nothing to recover. Every write that records
// intents (Mutate, transactions, Recover's own repairs) runs between
// beginWrite and endWrite; Close stops new ones, waits for those in flight,
// stops the lease renewals and, when every write of this owner ID ended
// with its derived rows written, deletes the owner's frontends row, so no
// other frontend replays its intents (intents.go). A write that failed
// with a storage error may have committed its item without its derived
// rows: its owner ID then stays listed, and Recover repairs it once the
// lease lapses, as after a crash. So do owner IDs the process gave up
// after losing its lease (renewFrontend lists them again), and the owner
// ID of a Close whose writes did not end within Options.FrontendLease.

// writeGate counts the writes in flight and records whether one failed.
type writeGate struct {
	mu       sync.Mutex
	inFlight int
	closing  bool
	dirty    bool          // a write failed
	drained  chan struct{} // closed when the last write in flight ends after closing
}

// beginWrite admits a write, or fails with storage.ErrClosed once Close
// has started.
func (b *Backend) beginWrite() error {
	g := &b.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return storage.ErrClosed
	}
	g.inFlight++
	return nil
}

// endWrite ends a write begun with beginWrite; failed reports that it may
// have left an intent without its derived rows.
func (b *Backend) endWrite(failed bool) {
	g := &b.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight--
	g.dirty = g.dirty || failed
	if g.closing && g.inFlight == 0 && g.drained != nil {
		close(g.drained)
		g.drained = nil
	}
}

// drainWrites stops admitting writes and waits up to d for those in flight
// to end; it reports whether they all ended and none ever failed.
func (b *Backend) drainWrites(d time.Duration) bool {
	g := &b.gate
	g.mu.Lock()
	g.closing = true
	if g.inFlight == 0 {
		defer g.mu.Unlock()
		return !g.dirty
	}
	ch := make(chan struct{})
	g.drained = ch
	g.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(d):
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.dirty
}

// writeFailed reports whether a write that returned err may have committed
// its item without its derived rows: any error but a transaction's
// cancellation, which commits nothing, and storage.ErrClosed, returned
// before anything is written. (Mutate's condition failures are its
// function's errors and never reach here.)
func writeFailed(err error) bool {
	var te *storage.TransactionError
	return err != nil && !errors.As(err, &te) && !errors.Is(err, storage.ErrClosed)
}

// unlistFrontend deletes the frontends row of the current owner ID (after
// its renewals stopped, which could write it again), so that no Recover
// replays its intents. A failure only leaves it to be recovered.
func (b *Backend) unlistFrontend() {
	fid := b.fe.id.Load()
	if fid == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.Timeout)
	defer cancel()
	_ = b.retry(ctx, func() error {
		return b.s.Query(`DELETE FROM `+b.catalog+`.frontends WHERE k = 0 AND owner = ?`, fid.owner).
			WithContext(ctx).Idempotent(true).Exec()
	})
}
