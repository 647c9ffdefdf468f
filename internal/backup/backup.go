// Package backup takes on-demand backups of tables and restores them, as
// jobs of internal/jobs, in the portable format of format.go: a backup
// taken on one storage backend restores on any other. See docs/backups.md
// and docs/adr/0013-backups-and-jobs.md.
package backup

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// Job kinds.
const (
	KindBackup  = "backup"
	KindRestore = "restore"
)

// Errors of the service.
var (
	ErrNotFound = errors.New("backup: not found")
	// ErrInUse is Delete's error for a backup still being created.
	ErrInUse = errors.New("backup: in use")
	// ErrRestoring is Delete's error for a backup a restore is reading;
	// it is also an ErrInUse.
	ErrRestoring = fmt.Errorf("%w: being restored", ErrInUse)
)

// checkpointEvery is how many items a run handles between checkpoints.
const checkpointEvery = 1000

// restoreRecordsKept is how long the record of an ended restore is kept
// (for the log of what happened); a backup's record lives as long as the
// backup.
const restoreRecordsKept = 24 * time.Hour

// Params are the parameters of a backup job: what CreateBackup asked for.
type Params struct {
	BackupName string
	BackupArn  string
	TableArn   string
	// Table is the source table's definition at CreateBackup.
	Table     storage.Table
	CreatedAt time.Time
}

// Backup is one backup as the operations report it.
type Backup struct {
	ID     string
	Params Params
	// State is the job's: PENDING and RUNNING are DynamoDB's CREATING,
	// SUCCEEDED is AVAILABLE.
	State     string
	ItemCount int64
	SizeBytes int64
}

// Service creates, lists, deletes and restores backups.
type Service struct {
	store storage.Backend
	jobs  *jobs.Store
	root  string
	log   *slog.Logger
	kick  func()
}

// New returns the service over store, keeping backup files under root.
func New(store storage.Backend, js *jobs.Store, root string, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: store, jobs: js, root: root, log: log, kick: func() {}}
}

// Register adds the backup and restore handlers to r, which the service
// then wakes for new jobs.
func (s *Service) Register(r *jobs.Runner) {
	r.Register(KindBackup, s.runBackup)
	r.Register(KindRestore, s.runRestore)
	r.Expire(KindRestore, restoreRecordsKept)
	r.Register(KindPointInTimeRestore, s.runPointInTimeRestore)
	r.Expire(KindPointInTimeRestore, restoreRecordsKept)
	s.kick = r.Kick
}

// dir is the directory of one backup of account (a storage namespace).
func (s *Service) dir(account, id string) string { return filepath.Join(s.accountDir(account), id) }

// accountDir is the directory of an account's backups: one level per
// segment of its namespace ("111122223333/eu-west-1"), each kept as it is
// when it is made of letters, digits, '-' and '_' and hex-encoded
// otherwise, so no namespace can name a path outside the root.
func (s *Service) accountDir(account string) string {
	parts := []string{s.root}
	for _, seg := range strings.Split(account, "/") {
		if !safeSegment(seg) {
			seg = "x" + hex.EncodeToString([]byte(seg))
		}
		parts = append(parts, seg)
	}
	return filepath.Join(parts...)
}

func safeSegment(seg string) bool {
	if seg == "" {
		return false
	}
	for _, c := range seg {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Create starts a backup of p.Table under id.
func (s *Service) Create(ctx context.Context, account, id string, p Params) (*Backup, error) {
	j, err := s.jobs.Create(ctx, KindBackup, id, account, p)
	if err != nil {
		return nil, err
	}
	s.kick()
	return fromJob(j)
}

func fromJob(j *jobs.Job) (*Backup, error) {
	b := &Backup{ID: j.ID, State: j.State, ItemCount: j.Progress.Done, SizeBytes: j.Progress.Bytes}
	return b, j.DecodeParams(&b.Params)
}

// Get returns a backup of account; ErrNotFound if there is none.
func (s *Service) Get(ctx context.Context, account, id string) (*Backup, error) {
	j, err := s.jobs.Get(ctx, KindBackup, id)
	if errors.Is(err, jobs.ErrNotFound) {
		j, err = s.adopt(ctx, account, id)
	}
	if errors.Is(err, jobs.ErrNotFound) || (err == nil && j.Account != account) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return fromJob(j)
}

// adopt records a finished backup found in the backup root without a
// record (written by another deployment, perhaps on another backend, and
// copied or shared here) so that it can be described and restored.
// ErrNotFound when there is no finished backup id of account.
func (s *Service) adopt(ctx context.Context, account, id string) (*jobs.Job, error) {
	if !validID(id) {
		return nil, jobs.ErrNotFound
	}
	m, err := ReadManifest(s.dir(account, id))
	if err != nil {
		return nil, jobs.ErrNotFound
	}
	p := Params{BackupName: m.BackupName, BackupArn: m.BackupArn, TableArn: m.TableArn, Table: m.Table, CreatedAt: m.CreatedAt}
	j, err := s.jobs.CreateSucceeded(ctx, KindBackup, id, account, p,
		jobs.Progress{Done: m.ItemCount, Total: m.ItemCount, Bytes: m.SizeBytes})
	if errors.Is(err, jobs.ErrExists) {
		return s.jobs.Get(ctx, KindBackup, id)
	}
	return j, err
}

// validID reports whether id has the shape of a backup ID (digits, '-'
// and hex), so it is safe as a directory name.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
			return false
		}
	}
	return true
}

// List returns the backups of account, oldest first, adopting the
// finished backups of the backup root that have no record yet.
func (s *Service) List(ctx context.Context, account string) ([]*Backup, error) {
	js, err := s.jobs.List(ctx, KindBackup)
	if err != nil {
		return nil, err
	}
	if adopted, err := s.adoptAll(ctx, account, js); err != nil {
		return nil, err
	} else if adopted {
		if js, err = s.jobs.List(ctx, KindBackup); err != nil {
			return nil, err
		}
	}
	return jobs.OfAccount(js, account, fromJob)
}

// adoptAll adopts every finished backup of account in the backup root
// that known does not list.
func (s *Service) adoptAll(ctx context.Context, account string, known []*jobs.Job) (bool, error) {
	entries, err := os.ReadDir(s.accountDir(account))
	if err != nil {
		return false, nil // no backups here yet
	}
	have := map[string]bool{}
	for _, j := range known {
		have[j.ID] = true
	}
	adopted := false
	for _, e := range entries {
		if !e.IsDir() || have[e.Name()] {
			continue
		}
		if _, err := s.adopt(ctx, account, e.Name()); err == nil {
			adopted = true
		} else if !errors.Is(err, jobs.ErrNotFound) {
			return false, err
		}
	}
	return adopted, nil
}

// Delete removes a backup and its files. Errors: ErrNotFound, ErrInUse
// while it is being created, ErrRestoring while a restore reads it.
func (s *Service) Delete(ctx context.Context, account, id string) (*Backup, error) {
	b, err := s.Get(ctx, account, id)
	if err != nil {
		return nil, err
	}
	if b.State == jobs.Pending || b.State == jobs.Running {
		return nil, ErrInUse
	}
	if restoring, err := s.restoring(ctx, account, id); err != nil || restoring {
		return nil, cmp.Or(err, ErrRestoring)
	}
	// The manifest goes first, so that neither a failure nor a concurrent
	// List can bring the backup back by adopting its files.
	dir := s.dir(account, id)
	if err := os.Remove(filepath.Join(dir, "manifest.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		s.log.Warn("removing backup files", "backup", id, "error", err)
	}
	if err := s.jobs.Delete(ctx, KindBackup, id); err != nil {
		return nil, err
	}
	return b, nil
}

// restoring reports whether a restore that has not ended reads backup id
// of account.
func (s *Service) restoring(ctx context.Context, account, id string) (bool, error) {
	all, err := s.jobs.List(ctx, KindRestore)
	if err != nil {
		return false, err
	}
	for _, j := range all {
		if j.Ended() {
			continue
		}
		var p restoreParams
		if err := j.DecodeParams(&p); err != nil {
			return false, err
		}
		if p.BackupAccount == account && p.BackupID == id {
			return true, nil
		}
	}
	return false, nil
}

// runBackup writes the backup's files: one snapshot of the table where
// the backend reads one (storage.SnapshotScanner), else one Scan (see
// docs/backups.md). A resumed run starts again from scratch.
func (s *Service) runBackup(ctx context.Context, run *jobs.Run) error {
	var p Params
	if err := run.Job.DecodeParams(&p); err != nil {
		return err
	}
	dir := s.dir(run.Job.Account, run.Job.ID)
	if m, err := ReadManifest(dir); err == nil { // finished before a crash
		return run.Checkpoint(ctx, nil, jobs.Progress{Done: m.ItemCount, Total: m.ItemCount, Bytes: m.SizeBytes})
	}
	m, err := s.writeBackup(ctx, run, dir, &p)
	if err != nil {
		if !jobs.Interrupted(ctx, err) {
			os.RemoveAll(dir)
		}
		return err
	}
	return run.Checkpoint(ctx, nil, jobs.Progress{Done: m.ItemCount, Total: m.ItemCount, Bytes: m.SizeBytes})
}

func (s *Service) writeBackup(ctx context.Context, run *jobs.Run, dir string, p *Params) (*Manifest, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	t, err := s.store.GetTable(ctx, run.Job.Account, p.Table.Name)
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && t.ID != p.Table.ID) {
		return nil, fmt.Errorf("table %s was deleted before its backup was taken", p.Table.Name)
	}
	if err != nil {
		return nil, err
	}
	m := &Manifest{FormatVersion: FormatVersion, BackupArn: p.BackupArn, BackupName: p.BackupName, TableArn: p.TableArn,
		Table: p.Table, CreatedAt: p.CreatedAt}
	w := &fileWriter{dir: dir}
	var ferr error
	err = s.scan(ctx, t, func(row storage.Row) bool {
		if ferr = w.add(row.Item); ferr != nil {
			return false
		}
		m.ItemCount++
		m.SizeBytes += int64(item.Size(row.Item))
		if m.ItemCount%checkpointEvery == 0 {
			ferr = run.Checkpoint(ctx, nil, jobs.Progress{Done: m.ItemCount, Bytes: m.SizeBytes})
		}
		return ferr == nil
	})
	if err == nil {
		err = ferr
	}
	if cerr := w.closeFile(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	m.Files = w.files
	return m, writeManifest(dir, m)
}

// scan visits the items of t for a backup: as of one instant where the
// backend can read a snapshot (storage.SnapshotScanner), else page by page.
func (s *Service) scan(ctx context.Context, t *storage.Table, visit storage.VisitFunc) error {
	if ss, ok := s.store.(storage.SnapshotScanner); ok {
		return ss.ScanSnapshot(ctx, t, visit)
	}
	return s.store.Scan(ctx, t, &storage.ScanRequest{Consistent: true}, visit)
}
