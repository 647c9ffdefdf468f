// Package postgres is the PostgreSQL storage backend. Several extenddb
// processes may share one database: every guarantee rests on PostgreSQL's
// transactions, row locks and unique constraints, never on state inside one
// process.
//
// Physical layout (names derive from immutable IDs, never from user names):
//
//	schema_migrations(version, applied_at)    numbered, re-runnable migrations
//	catalog(account, name, id, version, def)  one row per table, def = JSON of storage.Table
//	t_<table id hex>(h, pk, sk, item, size)   PRIMARY KEY (h, pk, sk)
//	i_<index id hex>(h, ipk, isk, pk, sk, item, size)
//	                                          PRIMARY KEY (h, ipk, isk, pk, sk)
//
// h is item.PartitionHash of the (index) partition key, a uint32 stored in a
// bigint so that its order is the unsigned order. Keys are bytea, which
// PostgreSQL compares as unsigned bytes (memcmp, then length) with no
// collation, so one B-tree serves GetItem, Query (h, pk and a sort-key
// range) and Scan in hash order, with the byte-range semantics of every other
// backend. A missing sort key is stored as the empty bytea.
//
// Writes run at READ COMMITTED. Mutate locks the item row with SELECT ...
// FOR UPDATE; a create is arbitrated by INSERT ... ON CONFLICT DO NOTHING.
// TransactWrite locks its rows in (table ID, pk, sk) order. Deadlocks and
// serialization failures are retried with jittered backoff. See
// docs/adr/0002-postgresql-backend.md.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/extenddb/extenddb/internal/storage"
)

// Options names the database and tunes a Backend. DSN is required; the
// other fields have sensible defaults.
type Options struct {
	// Now is the clock stream records and the change history are stamped
	// with (internal/clock); default time.Now.
	Now func() time.Time
	// DSN names the database: a postgres:// URL or a keyword/value string,
	// as pgx accepts; pool_* parameters tune the pool. Required.
	DSN string
	// Schema is the PostgreSQL schema holding every extenddb object; it is
	// created when missing. "" uses the connection's search_path as it is
	// (normally "public"). Several deployments may share one database with
	// one schema each.
	Schema string
	// MaxConns caps the connection pool; 0 keeps the DSN's pool_max_conns
	// or pgxpool's default (max(4, number of CPUs)).
	MaxConns int32
	// MaxRetries is how many times a write is retried after a deadlock
	// (SQLSTATE 40P01) or serialization failure (40001), with jittered
	// exponential backoff; default 10.
	MaxRetries int
}

// Backend is a storage.Backend on one PostgreSQL database (or schema). It
// is safe for concurrent use, and several Backends, in one process or many,
// may share a database.
type Backend struct {
	pool   *pgxpool.Pool
	opts   Options
	closed atomic.Bool

	// defs caches decoded catalog entries by table ID. An entry is only
	// used after the database confirmed, inside the writing transaction,
	// that its version is still current.
	dmu  sync.Mutex
	defs map[string]*physTable
}

var (
	_ storage.Backend = (*Backend)(nil)
	_ storage.Leaser  = (*Backend)(nil) // several servers may share a database
)

// now reads the backend's clock (Options.Now).
func (b *Backend) now() time.Time {
	if b.opts.Now != nil {
		return b.opts.Now()
	}
	return time.Now()
}

// Open connects to the database opts.DSN names, creates opts.Schema when set and applies the schema migrations the
// database lacks. Concurrent Opens on one database, from any number of
// processes, are safe: migrations run under an advisory lock. Errors: an
// invalid DSN or option, connection failures, migration failures.
func Open(ctx context.Context, opts Options) (*Backend, error) {
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 10
	}
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.Schema != "" {
		if err := ensureSchema(ctx, cfg.ConnConfig, opts.Schema); err != nil {
			return nil, err
		}
		// Sent in the startup message: every connection of the pool uses
		// the schema without an extra round trip.
		cfg.ConnConfig.RuntimeParams["search_path"] = quoteIdent(opts.Schema)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	b := &Backend{pool: pool, opts: opts, defs: map[string]*physTable{}}
	if err := b.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return b, nil
}

// ensureSchema creates schema on a short-lived connection when missing.
func ensureSchema(ctx context.Context, cc *pgx.ConnConfig, schema string) error {
	conn, err := pgx.ConnectConfig(ctx, cc.Copy())
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(schema)); err != nil {
		// Two processes creating the schema at once: one of them loses
		// the race on pg_namespace's unique index; the schema exists.
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23505" {
			return fmt.Errorf("postgres: create schema %s: %w", schema, err)
		}
	}
	return nil
}

// Close closes the pool; later calls of every method return
// storage.ErrClosed. In-flight calls finish first. Close is idempotent.
func (b *Backend) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	b.pool.Close()
	return nil
}

// ErrKeyTooLarge is returned (wrapped) by a write whose encoded keys do not
// fit one B-tree entry: PostgreSQL caps an index entry at 2704 bytes, so the
// partition and sort keys of an item (and, for an index row, the index keys
// too) must total at most about 2,650 bytes unless they compress. DynamoDB
// allows 2,048 + 1,024 bytes. See docs/adr/0002-postgresql-backend.md.
var ErrKeyTooLarge = fmt.Errorf("postgres: %w", storage.ErrKeyTooLarge)

// fnError carries a MutateFunc's or UpdateTable callback's error through
// the retry machinery, which must return it unchanged.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }

// errCreateRace reports that a transaction's create lost to a concurrent
// one; the whole transaction is retried.
var errCreateRace = errors.New("postgres: create raced with another writer")

// retryable reports whether err is a transient conflict worth a retry.
func retryable(err error) bool {
	if errors.Is(err, errCreateRace) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// withConn runs body on a pooled connection, retrying it on a fresh
// transaction after a deadlock, serialization failure or lost create race,
// up to opts.MaxRetries times with jittered exponential backoff. body
// opens its transaction itself; a transaction it leaves open is rolled
// back. A *fnError from body is unwrapped and returned unchanged.
// PoolStat is a snapshot of the connection pool's statistics (connections
// open, idle and in use, acquisitions and their waits), for metrics.
func (b *Backend) PoolStat() *pgxpool.Stat { return b.pool.Stat() }

func (b *Backend) withConn(ctx context.Context, body func(c *pgxpool.Conn) error) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	backoff := 2 * time.Millisecond
	for attempt := 0; ; attempt++ {
		c, err := b.pool.Acquire(ctx)
		if err != nil {
			return mapErr(err)
		}
		err = body(c)
		if c.Conn().PgConn().TxStatus() != 'I' && !c.Conn().IsClosed() {
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if _, rerr := c.Exec(rctx, "ROLLBACK"); rerr != nil {
				c.Conn().Close(rctx)
			}
			cancel()
		}
		c.Release()
		var fe *fnError
		if errors.As(err, &fe) {
			return fe.err
		}
		if !retryable(err) || attempt >= b.opts.MaxRetries {
			if errors.Is(err, errCreateRace) {
				return fmt.Errorf("postgres: gave up after %d lost create races", attempt+1)
			}
			return mapErr(err)
		}
		sleep := backoff/2 + rand.N(backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sleep):
		}
		backoff = min(2*backoff, 200*time.Millisecond)
	}
}

// exec runs statements on c, in order, stopping at the first error.
func exec(ctx context.Context, c *pgxpool.Conn, stmts ...string) error {
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// mapErr turns an undefined-table error into storage.ErrTableNotFound (the
// table was deleted under the caller) and a closed pool into
// storage.ErrClosed; other errors are returned as they are.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" {
		return fmt.Errorf("%w: %v", storage.ErrTableNotFound, err)
	}
	if errors.As(err, &pe) && pe.Code == "54000" && strings.Contains(pe.Message, "index row size") {
		return fmt.Errorf("%w: %v", ErrKeyTooLarge, err)
	}
	if errors.As(err, &pe) {
		// https://www.postgresql.org/docs/current/errcodes-appendix.html
		switch pe.Code {
		case "53100": // disk_full
			return fmt.Errorf("%w: %v", storage.ErrStorageFull, err)
		case "XX001", "XX002": // data_corrupted, index_corrupted
			return fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
		}
	}
	if strings.Contains(err.Error(), "closed pool") { // puddle.ErrClosedPool
		return storage.ErrClosed
	}
	return err
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return pgx.Identifier{s}.Sanitize()
}
