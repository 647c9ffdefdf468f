package sqlite

import (
	"context"
	"database/sql"
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/extenddb/extenddb/internal/storage"
)

// CreateTable stores t and creates its physical items and index tables in
// one transaction; the unique (account, name) key arbitrates concurrent
// creates: the loser gets storage.ErrTableExists. An empty t.ID or Index.ID
// is filled with a new UUID and a zero t.Version set to 1, on t itself.
func (b *Backend) CreateTable(ctx context.Context, t *storage.Table) error {
	def, err := storage.PrepareCreate(t)
	if err != nil {
		return err
	}
	pt, err := newPhysTable(t)
	if err != nil {
		return err
	}
	account, name, id, version := t.Account, t.Name, t.ID, t.Version
	return b.submit(ctx, true, func(w *writer) error {
		_, err := w.exec("INSERT INTO catalog (account, name, id, version, def) VALUES (?, ?, ?, ?, ?)", account, name, id, version, def)
		var se sqlite3.Error
		if errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey {
			return storage.ErrTableExists
		}
		if err != nil {
			return err
		}
		if err := w.execRaw(sqlTypes.ItemsDDL(pt.name)); err != nil {
			return err
		}
		for ixID, pi := range pt.indexes {
			if err := w.execRaw(sqlTypes.IndexDDL(pi.Name)); err != nil {
				return err
			}
			if _, err := w.exec("INSERT OR REPLACE INTO table_stats (id, item_count, size_bytes) VALUES (?, 0, 0)", ixID); err != nil {
				return err
			}
		}
		_, err = w.exec("INSERT OR REPLACE INTO table_stats (id, item_count, size_bytes) VALUES (?, 0, 0)", id)
		return err
	})
}

// GetTable returns a fresh copy of the committed entry, or
// storage.ErrTableNotFound.
func (b *Backend) GetTable(ctx context.Context, account, name string) (*storage.Table, error) {
	if b.isClosed() {
		return nil, storage.ErrClosed
	}
	s, err := b.readStmt(ctx, "SELECT def, version FROM catalog WHERE account = ? AND name = ?")
	if err != nil {
		return nil, err
	}
	var def []byte
	var version int64
	if err := s.QueryRowContext(ctx, account, name).Scan(&def, &version); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, storage.ErrTableNotFound
		}
		return nil, mapErr(err)
	}
	return storage.DecodeTable(def, version)
}

// ListTables returns the account's table names in ascending byte order.
func (b *Backend) ListTables(ctx context.Context, account string) ([]string, error) {
	names, err := queryRows(ctx, b, "SELECT name FROM catalog WHERE account = ? ORDER BY name", scanString, account)
	if names == nil && err == nil {
		names = []string{}
	}
	return names, err
}

// UpdateTable runs fn on the writer against a copy of the committed entry
// and stores the result with Version+1. Indexes that appear get a physical
// table, filled from the table's items in the same transaction unless they
// are built online (CREATING and Backfilling: see BackfillIndex); indexes
// that disappear are dropped. Errors: fn's error unchanged;
// storage.ErrTableNotFound; an error if fn changes Account, Name or ID.
func (b *Backend) UpdateTable(ctx context.Context, account, name string, fn func(t *storage.Table) error) (*storage.Table, error) {
	var out *storage.Table
	err := b.changeTable(ctx, account, name, func(w *writer, before *storage.Table) ([]string, error) {
		cur, err := w.tableByName(account, name) // fn's copy
		if err != nil {
			return nil, err
		}
		if err := fn(cur); err != nil {
			return nil, err
		}
		def, err := storage.PrepareUpdate(before, cur)
		if err != nil {
			return nil, err
		}
		if _, err := w.exec("UPDATE catalog SET def = ?, version = ? WHERE account = ? AND name = ?", def, cur.Version, account, name); err != nil {
			return nil, err
		}
		out = cur
		return w.reshapeIndexes(before, cur)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changeTable runs change in a write transaction on the committed entry of
// table account/name and, once that commits, closes the cached read
// statements on the physical tables change reports it dropped. Errors:
// storage.ErrTableNotFound, change's.
func (b *Backend) changeTable(ctx context.Context, account, name string, change func(w *writer, t *storage.Table) (dropped []string, err error)) error {
	var dropped []string
	err := b.submit(ctx, true, func(w *writer) error {
		t, err := w.tableByName(account, name)
		if err != nil {
			return err
		}
		dropped, err = change(w, t)
		return err
	})
	if err == nil {
		b.forgetReadStmts(dropped)
	}
	return err
}

// reshapeIndexes creates the physical tables of indexes in cur but not in
// before, and drops those of indexes only in before. A new index that is
// CREATING and Backfilling is left empty for BackfillIndex (an online
// build); any other new index is filled from the table's items here, in the
// same transaction. It returns the dropped physical names.
func (w *writer) reshapeIndexes(before, cur *storage.Table) ([]string, error) {
	had := map[string]bool{}
	for _, ix := range before.Indexes {
		had[ix.ID] = true
	}
	has := map[string]bool{}
	pt, err := newPhysTable(cur)
	if err != nil {
		return nil, err
	}
	for i := range cur.Indexes {
		ix := &cur.Indexes[i]
		has[ix.ID] = true
		if had[ix.ID] {
			continue
		}
		pi := pt.indexes[ix.ID]
		if err := w.execRaw(sqlTypes.IndexDDL(pi.Name)); err != nil {
			return nil, err
		}
		if _, err := w.exec("INSERT OR REPLACE INTO table_stats (id, item_count, size_bytes) VALUES (?, 0, 0)", ix.ID); err != nil {
			return nil, err
		}
		if ix.Status == storage.StatusCreating && ix.Backfilling {
			continue
		}
		if _, err := w.backfillPage(pt, ix, pi, nil, -1); err != nil {
			return nil, err
		}
	}
	var dropped []string
	for _, ix := range before.Indexes {
		if !has[ix.ID] {
			n, err := storage.IndexTableName(ix.ID)
			if err != nil {
				return nil, err
			}
			dropped = append(dropped, n)
			if _, err := w.exec("DELETE FROM table_stats WHERE id = ?", ix.ID); err != nil {
				return nil, err
			}
		}
	}
	return dropped, w.drop(dropped)
}

// DeleteTable removes the entry, its stats and its physical tables in one
// transaction; storage.ErrTableNotFound if there is no such table.
func (b *Backend) DeleteTable(ctx context.Context, account, name string) error {
	return b.changeTable(ctx, account, name, func(w *writer, t *storage.Table) ([]string, error) {
		if _, err := w.exec("DELETE FROM catalog WHERE account = ? AND name = ?", account, name); err != nil {
			return nil, err
		}
		if _, err := w.exec("DELETE FROM table_stats WHERE id = ?", t.ID); err != nil {
			return nil, err
		}
		if err := w.dropDerived(t.ID); err != nil {
			return nil, err
		}
		for _, ix := range t.Indexes {
			if _, err := w.exec("DELETE FROM table_stats WHERE id = ?", ix.ID); err != nil {
				return nil, err
			}
		}
		pt, err := newPhysTable(t)
		if err != nil {
			return nil, err
		}
		dropped := []string{pt.name}
		for _, pi := range pt.indexes {
			dropped = append(dropped, pi.Name)
		}
		return dropped, w.drop(dropped)
	})
}

// drop drops physical tables after closing the writer's statements on them.
func (w *writer) drop(names []string) error {
	w.forgetStmts(names)
	for _, n := range names {
		if err := w.execRaw("DROP TABLE IF EXISTS " + n); err != nil {
			return err
		}
	}
	return nil
}

// tableByName reads a catalog entry inside the writer's transaction.
func (w *writer) tableByName(account, name string) (*storage.Table, error) {
	s, err := w.stmt("SELECT def, version FROM catalog WHERE account = ? AND name = ?")
	if err != nil {
		return nil, err
	}
	var def []byte
	var version int64
	if err := s.QueryRow(account, name).Scan(&def, &version); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, storage.ErrTableNotFound
		}
		return nil, mapErr(err)
	}
	return storage.DecodeTable(def, version)
}

// ListNamespaces returns the distinct accounts (namespaces) of the catalog.
func (b *Backend) ListNamespaces(ctx context.Context) ([]string, error) {
	return queryRows(ctx, b, "SELECT DISTINCT account FROM catalog", scanString)
}
