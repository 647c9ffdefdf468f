// Package workers holds the server's background workers: long-running
// loops that finish control-plane changes the API records as durable intent
// in the catalog.
package workers

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
)

// IndexConfig tunes an Indexes worker. The zero value works.
type IndexConfig struct {
	// Accounts whose tables the worker looks after; default
	// storage.DefaultAccount.
	Accounts []string
	// PageSize is how many items one backfill transaction copies; default 256.
	PageSize int
	// Sweep is how often the worker looks for work without being kicked;
	// default 5 s. Work recorded by another process sharing the store is
	// found at the next sweep.
	Sweep time.Duration
	// PageDelay is a pause between backfill pages, zero by default. Tests
	// use it to observe an index while it builds.
	PageDelay time.Duration
	Log       *slog.Logger
	// Metrics counts backfill pages and built indexes; nil counts nothing.
	Metrics *metrics.Metrics
}

// Indexes builds global secondary indexes created online (CREATING with
// Backfilling) and drops deleted ones (DELETING), through the backend's
// storage.IndexBuilder. Progress is durable in the catalog, so a restarted
// worker resumes a build from its BackfillCursor. It is idempotent: two
// workers on one store do the same work twice at worst, never wrong work.
type Indexes struct {
	store storage.Backend
	cfg   IndexConfig
	kick  kicker
}

// NewIndexes returns a worker over store.
func NewIndexes(store storage.Backend, cfg IndexConfig) *Indexes {
	cfg.Accounts, cfg.Log = accountsOrDefault(cfg.Accounts), logOrDefault(cfg.Log)
	cfg.PageSize = orDefault(cfg.PageSize, 256)
	cfg.Sweep = orDefault(cfg.Sweep, 5*time.Second)
	return &Indexes{store: store, cfg: cfg, kick: newKicker()}
}

// Kick wakes the worker for new work. It never blocks.
func (w *Indexes) Kick() {
	w.kick.kick()
}

// Run works until ctx ends: a pass at start (resuming interrupted builds),
// then one after every Kick and every Sweep.
func (w *Indexes) Run(ctx context.Context) {
	loop(ctx, "index worker", w.cfg.Sweep, w.kick, w.cfg.Log, w.RunOnce)
}

// RunOnce finishes every pending index build and drop it finds, then
// returns. Errors of one table are logged and do not stop the others; the
// first is returned.
func (w *Indexes) RunOnce(ctx context.Context) error {
	return eachTable(ctx, w.store, w.cfg.Accounts, func(t *storage.Table) error {
		var first error
		for _, ix := range t.Indexes {
			var err error
			switch {
			case ix.Status == storage.StatusCreating && ix.Backfilling:
				err = w.backfill(ctx, t.Account, t.Name, ix)
			case ix.Status == storage.StatusDeleting:
				err = w.store.DropIndex(ctx, t.Account, t.Name, ix.ID)
			}
			if err != nil && first == nil {
				first = err
			}
		}
		return first
	})
}

// backfill copies pages until the index is built, the table or index goes
// away, or ctx ends.
func (w *Indexes) backfill(ctx context.Context, account, name string, ix storage.Index) error {
	start := time.Now()
	pages := 0
	for {
		done, err := w.store.BackfillIndex(ctx, account, name, ix.ID, w.cfg.PageSize)
		if errors.Is(err, storage.ErrTableNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		pages++
		w.cfg.Metrics.BackfillPage("index")
		if done {
			w.cfg.Metrics.JobFinished("index", "ACTIVE")
			w.cfg.Log.Info("index built", "table", name, "index", ix.IndexName, "pages", pages, "took", time.Since(start))
			return nil
		}
		if w.cfg.PageDelay > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(w.cfg.PageDelay):
			}
		}
	}
}
