package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/extenddb/extenddb/internal/crashpoint"
	"github.com/extenddb/extenddb/internal/storage"
)

// Jobs that fill a new table (restores from a backup, point in time
// restores, imports) create their record before the table, so that a
// crash between the two leaves a job, which creates the table when it
// runs, and never a table CREATING that no job will finish. See
// docs/adr/0013h-crash-window-and-edges.md.

// errRetryLater ends a run that cannot start yet: the job stays as it is
// and runs again at a later pass of the runner.
var errRetryLater = errors.New("jobs: not ready, retried later")

// CrashBeforeTable is the crashpoint between the record of a job that
// fills a table and the table's creation.
const CrashBeforeTable = "job-before-table"

// CreateFilling stores a new PENDING job whose work fills table t, then
// creates t in the catalog, CREATING (t's Account, Status and ActiveAt
// are set here). When the table cannot be created the job is deleted.
// Errors: storage.ErrTableExists, ErrExists, backend errors.
func (s *Store) CreateFilling(ctx context.Context, cat storage.Catalog, kind, id string, params any, t *storage.Table) (*Job, error) {
	fillingTable(t)
	j, err := s.Create(ctx, kind, id, t.Account, params)
	if err != nil {
		return nil, err
	}
	crashpoint.Reach(CrashBeforeTable)
	if err := createOwn(ctx, cat, t); err != nil {
		_ = s.Delete(context.WithoutCancel(ctx), kind, id)
		return nil, err
	}
	return j, nil
}

// createOwn creates t. The job's runner (FillingTable) and the request
// that made the job (CreateFilling) may both create it, in one process or
// two: a failure is no failure when the table then holds t's ID (the
// backend may report the clash on the name, storage.ErrTableExists, or on
// the ID).
func createOwn(ctx context.Context, cat storage.Catalog, t *storage.Table) error {
	err := cat.CreateTable(ctx, t)
	if err != nil {
		if cur, gerr := cat.GetTable(ctx, t.Account, t.Name); gerr == nil && cur.ID == t.ID {
			return nil
		}
	}
	return err
}

// fillingTable makes t a table being filled by a job (storage.Table.Filling).
func fillingTable(t *storage.Table) {
	t.Status, t.ActiveAt = storage.StatusCreating, storage.FillingUntil
}

// FillingTable returns the table the run fills, whose definition (with
// its ID and Account) is t. A run that has not checkpointed yet creates
// the table when it is missing and the job's record is older than the
// runner's TableGrace: its process crashed between the job's record and
// the table (CreateFilling); a younger job runs again later. A missing table after a
// checkpoint, or a table of that name with another ID, was deleted or
// replaced: the error then says so, naming the work ("restore",
// "import") that lost its table.
func (run *Run) FillingTable(ctx context.Context, cat storage.Catalog, t *storage.Table, work string) (*storage.Table, error) {
	cur, err := cat.GetTable(ctx, t.Account, t.Name)
	if errors.Is(err, storage.ErrTableNotFound) && run.Job.Cursor == nil && len(t.KeySchema) > 0 {
		if run.r.store.now().Sub(run.Job.CreatedAt) < run.r.cfg.TableGrace {
			return nil, fmt.Errorf("%w: table %s is not created yet", errRetryLater, t.Name)
		}
		run.r.cfg.Log.Info("creating the table of a job whose process stopped before it", "kind", run.Job.Kind, "id", run.Job.ID, "table", t.Name)
		def := *t
		fillingTable(&def)
		if err = createOwn(ctx, cat, &def); err == nil || errors.Is(err, storage.ErrTableExists) {
			cur, err = cat.GetTable(ctx, t.Account, t.Name)
		}
	}
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && cur.ID != t.ID) {
		return nil, fmt.Errorf("table %s was deleted during its %s", t.Name, work)
	}
	return cur, err
}

// Fill runs fill, which writes the items of t (the table the run fills,
// from FillingTable), then makes t ACTIVE in one catalog change, clearing
// its RestoreSummary's RestoreInProgress. When fill or that change fails,
// other than because the run was interrupted (Interrupted), t is deleted:
// a table a job fills is never ACTIVE incomplete. A resumed run first
// waits for the writes of stopped processes to be completed (settle). The
// error is fill's, the catalog's, or the interruption of settle's wait.
func (run *Run) Fill(ctx context.Context, cat storage.Catalog, t *storage.Table, fill func() error) error {
	if err := run.settle(ctx, cat); err != nil {
		return err
	}
	err := fill()
	if err == nil {
		_, err = cat.UpdateTable(ctx, t.Account, t.Name, func(cur *storage.Table) error {
			if cur.ID != t.ID {
				return storage.ErrTableNotFound
			}
			cur.Status, cur.ActiveAt = storage.StatusActive, cur.CreatedAt
			if cur.Restore != nil {
				cur.Restore.InProgress = false
			}
			return nil
		})
	}
	if err != nil && !Interrupted(ctx, err) {
		run.dropFilled(cat, t)
	}
	return err
}

// dropFilled deletes t, the table of a job that failed, unless another
// table took its name meanwhile.
func (run *Run) dropFilled(cat storage.Catalog, t *storage.Table) {
	ctx := context.Background()
	cur, err := cat.GetTable(ctx, t.Account, t.Name)
	if err == nil && cur.ID == t.ID {
		err = cat.DeleteTable(ctx, t.Account, t.Name)
	}
	if err != nil && !errors.Is(err, storage.ErrTableNotFound) {
		run.r.cfg.Log.Error("deleting the table of a failed job", "kind", run.Job.Kind, "id", run.Job.ID, "table", t.Name, "error", err)
	}
}

// Interrupted reports whether a run's error means that the process is
// stopping or lost the job, which then resumes later, rather than that
// the job failed.
func Interrupted(ctx context.Context, err error) bool {
	return errors.Is(err, ErrLeaseLost) || errors.Is(err, storage.ErrClosed) || ctx.Err() != nil
}

// settle makes a resumed run (Run.Resumed) wait, before its first write,
// until the writes that processes now stopped left half done are
// completed, when cat is a storage.WriterSettler (Cassandra): a write of
// the stopped run that changed an index key leaves its old index row
// until its replay, which the resumed run's writes cannot do in its stead
// (docs/adr/0018j-cassandra-fills-rewrite-index-rows.md). Cost: up to one
// frontend lease and a recovery pass. A first run, or another backend,
// does not wait. A wait that fails other than by interruption (a stopped
// process whose writes cannot be replayed, past the backend's bound) is
// logged and the fill goes on: such a row then outlasts ACTIVE until the
// replay, as it would without the wait, and the restore is not held up
// by a fault it cannot mend.
func (run *Run) settle(ctx context.Context, cat storage.Catalog) error {
	ws, ok := cat.(storage.WriterSettler)
	if !ok || !run.Resumed() {
		return nil
	}
	err := ws.SettleWriters(ctx)
	if err != nil && !Interrupted(ctx, err) {
		run.r.cfg.Log.Warn("resumed fill goes on before the writes of stopped processes are recovered",
			"kind", run.Job.Kind, "id", run.Job.ID, "error", err)
		return nil
	}
	return err
}
