package cassandra

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// SettleWriters returns once every other frontend listed when it was
// called (intents.go) has either renewed its lease since (it is alive:
// its frontends row's renewed changed; the value is compared with itself,
// not with this process's clock, so clock skew between servers does not
// matter) or been replayed and unlisted by a recovery pass
// (storage.WriterSettler). It runs Recover itself every sixth of
// Options.FrontendLease (at least 250 ms, at most 1 s) while it waits (a pass does nothing while
// another process holds the recovery lease, whose pass then does the
// work). A stopped frontend's lease lapses within one FrontendLease (plus
// a second) of its last renewal, so the wait is up to one lease and a
// recovery pass; with every other frontend alive it is up to a third of
// // their lease (their next renewal) and a poll. It is bounded by
// settleBound (a recovery pass it runs is cut at that deadline), after
// which the error names the frontends still pending and the last error of
// a read or a pass; a read that fails meanwhile keeps them pending.
// Recover passes of one process run one at a time (Backend.recoverMu).
// Errors: storage.ErrClosed (also when the backend closes meanwhile),
// ctx's error, the first read of the frontends table (retried).
// Used by a resumed fill (docs/adr/0018j-cassandra-fills-rewrite-index-rows.md).
func (b *Backend) SettleWriters(ctx context.Context) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	me := b.fe.id.Load()
	if me == nil {
		return errors.New("cassandra: settle writers: no frontend registered")
	}
	var listed []listedFrontend
	err := b.retry(ctx, func() (err error) { listed, err = b.listedFrontends(ctx); return err })
	if err != nil {
		return wrap("settle writers", err)
	}
	pending := map[string]time.Time{} // owner -> renewed when listed
	for _, f := range listed {
		if f.owner != me.owner {
			pending[f.owner] = f.renewed
		}
	}
	bound := b.settleBound()
	deadline := time.Now().Add(bound)
	poll := min(max(b.opts.FrontendLease/6, 250*time.Millisecond), time.Second)
	var lastErr error // of the last read or recovery pass
	for len(pending) > 0 {
		if b.closed.Load() {
			return storage.ErrClosed
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cassandra: settle writers: frontends %v neither renewed their lease nor were recovered within %s (last error: %v)",
				slices.Sorted(maps.Keys(pending)), bound, lastErr)
		}
		if err := b.recoverBy(ctx, deadline); err != nil {
			if errors.Is(err, storage.ErrClosed) || ctx.Err() != nil {
				return err
			}
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
		// A failed read keeps the frontends pending until the deadline.
		if still, err := b.stillPending(ctx, pending); err != nil {
			lastErr = err
		} else {
			pending = still
		}
	}
	return nil
}

// recoverBy runs one Recover pass that ends by deadline (an interrupted
// pass is safe: a frontend stays listed until its replay is done), and
// logs what it replayed, as the recovery worker does.
func (b *Backend) recoverBy(ctx context.Context, deadline time.Time) error {
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	n, err := b.Recover(rctx)
	if n > 0 {
		b.opts.Log.Warn("replayed the writes of stopped frontends before a resumed fill", "writes", n)
	}
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return fmt.Errorf("recovery pass cut at the deadline: %w", err)
	}
	return err
}

// settleBound is how long SettleWriters waits at most: twice the lease
// (the lapse of a stopped frontend's lease, then a pass that may start up
// to a poll later) plus two minutes for the replay of its intents.
func (b *Backend) settleBound() time.Duration { return 2*b.opts.FrontendLease + 2*time.Minute }

// stillPending returns those of pending (owner -> renewed when first
// listed) still listed in the frontends table with that renewed.
func (b *Backend) stillPending(ctx context.Context, pending map[string]time.Time) (map[string]time.Time, error) {
	listed, err := b.listedFrontends(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, f := range listed {
		if r, ok := pending[f.owner]; ok && f.renewed.Equal(r) {
			out[f.owner] = r
		}
	}
	return out, nil
}

// listedFrontends reads the rows of the frontends table (at QUORUM, the
// session's consistency).
func (b *Backend) listedFrontends(ctx context.Context) ([]listedFrontend, error) {
	var fes []listedFrontend
	iter := b.s.Query(`SELECT owner, started, renewed FROM ` + b.catalog + `.frontends WHERE k = 0`).WithContext(ctx).PageSize(1000).Iter()
	var f listedFrontend
	for iter.Scan(&f.owner, &f.started, &f.renewed) {
		fes = append(fes, f)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("list frontends: %w", err)
	}
	return fes, nil
}
