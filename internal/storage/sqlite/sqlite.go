// Package sqlite is the SQLite storage backend: one database file in WAL
// mode, one writer connection on which queued writes are group-committed
// by the goroutine of the first of them, and a pool of read-only
// connections that read concurrently with it.
//
// Physical layout (names derive from immutable IDs, never from user names):
//
//	catalog(account, name, id, version, def)   one row per table, def = JSON of storage.Table
//	table_stats(id, item_count, size_bytes)    maintained by every committed write
//	t_<table id hex>(h, pk, sk, item, size)    PRIMARY KEY (h, pk, sk)
//	i_<index id hex>(h, ipk, isk, pk, sk, item, size)
//	                                           PRIMARY KEY (h, ipk, isk, pk, sk)
//
// Item and index tables are rowid tables (see sqlTypes); those created by
// earlier versions are WITHOUT ROWID and are read and written the same way.
//
// h is item.PartitionHash of the (index) partition key, so one B-tree serves
// GetItem, Query (h, pk and a sort-key range) and Scan in hash order. A
// missing sort key is stored as the empty blob.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/watchdog"
)

// Options names the database file and tunes a Backend. The zero value
// is an ephemeral database with the durable defaults.
type Options struct {
	// Path is the database file, created when missing. "" or ":memory:"
	// gives an ephemeral database (see Open).
	Path string
	// Synchronous is SQLite's synchronous mode: "FULL" (default) fsyncs the
	// WAL at every group commit, so an acknowledged write survives a process
	// kill and a power loss; "NORMAL" survives a process kill but may lose
	// the most recent commits on power loss; "OFF" leaves flushing to the
	// operating system. See docs/adr/0001-sqlite-durability-and-group-commit.md.
	Synchronous string
	// MaxBatch caps the write requests one group commit applies; default 256.
	MaxBatch int
	// ReadConns is how many idle read-only connections are kept open;
	// default max(4, GOMAXPROCS). More are opened on demand.
	ReadConns int
	// CacheSizeKiB is each connection's page cache in KiB; 0 keeps SQLite's
	// default (2 MiB).
	CacheSizeKiB int
	// PageSize is the page size in bytes given to a new database file: a
	// power of two from 512 to 65536; 0 keeps SQLite's default, 4096. An
	// existing file keeps the page size it was created with. See
	// docs/adr/0018c-sqlite-write-path.md for the measurements.
	PageSize int
	// MmapSizeBytes is how many bytes of the database file each
	// connection reads through a memory map (SQLite's mmap_size); 0 reads
	// with read(2) system calls. The write-ahead log is not mapped.
	MmapSizeBytes int64
	// MaxReadConns bounds the read-only connections open at once (each
	// holds three file descriptors); a read past it waits for one.
	// Default max(16, 4*ReadConns).
	MaxReadConns int
	// QuickCheckMaxBytes: at start, a database file of at most this size
	// is checked with SQLite's PRAGMA quick_check, and a damaged one is
	// refused. Default 1 GiB; negative never checks.
	QuickCheckMaxBytes int64
	// Guard, when set, is called with the directory of an in-memory
	// database right after it is created, to arrange its removal should
	// this process die without Close (see internal/watchdog). An error
	// fails Open.
	Guard func(dir string) error
	// OnCommit, when set, is called by the writer after every group commit
	// with the number of write requests it applied and the time its COMMIT
	// took (the WAL fsync, with Synchronous FULL). It must not block.
	OnCommit func(writes int, commit time.Duration)
	// Now is the clock stream records and the change history are stamped
	// with (internal/clock); default time.Now.
	Now func() time.Time
}

// Backend is a storage.Backend on one SQLite database. It is safe for
// concurrent use.
type Backend struct {
	path    string
	tempDir string   // removed by Close for an in-memory backend
	lock    *os.File // holds the database's exclusive lock until Close

	wdb   *sql.DB
	wconn *sql.Conn // the writer's connection, closed last
	rdb   *sql.DB
	w     *writer // used only by the goroutine leading a group commit

	closed  atomic.Bool // Close has begun; set under wmu
	wmu     sync.Mutex  // guards pending and leading
	pending []*writeReq // queued writes, oldest first (see submit)
	leading bool        // a goroutine is leading a group commit
	idle    sync.Cond   // on wmu: broadcast when leading ends

	rmu    sync.Mutex
	rstmts map[string]*sql.Stmt // read statements by SQL text

	commits atomic.Int64 // group commits so far, for benchmarks
}

var _ storage.Backend = (*Backend)(nil)

// Open opens (creating if needed) the database at opts.Path and starts its
// writer. Path "" or ":memory:" gives an ephemeral database: a file in a
// fresh directory under /dev/shm (or the system temporary directory), with
// synchronous OFF, removed by Close. Errors come from SQLite or from an
// invalid option.
// ctx is not used: opening a file does not wait on the network; it is
// there so every backend opens the same way.
func Open(_ context.Context, opts Options) (*Backend, error) {
	path := opts.Path
	syncMode := strings.ToUpper(opts.Synchronous)
	switch syncMode {
	case "":
		syncMode = "FULL"
	case "FULL", "NORMAL", "OFF", "EXTRA":
	default:
		return nil, fmt.Errorf("sqlite: invalid Synchronous %q", opts.Synchronous)
	}
	if err := checkPageSize(opts.PageSize); err != nil {
		return nil, err
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 256
	}
	if opts.ReadConns <= 0 {
		opts.ReadConns = max(4, runtime.GOMAXPROCS(0))
	}
	if opts.MaxReadConns <= 0 {
		opts.MaxReadConns = max(16, 4*opts.ReadConns)
	}
	if opts.QuickCheckMaxBytes == 0 {
		opts.QuickCheckMaxBytes = 1 << 30
	}
	b := &Backend{path: path, rstmts: map[string]*sql.Stmt{}}
	b.idle.L = &b.wmu
	if path == "" || path == ":memory:" {
		base := os.TempDir()
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			base = "/dev/shm"
		}
		sweepMemoryDirs(base)
		dir, err := os.MkdirTemp(base, watchdog.DirPrefix)
		if err != nil {
			return nil, fmt.Errorf("sqlite: in-memory database: %w", err)
		}
		b.tempDir = dir
		b.path = filepath.Join(dir, memoryDBName)
		syncMode = "OFF"
		if opts.Guard != nil {
			if err := opts.Guard(dir); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("sqlite: in-memory database: %w", err)
			}
		}
	}
	lock := lockDatabase
	if b.tempDir != "" {
		lock = lockNewDatabase
	}
	lockFile, err := lock(b.path)
	if err != nil {
		if b.tempDir != "" {
			os.RemoveAll(b.tempDir)
		}
		return nil, err
	}
	b.lock = lockFile
	if err := b.open(syncMode, opts); err != nil {
		b.closeDBs()
		return nil, err
	}
	return b, nil
}

// MemoryDir is the directory of an in-memory database (Options.Path ""),
// which Close and the watchdog (Options.Guard) remove with everything in
// it; "" for a database file.
func (b *Backend) MemoryDir() string { return b.tempDir }

func dsn(path string, params string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(path) + "?" + params
}

func (b *Backend) open(syncMode string, opts Options) error {
	if err := initPageSize(b.path, opts.PageSize); err != nil {
		return err
	}
	pragmas := connPragmas(opts)
	b.wdb = openDB(dsn(b.path, "_busy_timeout=10000&_journal_mode=WAL&_synchronous="+syncMode), pragmas)
	b.wdb.SetMaxOpenConns(1)
	b.wdb.SetMaxIdleConns(1)
	b.wdb.SetConnMaxLifetime(0)
	ctx := context.Background()
	conn, err := b.wdb.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", b.path, err)
	}
	b.wconn = conn
	wpragmas := []string{"PRAGMA foreign_keys=OFF"}
	if opts.CacheSizeKiB > 0 {
		wpragmas = append(wpragmas, fmt.Sprintf("PRAGMA cache_size=-%d", opts.CacheSizeKiB))
	}
	for _, p := range wpragmas {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("sqlite: %s: %w", p, err)
		}
	}
	if err := quickCheck(ctx, conn, b.path, opts.QuickCheckMaxBytes); err != nil {
		return err
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("sqlite: cannot enable WAL on %s (mode %q): %v", b.path, mode, err)
	}
	if err := migrate(ctx, conn); err != nil {
		return err
	}
	if err := ensureIndexStats(ctx, conn); err != nil {
		return err
	}

	rparams := "_busy_timeout=10000&_query_only=1"
	if opts.CacheSizeKiB > 0 {
		rparams += fmt.Sprintf("&_cache_size=-%d", opts.CacheSizeKiB)
	}
	b.rdb = openDB(dsn(b.path, rparams), pragmas)
	b.rdb.SetMaxOpenConns(opts.MaxReadConns)
	b.rdb.SetMaxIdleConns(opts.ReadConns)
	b.rdb.SetConnMaxIdleTime(time.Minute)
	b.rdb.SetConnMaxLifetime(0)
	if err := b.rdb.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: open reader %s: %w", b.path, err)
	}

	w := &writer{b: b, conn: conn, maxBatch: opts.MaxBatch, onCommit: opts.OnCommit, now: opts.Now}
	if w.now == nil {
		w.now = time.Now
	}
	w.reset()
	b.w = w
	return nil
}

// Close lets queued writes finish, stops the writer and closes the
// database; later calls return storage.ErrClosed from every method. Close
// itself is idempotent.
func (b *Backend) Close() error {
	b.wmu.Lock()
	if b.closed.Load() {
		b.wmu.Unlock()
		return nil
	}
	b.closed.Store(true)
	for b.leading {
		b.idle.Wait()
	}
	b.wmu.Unlock()
	if b.w != nil {
		for _, s := range b.w.stmts {
			s.Close()
		}
	}
	return b.closeDBs()
}

func (b *Backend) closeDBs() error {
	var errs []error
	b.rmu.Lock()
	for k, s := range b.rstmts {
		s.Close()
		delete(b.rstmts, k)
	}
	b.rmu.Unlock()
	if b.rdb != nil {
		errs = append(errs, b.rdb.Close())
	}
	if b.wconn != nil {
		// Closed after the readers: the last connection checkpoints the
		// WAL into the database file and removes it.
		errs = append(errs, b.wconn.Close())
	}
	if b.wdb != nil {
		errs = append(errs, b.wdb.Close())
	}
	if b.tempDir != "" {
		errs = append(errs, os.RemoveAll(b.tempDir))
	}
	if b.lock != nil {
		errs = append(errs, b.lock.Close())
		b.lock = nil
	}
	return errors.Join(errs...)
}

// readStmt returns the cached read statement for query.
func (b *Backend) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	b.rmu.Lock()
	defer b.rmu.Unlock()
	if s, ok := b.rstmts[query]; ok {
		return s, nil
	}
	s, err := b.rdb.PrepareContext(ctx, query)
	if err != nil {
		return nil, mapErr(err)
	}
	b.rstmts[query] = s
	return s, nil
}

// queryRows runs the read statement query with args and returns what scan
// makes of each row. Errors: storage.ErrClosed, scan's, SQLite's (mapErr).
func queryRows[T any](ctx context.Context, b *Backend, query string, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	if b.isClosed() {
		return nil, storage.ErrClosed
	}
	s, err := b.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err())
}

// execCount runs a write statement on w and returns how many rows it
// changed.
func (w *writer) execCount(query string, args ...any) (int64, error) {
	res, err := w.exec(query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// scanString scans a row of one text column.
func scanString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

// forgetReadStmts closes the cached read statements that name any of the
// physical tables.
func (b *Backend) forgetReadStmts(names []string) {
	b.rmu.Lock()
	defer b.rmu.Unlock()
	closeStmtsNaming(b.rstmts, names)
}

// closeStmtsNaming closes and removes the statements of stmts, by SQL
// text, that name any of the physical tables names (every statement puts
// a space after a table name).
func closeStmtsNaming(stmts map[string]*sql.Stmt, names []string) {
	for q, s := range stmts {
		for _, n := range names {
			if strings.Contains(q, n+" ") {
				s.Close()
				delete(stmts, q)
				break
			}
		}
	}
}

// isClosed reports whether Close has begun.
func (b *Backend) isClosed() bool { return b.closed.Load() }

// mapErr turns SQLite's missing-table error into storage.ErrTableNotFound
// (the table was deleted under the caller) and a closed pool into
// storage.ErrClosed.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if errors.As(err, &se) && strings.Contains(se.Error(), "no such table") {
		return fmt.Errorf("%w: %v", storage.ErrTableNotFound, err)
	}
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrFull:
			return fmt.Errorf("%w: %v", storage.ErrStorageFull, err)
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
		}
	}
	if strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("%w: %v", storage.ErrTableNotFound, err)
	}
	if errors.Is(err, sql.ErrConnDone) || strings.Contains(err.Error(), "database is closed") {
		return storage.ErrClosed
	}
	return err
}
