package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/extenddb/extenddb/internal/storage"
)

// migrations are the numbered schema changes of the database, applied in
// order, each in its own transaction together with its schema_migrations
// row. A migration is never edited once released: changes are new entries.
// Every statement is also safe to re-run (IF NOT EXISTS).
var migrations = []string{
	1: `
CREATE TABLE IF NOT EXISTS catalog (
	account text   COLLATE "C" NOT NULL,
	name    text   COLLATE "C" NOT NULL,
	id      text   COLLATE "C" NOT NULL,
	version bigint NOT NULL,
	def     jsonb  NOT NULL,
	PRIMARY KEY (account, name)
);
CREATE UNIQUE INDEX IF NOT EXISTS catalog_id ON catalog (id);
`,
	2: `
CREATE TABLE IF NOT EXISTS ttl_rows (
	tid       text   COLLATE "C" NOT NULL,
	expire_at bigint NOT NULL,
	pk        bytea  NOT NULL,
	sk        bytea  NOT NULL DEFAULT '',
	PRIMARY KEY (tid, expire_at, pk, sk)
);
CREATE TABLE IF NOT EXISTS stream_seqs (
	tid text   COLLATE "C" NOT NULL PRIMARY KEY,
	seq bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS stream_records (
	tid     text   COLLATE "C" NOT NULL,
	label   text   COLLATE "C" NOT NULL,
	seq     bigint NOT NULL,
	created bigint NOT NULL,
	rec     bytea  NOT NULL,
	PRIMARY KEY (tid, label, seq)
);
CREATE INDEX IF NOT EXISTS stream_records_created ON stream_records (created);
CREATE TABLE IF NOT EXISTS stream_trims (
	tid   text   COLLATE "C" NOT NULL,
	label text   COLLATE "C" NOT NULL,
	upto  bigint NOT NULL,
	PRIMARY KEY (tid, label)
);
CREATE TABLE IF NOT EXISTS leases (
	name       text        COLLATE "C" NOT NULL PRIMARY KEY,
	owner      text        NOT NULL,
	expires_at timestamptz NOT NULL
);
`,
	3: `
CREATE TABLE IF NOT EXISTS tx_tokens (
	account      text   COLLATE "C" NOT NULL,
	token        text   COLLATE "C" NOT NULL,
	request_hash bytea  NOT NULL,
	claimed_at   bigint NOT NULL,
	completed_at bigint,
	expires_at   bigint NOT NULL,
	result       bytea,
	PRIMARY KEY (account, token)
);
CREATE INDEX IF NOT EXISTS tx_tokens_expires ON tx_tokens (expires_at);
`,
	4: `
CREATE TABLE IF NOT EXISTS jobs (
	kind    text   COLLATE "C" NOT NULL,
	id      text   COLLATE "C" NOT NULL,
	version bigint NOT NULL,
	body    bytea  NOT NULL,
	PRIMARY KEY (kind, id)
);
`,
}

// migrationLockClass is the first key of the advisory lock that serialises
// migrators; the second is a hash of the schema, so that deployments in
// different schemas of one database do not wait for each other.
const migrationLockClass = 0x65787464 // "extd"

// migrate applies the migrations the database lacks. It holds a
// session-level advisory lock meanwhile, so concurrent Opens from several
// processes apply each migration once. Errors: a database whose schema is
// newer than this build, SQL errors.
func (b *Backend) migrate(ctx context.Context) (err error) {
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	defer c.Release()
	const lockKey = "hashtext(coalesce(current_schema(), ''))"
	if _, err := c.Exec(ctx, fmt.Sprintf("SELECT pg_advisory_lock(%d, %s)", migrationLockClass, lockKey)); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, uerr := c.Exec(uctx, fmt.Sprintf("SELECT pg_advisory_unlock(%d, %s)", migrationLockClass, lockKey)); uerr != nil {
			// Closing the session releases the lock too.
			c.Conn().Close(uctx)
		}
	}()
	if _, err := c.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer     NOT NULL PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
		return fmt.Errorf("postgres: schema_migrations: %w", err)
	}
	var newest int
	if err := c.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&newest); err != nil {
		return fmt.Errorf("postgres: schema_migrations: %w", err)
	}
	if newest >= len(migrations) {
		return fmt.Errorf("postgres: the database schema is at version %d, newer than this build knows (%d)", newest, len(migrations)-1)
	}
	for v := newest + 1; v < len(migrations); v++ {
		if err := applyMigration(ctx, c.Conn(), v); err != nil {
			return fmt.Errorf("postgres: migration %d: %w", v, err)
		}
	}
	return nil
}

// applyMigration runs migration v and records it, in one transaction.
func applyMigration(ctx context.Context, c *pgx.Conn, v int) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM schema_migrations WHERE version = $1", v).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return tx.Commit(ctx)
	}
	// The simple protocol runs a multi-statement script in one call.
	if _, err := tx.Conn().PgConn().Exec(ctx, migrations[v]).ReadAll(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", v); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// sqlTypes are the column types of the physical items and index tables
// (storage.SQLTypes.ItemsDDL, IndexDDL). bytea carries no collation: keys
// compare as unsigned bytes.
var sqlTypes = storage.SQLTypes{Hash: "bigint", Size: "integer", Bytes: "bytea", EmptyBytes: "''"}
