package backup

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// A restore's job record is made before its table. A process that stops
// between the two leaves the record alone (made here directly, as the
// crash would leave it): the job creates the table when it runs and fills
// it, so the table is neither CREATING forever nor ACTIVE incomplete. It
// waits for the runner's TableGrace first, as the request that made the
// job may still be creating the table.
func TestRestoreJobWithoutItsTableCreatesIt(t *testing.T) {
	f := newFixtureWith(t, jobs.Config{TableGrace: 300 * time.Millisecond})
	src := f.table(t, "src", 120)
	b := f.backup(t, src)
	target := b.Params.Table
	target.Name, target.ID, target.Restore = "dst", uuid.NewString(), &storage.RestoreSummary{InProgress: true}
	p := restoreParams{BackupAccount: src.Account, BackupID: b.ID, TableName: "dst", TableID: target.ID, Table: &target}
	created := time.Now()
	if _, err := f.jobs.Create(context.Background(), KindRestore, target.ID, src.Account, p); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := f.store.GetTable(context.Background(), src.Account, "dst"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("table of a job younger than the grace: %v, want none yet", err)
	}
	j := f.wait(t, KindRestore, target.ID)
	if j.State != jobs.Succeeded || j.Progress.Done != 120 {
		t.Fatalf("restore job whose table was never created: %+v", j)
	}
	if waited := time.Since(created); waited < 300*time.Millisecond {
		t.Fatalf("the job created its table after %v, within the grace", waited)
	}
	got, err := f.store.GetTable(context.Background(), src.Account, "dst")
	if err != nil || got.ID != target.ID || got.Status != storage.StatusActive || got.Restore.InProgress {
		t.Fatalf("restored table: %+v, %v", got, err)
	}
	if n := f.count(t, got); n != 120 {
		t.Fatalf("restored table holds %d items, want 120", n)
	}
}

// A restore to a name another table holds answers storage.ErrTableExists
// and leaves no job behind: its record, made first, is deleted.
func TestRestoreToTakenNameLeavesNoJob(t *testing.T) {
	f := newFixture(t)
	src := f.table(t, "src", 3)
	b := f.backup(t, src)
	target := b.Params.Table
	target.Name, target.ID = "src", uuid.NewString()
	if err := f.svc.Restore(context.Background(), src.Account, b, &target); !errors.Is(err, storage.ErrTableExists) {
		t.Fatalf("restore to a taken name: %v, want storage.ErrTableExists", err)
	}
	if _, err := f.jobs.Get(context.Background(), KindRestore, target.ID); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("job of the refused restore: %v, want it deleted", err)
	}
	if got, err := f.store.GetTable(context.Background(), src.Account, "src"); err != nil || got.ID != src.ID {
		t.Fatalf("the table holding the name: %+v, %v", got, err)
	}
}

// A restore job that finds another table under its table's name (taken
// between the crash and the job's run) fails and leaves that table alone.
func TestRestoreJobWhoseTableWasReplacedFails(t *testing.T) {
	f := newFixtureWith(t, jobs.Config{TableGrace: time.Millisecond})
	src := f.table(t, "src", 3)
	b := f.backup(t, src)
	target := b.Params.Table
	target.Name, target.ID = "src", uuid.NewString() // the name src holds, with another ID
	p := restoreParams{BackupAccount: src.Account, BackupID: b.ID, TableName: "src", TableID: target.ID, Table: &target}
	if _, err := f.jobs.Create(context.Background(), KindRestore, target.ID, src.Account, p); err != nil {
		t.Fatal(err)
	}
	j := f.wait(t, KindRestore, target.ID)
	if j.State != jobs.Failed || j.Error != "table src was deleted during its restore" {
		t.Fatalf("restore job whose name is taken: %+v", j)
	}
	if got, err := f.store.GetTable(context.Background(), src.Account, "src"); err != nil || got.ID != src.ID {
		t.Fatalf("the table holding the name: %+v, %v", got, err)
	}
}

// count counts t's items with a consistent Scan.
func (f *fixture) count(tb testing.TB, t *storage.Table) int {
	tb.Helper()
	n := 0
	err := f.store.Scan(context.Background(), t, &storage.ScanRequest{Consistent: true}, func(storage.Row) bool { n++; return true })
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
