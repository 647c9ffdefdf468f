package cassandra

import (
	"context"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The catalog keyspace's schema: its numbered migrations, in the order
// they were released, and the pass that applies them. A migration is never
// edited once released: changes are new entries.

// migration is one numbered catalog schema step. Its statements must be
// idempotent: a migration interrupted before it was recorded runs again.
type migration struct {
	id    int
	name  string
	stmts []string
}

// migrations are the catalog keyspace's migrations, by id.
func (b *Backend) migrations() []migration {
	k := b.catalog
	return []migration{
		{1, "tables", []string{
			`CREATE TABLE IF NOT EXISTS ` + k + `.tables (
				account text, name text, id text, def blob, version bigint,
				PRIMARY KEY ((account), name))`,
		}},
		// Stream records and their buckets and trims (streams.go), expiry
		// rows (ttl.go) and leases (lease.go).
		{2, "streams, ttl, leases", []string{
			`CREATE TABLE IF NOT EXISTS ` + k + `.stream_records (
				tid text, label text, bucket bigint, version bigint, h int, pk blob, sk blob, rec blob,
				PRIMARY KEY ((tid, label, bucket), version, h, pk, sk))`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.stream_buckets (
				tid text, label text, bucket bigint, PRIMARY KEY ((tid), label, bucket))`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.stream_trims (
				tid text, label text, upto_version bigint, upto_h int, PRIMARY KEY ((tid), label))`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.ttl_rows (
				tid text, gen bigint, shard int, expire_at bigint, pk blob, sk blob,
				PRIMARY KEY ((tid, gen, shard), expire_at, pk, sk))`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.ttl_gens (
				tid text, gen bigint, PRIMARY KEY ((tid), gen))`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.leases (
				name text PRIMARY KEY, owner text)`,
		}},
		// Write intents and frontends (intents.go). Intents are written once
		// and expire (the table's default TTL backs up the one each insert
		// sets); time-window compaction drops whole expired files.
		{3, "write intents, frontends", []string{
			`CREATE TABLE IF NOT EXISTS ` + k + `.intents (
				owner text, minute bigint, id bigint, ` + intentColumnDefs + `
				PRIMARY KEY ((owner, minute), id))
				WITH default_time_to_live = 86400 AND gc_grace_seconds = 10800
				AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 1}`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.frontends (
				k int, owner text, started timestamp, renewed timestamp,
				PRIMARY KEY ((k), owner))`,
		}},
		// The ledger of transactions (tx_ledger.go), which also holds the
		// ClientRequestToken records (a token's ledger row is its record).
		{4, "transactions and tokens", []string{
			`CREATE TABLE IF NOT EXISTS ` + k + `.txns (
				id text PRIMARY KEY, attempt text, status text, started bigint, items blob,
				hash blob, claimed_at bigint, completed boolean, completed_at bigint, result blob)`,
		}},
		// The ID of a token's claim, in the ledger.
		{5, "token claim IDs", []string{
			`ALTER TABLE ` + k + `.txns ADD claim text`,
		}},
		// Records of long-running jobs (jobs.go).
		{6, "jobs", []string{
			`CREATE TABLE IF NOT EXISTS ` + k + `.jobs (
				kind text, id text, version bigint, body blob, PRIMARY KEY ((kind), id))`,
		}},
		// Repairs of committed writes whose effects failed (repairs.go),
		// by minute, and the minutes that hold some. Like intents, they
		// are written once and expire.
		{7, "repairs", []string{
			`CREATE TABLE IF NOT EXISTS ` + k + `.repairs (
				minute bigint, shard int, id bigint, ` + intentColumnDefs + `
				PRIMARY KEY ((minute, shard), id))
				WITH default_time_to_live = 86400 AND gc_grace_seconds = 10800
				AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 1}`,
			`CREATE TABLE IF NOT EXISTS ` + k + `.repair_minutes (
				hour bigint, minute bigint, PRIMARY KEY ((hour), minute))
				WITH default_time_to_live = 86520 AND gc_grace_seconds = 10800
				AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 1}`,
		}},
	}
}

// migrate creates the catalog keyspace and runs, in order, every migration
// the migrations table does not record. Several processes may migrate at
// once: the statements are idempotent and each record is an INSERT IF NOT
// EXISTS, so exactly one records each migration.
func (b *Backend) migrate(ctx context.Context) error {
	if err := b.ddl(ctx, fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", b.catalog, b.replication())); err != nil {
		return err
	}
	if err := b.ddl(ctx, `CREATE TABLE IF NOT EXISTS `+b.catalog+`.migrations (
		id int PRIMARY KEY, name text, applied_at timestamp)`); err != nil {
		return err
	}
	done := map[int]bool{}
	iter := b.s.Query(`SELECT id FROM ` + b.catalog + `.migrations`).WithContext(ctx).Consistency(gocql.Serial).Iter()
	var id int
	for iter.Scan(&id) {
		done[id] = true
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("cassandra: read migrations: %w", err)
	}
	for _, m := range b.migrations() {
		if done[m.id] {
			continue
		}
		for _, stmt := range m.stmts {
			if err := b.ddl(ctx, stmt); err != nil {
				return fmt.Errorf("cassandra: migration %d (%s): %w", m.id, m.name, err)
			}
		}
		if _, err := b.s.Query(`INSERT INTO `+b.catalog+`.migrations (id, name, applied_at) VALUES (?, ?, ?) IF NOT EXISTS`,
			m.id, m.name, time.Now()).WithContext(ctx).MapScanCAS(map[string]any{}); err != nil {
			return fmt.Errorf("cassandra: record migration %d: %w", m.id, err)
		}
	}
	return nil
}

// intentColumnDefs declares the columns (intentColumns) that the intents
// and repairs tables share.
const intentColumnDefs = `tid text, account text, tname text, def blob,
	pk blob, sk blob, old blob, new blob, version bigint,
	ident_type text, ident_principal text,`
