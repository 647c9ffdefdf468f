package backup

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// runner starts a job runner of svc's jobs and returns its stop function.
func runner(svc *Service, js *jobs.Store) (stop func()) {
	r := jobs.NewRunner(js, jobs.Config{Exclusive: true, Poll: 5 * time.Millisecond})
	svc.Register(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	return func() { cancel(); <-done }
}

// A backup that a restore is reading cannot be deleted until the restore
// ends: DeleteBackup is then BackupInUseException, "The backup is either
// being created, deleted or restored to a table"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteBackup.html#API_DeleteBackup_Errors),
// and the restore completes whole. The restore is held PENDING by
// stopping the job runner before it starts.
func TestDeleteBackupWhileRestoring(t *testing.T) {
	dir := t.TempDir()
	store, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "data.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	js := jobs.NewStore(store)
	f := &fixture{store: store, jobs: js, root: filepath.Join(dir, "backups")}
	f.svc = New(store, js, f.root, nil)
	stop := runner(f.svc, js)
	src := f.table(t, "src", 300)
	b := f.backup(t, src)
	stop()

	ctx := context.Background()
	target := b.Params.Table
	target.Name, target.ID, target.Restore = "restored", uuid.NewString(), &storage.RestoreSummary{InProgress: true}
	if err := f.svc.Restore(ctx, src.Account, b, &target); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Delete(ctx, src.Account, b.ID); !errors.Is(err, ErrInUse) {
		t.Fatalf("Delete of a backup being restored = %v, want ErrInUse", err)
	}

	defer runner(f.svc, js)()
	if j := f.wait(t, KindRestore, target.ID); j.State != jobs.Succeeded || j.Progress.Done != 300 {
		t.Fatalf("restore: %s %+v %s", j.State, j.Progress, j.Error)
	}
	if _, err := f.svc.Delete(ctx, src.Account, b.ID); err != nil {
		t.Fatalf("Delete once the restore ended = %v", err)
	}
}
