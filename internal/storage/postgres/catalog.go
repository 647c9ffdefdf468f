package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// CreateTable stores t and creates its physical items and index tables in
// one transaction. The create is arbitrated by the unique (account, name)
// key: INSERT ... ON CONFLICT DO NOTHING, and the loser, seeing no row
// inserted, gets storage.ErrTableExists. An empty t.ID or Index.ID is filled
// with a new UUID and a zero t.Version set to 1, on t itself. Errors:
// storage.ErrTableExists, storage.ErrClosed, SQL errors.
func (b *Backend) CreateTable(ctx context.Context, t *storage.Table) error {
	def, err := storage.PrepareCreate(t)
	if err != nil {
		return err
	}
	pt, err := newPhysTable(t, t.Version)
	if err != nil {
		return err
	}
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.Background())
		tag, err := tx.Exec(ctx, `INSERT INTO catalog (account, name, id, version, def) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (account, name) DO NOTHING`, t.Account, t.Name, t.ID, t.Version, def)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return &fnError{storage.ErrTableExists}
		}
		ddl := []string{sqlTypes.ItemsDDL(pt.name)}
		for _, pi := range pt.indexes {
			ddl = append(ddl, sqlTypes.IndexDDL(pi.Name))
		}
		if err := simple(ctx, tx.Conn(), strings.Join(ddl, ";\n")); err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
}

// simple runs a script of statements without parameters in one round trip
// (the simple query protocol), caching no prepared statement.
func simple(ctx context.Context, c *pgx.Conn, script string) error {
	_, err := c.PgConn().Exec(ctx, script).ReadAll()
	return err
}

// GetTable returns a fresh copy of the committed entry, or
// storage.ErrTableNotFound.
func (b *Backend) GetTable(ctx context.Context, account, name string) (*storage.Table, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	var def []byte
	var version int64
	err := b.pool.QueryRow(ctx, "SELECT def, version FROM catalog WHERE account = $1 AND name = $2", account, name).Scan(&def, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrTableNotFound
	}
	if err != nil {
		return nil, mapErr(err)
	}
	return storage.DecodeTable(def, version)
}

// ListTables returns the account's table names in ascending byte order
// (the names are text COLLATE "C").
func (b *Backend) ListTables(ctx context.Context, account string) ([]string, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	rows, err := b.pool.Query(ctx, "SELECT name FROM catalog WHERE account = $1 ORDER BY name", account)
	if err != nil {
		return nil, mapErr(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, mapErr(err)
	}
	if names == nil {
		names = []string{}
	}
	return names, nil
}

// UpdateTable locks the entry (SELECT ... FOR UPDATE), runs fn on a copy
// and stores the result with Version+1, in one transaction. Indexes that
// appear get a physical table, filled from the table's items unless built
// online (see BackfillIndex); indexes that disappear are dropped. While it does either it holds the items table in
// EXCLUSIVE mode: writers wait, readers do not. fn may run again after a
// deadlock. Errors: fn's error unchanged; storage.ErrTableNotFound; an
// error if fn changes Account, Name or ID; SQL errors.
func (b *Backend) UpdateTable(ctx context.Context, account, name string, fn func(t *storage.Table) error) (*storage.Table, error) {
	var out *storage.Table
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.Background())
		var def []byte
		before, err := entryRow(tx.QueryRow(ctx, "SELECT def, version FROM catalog WHERE account = $1 AND name = $2 FOR UPDATE", account, name), &def)
		if err != nil {
			return err
		}
		cur, _ := storage.DecodeTable(def, before.Version)
		if err := fn(cur); err != nil {
			return &fnError{err}
		}
		newDef, err := storage.PrepareUpdate(before, cur)
		if err != nil {
			return &fnError{err}
		}
		if err := reshapeIndexes(ctx, tx, before, cur); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE catalog SET def = $1, version = $2 WHERE account = $3 AND name = $4", newDef, cur.Version, account, name); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		out = cur
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reshapeIndexes creates the physical tables of indexes in cur but not in
// before, filling them from the table's items unless they are built online
// (CREATING and Backfilling: see BackfillIndex), and drops those of indexes
// only in before. When
// there is anything to do it first locks the items table in EXCLUSIVE mode,
// which waits for in-flight writers and holds new ones back (they resume
// after the commit, then reading the new catalog entry).
func reshapeIndexes(ctx context.Context, tx pgx.Tx, before, cur *storage.Table) error {
	had := map[string]bool{}
	for _, ix := range before.Indexes {
		had[ix.ID] = true
	}
	pt, err := newPhysTable(cur, cur.Version)
	if err != nil {
		return err
	}
	var added []*storage.Index
	has := map[string]bool{}
	for i := range cur.Indexes {
		has[cur.Indexes[i].ID] = true
		if !had[cur.Indexes[i].ID] {
			added = append(added, &cur.Indexes[i])
		}
	}
	var dropped []string
	for _, ix := range before.Indexes {
		if !has[ix.ID] {
			n, err := storage.IndexTableName(ix.ID)
			if err != nil {
				return err
			}
			dropped = append(dropped, n)
		}
	}
	if len(added) == 0 && len(dropped) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+pt.name+" IN EXCLUSIVE MODE"); err != nil {
		return err
	}
	for _, ix := range added {
		pi := pt.indexes[ix.ID]
		if err := simple(ctx, tx.Conn(), sqlTypes.IndexDDL(pi.Name)); err != nil {
			return err
		}
		if ix.Status == storage.StatusCreating && ix.Backfilling {
			continue // built online: see BackfillIndex
		}
		if err := backfill(ctx, tx, pt, ix, pi); err != nil {
			return err
		}
	}
	if len(dropped) > 0 {
		return simple(ctx, tx.Conn(), "DROP TABLE IF EXISTS "+strings.Join(dropped, ", "))
	}
	return nil
}

// backfill writes index ix's rows for every item of the table, reading the
// items in key order a page at a time.
func backfill(ctx context.Context, tx pgx.Tx, pt *physTable, ix *storage.Index, pi *storage.SQLIndexTable) error {
	const page = 512
	q := "SELECT h, pk, sk, item FROM " + pt.name + " WHERE (h, pk, sk) > ($1, $2, $3) ORDER BY h, pk, sk LIMIT " + fmt.Sprint(page)
	var h int64 = -1
	pk, sk := []byte{}, []byte{}
	for {
		rows, err := tx.Query(ctx, q, h, pk, sk)
		if err != nil {
			return err
		}
		var items []item.Item
		for rows.Next() {
			var blob []byte
			if err := rows.Scan(&h, &pk, &sk, &blob); err != nil {
				rows.Close()
				return err
			}
			it, err := item.UnmarshalItem(blob)
			if err != nil {
				rows.Close()
				return fmt.Errorf("postgres: corrupt item in table %s: %w", pt.def.Name, err)
			}
			items = append(items, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for _, it := range items {
			if r := storage.IndexRowFor(pt.def, ix, it); r != nil {
				queueIndexPut(batch, pi, r, nil, nil, 0)
			}
		}
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, batch).Close(); err != nil {
				return err
			}
		}
		if len(items) < page {
			return nil
		}
	}
}

// DeleteTable removes the entry and drops its physical tables in one
// transaction. Dropping waits for in-flight writers of the table; writers
// that come later find no table (storage.ErrTableNotFound). Errors:
// storage.ErrTableNotFound if there is no such table, SQL errors.
func (b *Backend) DeleteTable(ctx context.Context, account, name string) error {
	var id string
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.Background())
		t, err := entryRow(tx.QueryRow(ctx, "DELETE FROM catalog WHERE account = $1 AND name = $2 RETURNING def, version", account, name), nil)
		if err != nil {
			return err
		}
		pt, err := newPhysTable(t, t.Version)
		if err != nil {
			return err
		}
		names := []string{pt.name}
		for _, pi := range pt.indexes {
			names = append(names, pi.Name)
		}
		if err := simple(ctx, tx.Conn(), "DROP TABLE IF EXISTS "+strings.Join(names, ", ")); err != nil {
			return err
		}
		if err := dropDerived(ctx, tx, t.ID); err != nil {
			return err
		}
		id = t.ID
		return tx.Commit(ctx)
	})
	if err == nil {
		b.dmu.Lock()
		delete(b.defs, id)
		b.dmu.Unlock()
	}
	return err
}

// entryRow reads a catalog row (def, version) inside a catalog change: a
// missing row is storage.ErrTableNotFound, reported as the change's
// outcome. With def non-nil the raw definition is kept there too.
func entryRow(row pgx.Row, def *[]byte) (*storage.Table, error) {
	var raw []byte
	var version int64
	err := row.Scan(&raw, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &fnError{storage.ErrTableNotFound}
	}
	if err != nil {
		return nil, err
	}
	if def != nil {
		*def = raw
	}
	return storage.DecodeTable(raw, version)
}

// physTable is a catalog entry of one version with its physical statements.
type physTable struct {
	def     *storage.Table
	version int64
	name    string
	lock    string // the item's image, locked
	insert  string // a create, arbitrated: ON CONFLICT DO NOTHING
	update  string
	del     string
	indexes map[string]*storage.SQLIndexTable // by index ID
}

func newPhysTable(def *storage.Table, version int64) (*physTable, error) {
	name, err := storage.ItemsTableName(def.ID)
	if err != nil {
		return nil, err
	}
	p := &physTable{
		def:     def,
		version: version,
		name:    name,
		lock:    "SELECT item, size FROM " + name + " WHERE h = $1 AND pk = $2 AND sk = $3 FOR UPDATE",
		insert:  "INSERT INTO " + name + " (h, pk, sk, item, size) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (h, pk, sk) DO NOTHING",
		update:  "UPDATE " + name + " SET item = $4, size = $5 WHERE h = $1 AND pk = $2 AND sk = $3",
		del:     "DELETE FROM " + name + " WHERE h = $1 AND pk = $2 AND sk = $3",
	}
	p.indexes, err = storage.SQLIndexTables(def, func(n int) string { return "$" + strconv.Itoa(n) })
	if err != nil {
		return nil, err
	}
	return p, nil
}

// catalogByID reads the current version of a table's entry by ID; def is
// NULL (nil) when the version equals $2, the caller's cached one.
const catalogByID = "SELECT version, CASE WHEN version = $2 THEN NULL ELSE def END FROM catalog WHERE id = $1"

// cached returns the cached entry of table id and its version, or -1.
func (b *Backend) cached(id string) (*physTable, int64) {
	b.dmu.Lock()
	defer b.dmu.Unlock()
	if p := b.defs[id]; p != nil {
		return p, p.version
	}
	return nil, -1
}

// resolve returns the entry of table id at version: cached when def is nil
// (the database confirmed the cached version), else decoded from def and
// cached.
func (b *Backend) resolve(id string, cached *physTable, version int64, def []byte) (*physTable, error) {
	if def == nil && cached != nil && cached.version == version {
		return cached, nil
	}
	if def == nil {
		return nil, fmt.Errorf("postgres: catalog entry %s: no definition", id)
	}
	t, err := storage.DecodeTable(def, version)
	if err != nil {
		return nil, err
	}
	p, err := newPhysTable(t, version)
	if err != nil {
		return nil, err
	}
	b.dmu.Lock()
	if cur := b.defs[id]; cur == nil || cur.version < version {
		b.defs[id] = p
	}
	b.dmu.Unlock()
	return p, nil
}

// ListNamespaces returns the distinct accounts (namespaces) of the catalog.
func (b *Backend) ListNamespaces(ctx context.Context) ([]string, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	rows, err := b.pool.Query(ctx, "SELECT DISTINCT account FROM catalog")
	if err != nil {
		return nil, mapErr(err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
