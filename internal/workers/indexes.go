// Package workers holds the server's background workers: long-running
// loops that finish control-plane changes the API records as durable intent
// in the catalog.
package workers

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// IndexConfig tunes an Indexes worker. The zero value works.
type IndexConfig struct {
	// PageConfig's PageSize is how many items one backfill transaction
	// copies, and its PageDelay a pause between backfill pages (tests use
	// it to observe an index while it builds). Its Now is the clock of a
	// deleted index's status delay (Index.ActiveAt): the index is dropped
	// once it has passed.
	PageConfig
	// Sweep is how often the worker looks for work without being kicked;
	// default 5 s. Work recorded by another process sharing the store is
	// found at the next sweep.
	Sweep time.Duration
}

// Indexes builds global secondary indexes created online (CREATING with
// Backfilling) and drops deleted ones (DELETING), through the backend's
// storage.IndexBuilder. Each build is a job of internal/jobs (see
// backfill.go): one process of those sharing the backend runs it, and a
// restarted one resumes it from the catalog's BackfillCursor.
type Indexes struct {
	backfiller
	cfg IndexConfig
}

// NewIndexes returns a worker over store.
func NewIndexes(store storage.Backend, cfg IndexConfig) *Indexes {
	cfg.setDefaults()
	cfg.Sweep = orDefault(cfg.Sweep, 5*time.Second)
	w := &Indexes{backfiller: newBackfiller(store, cfg.Log), cfg: cfg}
	w.register(KindIndexBackfill, w.runBackfill)
	return w
}

// Run works until ctx ends: a pass at start (resuming interrupted builds),
// then one after every Kick and every Sweep.
func (w *Indexes) Run(ctx context.Context) {
	loop(ctx, "index worker", w.cfg.Sweep, w.kick, w.cfg.Log, w.RunOnce)
}

// RunOnce drops every DELETING index, makes sure every pending build has
// its job, and runs the builds this process may run (not those another
// process holds) to their end, then returns. Errors of one table are
// logged and do not stop the others; the first is returned.
func (w *Indexes) RunOnce(ctx context.Context) error {
	return w.ensureAndRun(ctx, w.cfg.Accounts, func(t *storage.Table) error {
		var first error
		for _, ix := range t.Indexes {
			var err error
			switch {
			case ix.Status == storage.StatusCreating && ix.Backfilling:
				err = ensureJob(ctx, w.jobs, KindIndexBackfill, t.ID+"."+ix.ID, t.Account,
					backfillParams{Table: t.Name, TableID: t.ID, IndexID: ix.ID, IndexName: ix.IndexName})
			case ix.Status == storage.StatusDeleting && !w.cfg.Now().Before(ix.ActiveAt):
				err = w.store.DropIndex(ctx, t.Account, t.Name, ix.ID)
			}
			if err != nil && first == nil {
				first = err
			}
		}
		return first
	})
}

// runBackfill is the job of one index build: pages until the index is
// built, or the table or index goes away.
func (w *Indexes) runBackfill(ctx context.Context, run *jobs.Run) error {
	var p backfillParams
	if err := run.Job.DecodeParams(&p); err != nil {
		return err
	}
	start := time.Now()
	account := run.Job.Account
	page := func(ctx context.Context) (bool, error) {
		return w.store.BackfillIndex(ctx, account, p.Table, p.IndexID, w.cfg.PageSize)
	}
	pages, built, err := runPages(ctx, run, w.cfg.Log, w.cfg.PageSize, w.cfg.PageDelay, page, func() { w.cfg.Metrics.BackfillPage("index") })
	if built {
		w.cfg.Metrics.JobFinished("index", "ACTIVE")
		w.cfg.Log.Info("index built", "table", p.Table, "index", p.IndexName, "pages", pages, "took", time.Since(start))
	}
	return err
}
