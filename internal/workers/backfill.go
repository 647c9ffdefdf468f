package workers

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// Backfills as jobs of internal/jobs: the online build of a global
// secondary index and the Time to Live backfill (ENABLING) and drain
// (DISABLING) each run as one job, so they have a durable record, a lease
// (exactly one of the processes sharing a backend runs each), resumption
// after a crash and the one progress model of every job. The sweeps of
// the Indexes and TTL workers find the work the catalog records (an index
// CREATING with Backfilling, a table ENABLING or DISABLING) and create its
// job; a job that ended while the work is still pending (it failed) is
// created again. The catalog keeps the authoritative position of each
// build (BackfillCursor), committed with every page by the backend, so a
// resumed job goes on exactly where the last committed page left off; the
// job's cursor records the pages done. See
// docs/adr/0013d-backfill-jobs-consistent-backups-history-cost.md.

// Job kinds of the backfills.
const (
	KindIndexBackfill = "index-backfill"
	KindTTLBackfill   = "ttl-backfill"
	KindTTLDrain      = "ttl-drain"
)

// backfillLease is how long a backfill's lease lasts unrenewed: how long
// a build whose server died waits before another server (or the
// restarted one) resumes it, on a backend several servers share. A build
// renews it every third of that.
const backfillLease = 10 * time.Second

// backfillRecordsKept is how long the record of an ended backfill is kept.
const backfillRecordsKept = time.Hour

// backfillParams are the parameters of a backfill job.
type backfillParams struct {
	Table      string
	TableID    string
	IndexID    string `json:",omitempty"`
	IndexName  string `json:",omitempty"`
	Generation int64  `json:",omitempty"`
}

// backfillCursor is a backfill job's cursor: the pages committed so far.
type backfillCursor struct {
	Pages int64
}

// backfiller is what the Indexes and TTL workers share: their store, the
// kicker of their loop, and the job store and runner of their backfills.
type backfiller struct {
	store  storage.Backend
	kick   kicker
	jobs   *jobs.Store
	runner *jobs.Runner
}

// newBackfiller returns a backfiller over store whose runner is exclusive
// on a backend one process owns (not a storage.Leaser).
func newBackfiller(store storage.Backend, log *slog.Logger) backfiller {
	js := jobs.NewStore(store)
	_, shared := store.(storage.Leaser)
	return backfiller{store: store, kick: newKicker(), jobs: js,
		runner: jobs.NewRunner(js, jobs.Config{Exclusive: !shared, Log: log, Lease: backfillLease})}
}

// register makes h the handler of the backfills of kind, whose records are
// kept backfillRecordsKept after they end.
func (b *backfiller) register(kind string, h jobs.Handler) {
	b.runner.Register(kind, h)
	b.runner.Expire(kind, backfillRecordsKept)
}

// Kick wakes the worker for new work. It never blocks.
func (b *backfiller) Kick() {
	b.kick.kick()
}

// ensureAndRun makes sure, with ensure, that every table of accounts has
// the jobs of its pending work, then runs the jobs this process may run
// (not those another process holds) to their end. Errors of one table do
// not stop the others; the first is returned.
func (b *backfiller) ensureAndRun(ctx context.Context, accounts []string, ensure func(t *storage.Table) error) error {
	first := eachTable(ctx, b.store, accounts, ensure)
	if err := b.runner.RunOnce(ctx); first == nil {
		first = err
	}
	return first
}

// ensureJob makes sure a job (kind, id) that is not ended exists for
// pending work: it creates it, or creates it again when an earlier one
// ended (failed) while the work is still pending.
func ensureJob(ctx context.Context, js *jobs.Store, kind, id, account string, p backfillParams) error {
	j, err := js.Get(ctx, kind, id)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
	case err != nil:
		return err
	case !j.Ended():
		return nil
	default:
		if err := js.Delete(ctx, kind, id); err != nil {
			return err
		}
	}
	_, err = js.Create(ctx, kind, id, account, p)
	if errors.Is(err, jobs.ErrExists) { // another process created it
		return nil
	}
	return err
}

// pageFunc runs one page of a backfill and reports whether the work is
// done.
type pageFunc func(ctx context.Context) (bool, error)

// runPages runs the pages of run's backfill until page reports it done,
// pausing delay before each page and checkpointing the pages done after
// each (one small write per page of pageSize items). A table or index that went away
// (storage.ErrTableNotFound) ends the job as done: nothing is left to
// build. It returns the pages this run did and whether the work finished
// (false when its table or index went away).
func runPages(ctx context.Context, run *jobs.Run, log *slog.Logger, pageSize int, delay time.Duration, page pageFunc, onPage func()) (int64, bool, error) {
	var c backfillCursor
	if run.Job.Cursor != nil {
		if err := json.Unmarshal(run.Job.Cursor, &c); err != nil {
			return 0, false, err
		}
		log.Info("backfill resumed", "kind", run.Job.Kind, "id", run.Job.ID, "pages_done", c.Pages)
	}
	n := int64(0)
	for {
		if delay > 0 {
			select {
			case <-ctx.Done():
				return n, false, ctx.Err()
			case <-time.After(delay):
			}
		}
		done, err := page(ctx)
		if errors.Is(err, storage.ErrTableNotFound) {
			log.Info("backfill target gone", "kind", run.Job.Kind, "id", run.Job.ID)
			return n, false, nil
		}
		if err != nil {
			return n, false, err
		}
		n++
		c.Pages++
		onPage()
		// The checkpoint also renews the lease and logs the job's progress
		// every few seconds (jobs.Run).
		if err := run.Checkpoint(ctx, c, jobs.Progress{Done: c.Pages * int64(pageSize)}); err != nil || done {
			return n, done, err
		}
	}
}
