package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/extenddb/extenddb/internal/storage"
)

// migrations are the numbered schema changes of the database, applied in
// order, each in its own transaction together with its schema_migrations
// row. A migration is never edited once released: changes are new entries.
// Every statement is also safe to re-run (IF NOT EXISTS).
var migrations = []string{
	1: `
CREATE TABLE IF NOT EXISTS catalog (
	account TEXT    NOT NULL,
	name    TEXT    NOT NULL,
	id      TEXT    NOT NULL,
	version INTEGER NOT NULL,
	def     BLOB    NOT NULL,
	PRIMARY KEY (account, name)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS catalog_id ON catalog (id);
CREATE TABLE IF NOT EXISTS table_stats (
	id         TEXT    NOT NULL PRIMARY KEY,
	item_count INTEGER NOT NULL DEFAULT 0,
	size_bytes INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`,
	2: `
CREATE TABLE IF NOT EXISTS ttl_rows (
	tid       TEXT    NOT NULL,
	expire_at INTEGER NOT NULL,
	pk        BLOB    NOT NULL,
	sk        BLOB    NOT NULL DEFAULT x'',
	PRIMARY KEY (tid, expire_at, pk, sk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stream_records (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	tid     TEXT    NOT NULL,
	label   TEXT    NOT NULL,
	created INTEGER NOT NULL,
	rec     BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS stream_records_stream ON stream_records (tid, label, seq);
CREATE INDEX IF NOT EXISTS stream_records_created ON stream_records (created);
CREATE TABLE IF NOT EXISTS stream_trims (
	tid   TEXT    NOT NULL,
	label TEXT    NOT NULL,
	upto  INTEGER NOT NULL,
	PRIMARY KEY (tid, label)
) WITHOUT ROWID;
`,
	3: `
CREATE TABLE IF NOT EXISTS tx_tokens (
	account      TEXT    NOT NULL,
	token        TEXT    NOT NULL,
	request_hash BLOB    NOT NULL,
	claimed_at   INTEGER NOT NULL,
	completed_at INTEGER,
	expires_at   INTEGER NOT NULL,
	result       BLOB,
	PRIMARY KEY (account, token)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tx_tokens_expires ON tx_tokens (expires_at);
`,
	4: `
CREATE TABLE IF NOT EXISTS jobs (
	kind    TEXT    NOT NULL,
	id      TEXT    NOT NULL,
	version INTEGER NOT NULL,
	body    BLOB    NOT NULL,
	PRIMARY KEY (kind, id)
) WITHOUT ROWID;
`,
	// The change history of point in time recovery moves out of
	// stream_records into a table of its own, clustered by table and
	// sequence number: one b-tree insert per changed item, where a stream
	// record costs three (its row, two indexes) and an AUTOINCREMENT
	// update. Records keep their sequence numbers.
	5: `
CREATE TABLE IF NOT EXISTS history (
	tid     TEXT    NOT NULL,
	seq     INTEGER NOT NULL,
	created INTEGER NOT NULL,
	rec     BLOB    NOT NULL,
	PRIMARY KEY (tid, seq)
) WITHOUT ROWID;
INSERT OR IGNORE INTO history (tid, seq, created, rec)
	SELECT tid, seq, created, rec FROM stream_records WHERE label = 'pitr';
DELETE FROM stream_records WHERE label = 'pitr';
`,
	// The change history moves into a rowid table keyed by the table's
	// history number (history_tables) times 2^40 plus the sequence number:
	// a table's records are one rowid range in commit order, and an append
	// at the end of the b-tree splits no page in two (SQLite's quick
	// balance of rowid tables), where the clustered WITHOUT ROWID table
	// wrote some 1.5 pages more per commit than the item alone.
	6: `
CREATE TABLE IF NOT EXISTS history_tables (
	tid TEXT    NOT NULL PRIMARY KEY,
	n   INTEGER NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS history_rows (
	id      INTEGER PRIMARY KEY,
	created INTEGER NOT NULL,
	rec     BLOB    NOT NULL
);
INSERT OR IGNORE INTO history_tables (tid, n)
	SELECT tid, row_number() OVER (ORDER BY tid) FROM (SELECT DISTINCT tid FROM history);
INSERT OR IGNORE INTO history_rows (id, created, rec)
	SELECT (t.n << 40) + h.seq, h.created, h.rec FROM history h JOIN history_tables t ON t.tid = h.tid;
DROP TABLE IF EXISTS history;
`,
}

// migrate applies the migrations the database lacks.
func migrate(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
)`); err != nil {
		return fmt.Errorf("sqlite: schema_migrations: %w", err)
	}
	for v := 1; v < len(migrations); v++ {
		if err := applyMigration(ctx, conn, v); err != nil {
			return fmt.Errorf("sqlite: migration %d: %w", v, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, conn *sql.Conn, v int) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", v).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		_, err := conn.ExecContext(ctx, "COMMIT")
		return err
	}
	for _, stmt := range strings.Split(migrations[v], ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, "INSERT INTO schema_migrations (version) VALUES (?)", v); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}

// sqlTypes are the column types of the physical items and index tables
// (storage.SQLTypes.ItemsDDL, IndexDDL). Items and index rows live in rowid
// tables, their key in the primary key's index: a row of a table B-tree
// keeps up to about 4 KB in its page and fills whole overflow pages beyond,
// where a WITHOUT ROWID row spilled everything past about 1 KB into a
// mostly empty overflow page (a 1,000-byte item took 4.7 times its size).
// Tables created before this layout keep the old one; the same statements
// read and write both. See docs/operations.md "Limits and resource use".
var sqlTypes = storage.SQLTypes{Hash: "INTEGER", Size: "INTEGER", Bytes: "BLOB", EmptyBytes: "x''"}
