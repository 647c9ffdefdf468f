package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/crashpoint"
	"github.com/extenddb/extenddb/internal/storage"
)

// Jobs that fill a new table (restores from a backup, point in time
// restores, imports) create their record before the table, so that a
// crash between the two leaves a job, which creates the table when it
// runs, and never a table CREATING that no job will finish. See
// docs/adr/0013h-crash-window-and-edges.md.

// FillingUntil is the ActiveAt of a table a job is filling: it stays
// CREATING until the job sets it ACTIVE.
var FillingUntil = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

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
	err = cat.CreateTable(ctx, t)
	if errors.Is(err, storage.ErrTableExists) {
		// Another process may have claimed the job and created the table
		// already: it is ours if it has our table's ID.
		if cur, gerr := cat.GetTable(ctx, t.Account, t.Name); gerr == nil && cur.ID == t.ID {
			err = nil
		}
	}
	if err != nil {
		_ = s.Delete(context.WithoutCancel(ctx), kind, id)
		return nil, err
	}
	return j, nil
}

// fillingTable makes t a table being filled by a job.
func fillingTable(t *storage.Table) {
	t.Status, t.ActiveAt = storage.StatusCreating, FillingUntil
}

// FillingTable returns the table the run fills, whose definition (with
// its ID and Account) is t. A run that has not checkpointed yet creates
// the table when it is missing: its process crashed between the job's
// record and the table (CreateFilling). A missing table after a
// checkpoint, or a table of that name with another ID, was deleted or
// replaced: the error then says so, naming the work ("restore",
// "import") that lost its table.
func (run *Run) FillingTable(ctx context.Context, cat storage.Catalog, t *storage.Table, work string) (*storage.Table, error) {
	cur, err := cat.GetTable(ctx, t.Account, t.Name)
	if errors.Is(err, storage.ErrTableNotFound) && run.Job.Cursor == nil && len(t.KeySchema) > 0 {
		run.r.cfg.Log.Info("creating the table of a job whose process stopped before it", "kind", run.Job.Kind, "id", run.Job.ID, "table", t.Name)
		def := *t
		fillingTable(&def)
		if err = cat.CreateTable(ctx, &def); err == nil || errors.Is(err, storage.ErrTableExists) {
			cur, err = cat.GetTable(ctx, t.Account, t.Name)
		}
	}
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && cur.ID != t.ID) {
		return nil, fmt.Errorf("table %s was deleted during its %s", t.Name, work)
	}
	return cur, err
}
