package backup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// fixture is a service over a real SQLite data file with its job runner
// running.
type fixture struct {
	store storage.Backend
	jobs  *jobs.Store
	svc   *Service
	root  string
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	return newFixtureWith(tb, jobs.Config{})
}

// newFixtureWith is newFixture with the runner's configuration cfg
// (its Exclusive and Poll set here).
func newFixtureWith(tb testing.TB, cfg jobs.Config) *fixture {
	tb.Helper()
	dir := tb.TempDir()
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "data.db")})
	if err != nil {
		tb.Fatal(err)
	}
	js := jobs.NewStore(b)
	f := &fixture{store: b, jobs: js, root: filepath.Join(dir, "backups")}
	f.svc = New(b, js, f.root, nil)
	cfg.Exclusive, cfg.Poll = true, 5*time.Millisecond
	r := jobs.NewRunner(js, cfg)
	f.svc.Register(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done; b.Close() })
	return f
}

// table creates a table keyed by the string pk with n items.
func (f *fixture) table(tb testing.TB, name string, n int) *storage.Table {
	tb.Helper()
	ctx := context.Background()
	t := &storage.Table{Account: storage.DefaultAccount, Name: name, ID: uuid.NewString(), Status: storage.StatusActive,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST", CreatedAt: time.Now()}
	if err := f.store.CreateTable(ctx, t); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		it := item.Item{"pk": item.AttributeValue{Type: item.TypeS, S: fmt.Sprintf("k%06d", i)},
			"v": item.AttributeValue{Type: item.TypeN, S: fmt.Sprint(i)}}
		if err := f.store.Mutate(ctx, t, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			tb.Fatal(err)
		}
	}
	return t
}

// wait polls the job until it ends and returns it.
func (f *fixture) wait(tb testing.TB, kind, id string) *jobs.Job {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		j, err := f.jobs.Get(context.Background(), kind, id)
		if err != nil {
			tb.Fatal(err)
		}
		if j.Ended() {
			return j
		}
		if time.Now().After(deadline) {
			tb.Fatalf("job %s/%s still %s", kind, id, j.State)
		}
		time.Sleep(time.Millisecond)
	}
}

// backup takes a backup of t and waits for it.
func (f *fixture) backup(tb testing.TB, t *storage.Table) *Backup {
	tb.Helper()
	id := uuid.NewString()
	if _, err := f.svc.Create(context.Background(), t.Account, id, Params{BackupName: "b", BackupArn: "arn:" + id, Table: *t, CreatedAt: time.Now()}); err != nil {
		tb.Fatal(err)
	}
	if j := f.wait(tb, KindBackup, id); j.State != jobs.Succeeded {
		tb.Fatalf("backup %s: %s", j.State, j.Error)
	}
	b, err := f.svc.Get(context.Background(), t.Account, id)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// restore restores b into a new table name and waits for the job.
func (f *fixture) restore(tb testing.TB, b *Backup, name string) (*storage.Table, *jobs.Job) {
	tb.Helper()
	t := b.Params.Table
	t.Name, t.ID, t.Restore = name, uuid.NewString(), &storage.RestoreSummary{InProgress: true}
	if err := f.svc.Restore(context.Background(), t.Account, b, &t); err != nil {
		tb.Fatal(err)
	}
	return &t, f.wait(tb, KindRestore, t.ID)
}

// A restore whose backup file is damaged fails, and the table it was
// filling is deleted rather than left CREATING or made ACTIVE half full.
func TestDamagedBackupFailsRestoreAndDropsTable(t *testing.T) {
	f := newFixture(t)
	src := f.table(t, "src", 300)
	b := f.backup(t, src)
	if b.ItemCount != 300 {
		t.Fatalf("backup holds %d items, want 300", b.ItemCount)
	}
	dt, j := f.restore(t, b, "good")
	if j.State != jobs.Succeeded || j.Progress.Done != 300 {
		t.Fatalf("restore: %+v", j)
	}
	if got, err := f.store.GetTable(context.Background(), dt.Account, "good"); err != nil || got.Status != storage.StatusActive || got.Restore.InProgress {
		t.Fatalf("restored table: %+v, %v", got, err)
	}

	data := filepath.Join(f.root, src.Account, b.ID, "data", "00000.json.gz")
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	if err := os.WriteFile(data, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, j = f.restore(t, b, "bad")
	if j.State != jobs.Failed || j.Error == "" {
		t.Fatalf("restore of a damaged backup: %+v", j)
	}
	if _, err := f.store.GetTable(context.Background(), src.Account, "bad"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("table of the failed restore: %v, want it deleted", err)
	}
}

// BenchmarkBackupRestore takes a backup of a 20,000-item table and
// restores it; it reports items per second of each. The sub-benchmarks
// restore with one write in flight (the baseline) and with the default.
func BenchmarkBackupRestore(b *testing.B) {
	for _, writers := range []int{1, loadWriters} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			defer func(w int) { loadWriters = w }(loadWriters)
			loadWriters = writers
			benchmarkBackupRestore(b)
		})
	}
}

func benchmarkBackupRestore(b *testing.B) {
	const n = 20_000
	f := newFixture(b)
	src := f.table(b, "src", n)
	var backupTime, restoreTime time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		bk := f.backup(b, src)
		backupTime += time.Since(start)
		start = time.Now()
		if _, j := f.restore(b, bk, fmt.Sprintf("dst%d", i)); j.State != jobs.Succeeded {
			b.Fatalf("restore: %+v", j)
		}
		restoreTime += time.Since(start)
		i++
	}
	b.ReportMetric(float64(n*i)/backupTime.Seconds(), "backup-items/s")
	b.ReportMetric(float64(n*i)/restoreTime.Seconds(), "restore-items/s")
}
