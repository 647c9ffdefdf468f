package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Online index builds and per-index counts (storage.IndexBuilder,
// storage.Statistics). Every index has a
// table_stats row keyed by its ID, maintained by the writes that change its
// rows, exactly like a table's.

// BackfillIndex copies the next page of at most limit items into the index
// indexID of table (account, name), and advances its durable cursor, in one
// writer transaction (see storage.IndexBuilder). The single writer
// serialises the page with every item write, so each row is derived from
// the committed image of its item.
func (b *Backend) BackfillIndex(ctx context.Context, account, name, indexID string, limit int) (bool, error) {
	if limit <= 0 {
		limit = 256
	}
	return b.entryPage(ctx, account, name, func(w *writer, cur *storage.Table, done *bool) error {
		i := indexPos(cur, indexID)
		if i < 0 || cur.Indexes[i].Status != storage.StatusCreating || !cur.Indexes[i].Backfilling {
			return nil
		}
		pt, err := newPhysTable(cur)
		if err != nil {
			return err
		}
		ix := &cur.Indexes[i]
		last, err := w.backfillPage(pt, ix, pt.indexes[ix.ID], ix.BackfillCursor, limit)
		if err != nil {
			return err
		}
		if last == nil {
			ix.Status, ix.Backfilling, ix.BackfillCursor = storage.StatusActive, false, nil
		} else {
			ix.BackfillCursor = last
			*done = false
		}
		return w.storeTable(cur)
	})
}

// DropIndex drops the physical table and counts of index indexID of table
// (account, name) and removes it from the catalog, when it is DELETING.
func (b *Backend) DropIndex(ctx context.Context, account, name, indexID string) error {
	var dropped []string
	err := b.submit(ctx, true, func(w *writer) error {
		dropped = nil
		cur, err := w.tableByName(account, name)
		if errors.Is(err, storage.ErrTableNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		i := indexPos(cur, indexID)
		if i < 0 || cur.Indexes[i].Status != storage.StatusDeleting {
			return nil
		}
		n, err := storage.IndexTableName(indexID)
		if err != nil {
			return err
		}
		dropped = []string{n}
		if err := w.drop(dropped); err != nil {
			return err
		}
		if _, err := w.exec("DELETE FROM table_stats WHERE id = ?", indexID); err != nil {
			return err
		}
		cur.Indexes = append(cur.Indexes[:i:i], cur.Indexes[i+1:]...)
		return w.storeTable(cur)
	})
	if err == nil {
		b.forgetReadStmts(dropped)
	}
	return err
}

// IndexStats returns the committed row count and size of every index of t,
// by index ID.
func (b *Backend) IndexStats(ctx context.Context, t *storage.Table) (map[string]storage.TableStats, error) {
	if b.isClosed() {
		return nil, storage.ErrClosed
	}
	s, err := b.readStmt(ctx, "SELECT item_count, size_bytes FROM table_stats WHERE id = ?")
	if err != nil {
		return nil, err
	}
	out := make(map[string]storage.TableStats, len(t.Indexes))
	for _, ix := range t.Indexes {
		var st storage.TableStats
		if err := s.QueryRowContext(ctx, ix.ID).Scan(&st.ItemCount, &st.SizeBytes); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, mapErr(err)
		}
		out[ix.ID] = st
	}
	return out, nil
}

// CollectionSize sums the stored sizes of the items of t with partition key
// pk and of their rows in t's local secondary indexes. Each sum is one range
// read of the (h, pk) prefix of a primary key.
func (b *Backend) CollectionSize(ctx context.Context, t *storage.Table, pk []byte) (int64, error) {
	if b.isClosed() {
		return 0, storage.ErrClosed
	}
	h := int64(item.PartitionHash(pk))
	queries, err := storage.SQLCollectionSums(t, "?", "?")
	if err != nil {
		return 0, err
	}
	var total int64
	for _, q := range queries {
		s, err := b.readStmt(ctx, q)
		if err != nil {
			return 0, err
		}
		var n int64
		if err := s.QueryRowContext(ctx, h, pk).Scan(&n); err != nil {
			return 0, mapErr(err)
		}
		total += n
	}
	return total, nil
}

func indexPos(t *storage.Table, id string) int {
	for i := range t.Indexes {
		if t.Indexes[i].ID == id {
			return i
		}
	}
	return -1
}

// storeTable writes t's catalog entry with the next version.
func (w *writer) storeTable(t *storage.Table) error {
	t.Version++
	def, err := storage.EncodeTable(t)
	if err != nil {
		return err
	}
	_, err = w.exec("UPDATE catalog SET def = ?, version = ? WHERE account = ? AND name = ?", def, t.Version, t.Account, t.Name)
	return err
}

// backfillPage writes index ix's rows for the items of the table after
// table key start (all of them for nil), in (h, pk, sk) order, at most limit
// of them (no limit when negative). It returns the key of the last item
// read, or nil when the table ended within the page. Rows are derived from
// the committed images, and a row already present (written by an item write
// since the index was created) is overwritten with the same content.
func (w *writer) backfillPage(pt *physTable, ix *storage.Index, pi *storage.SQLIndexTable, start *storage.Key, limit int) (*storage.Key, error) {
	page := limit
	if page < 0 {
		page = 512
	}
	q := "SELECT h, pk, sk, item FROM " + pt.name + " WHERE (h, pk, sk) > (?, ?, ?) ORDER BY h, pk, sk LIMIT " + fmt.Sprint(page)
	var h int64 = -1
	pk, sk := []byte{}, []byte{}
	if start != nil {
		h, pk, sk = int64(item.PartitionHash(start.PK)), storage.StoredSK(start.PK), storage.StoredSK(start.SK)
	}
	for {
		s, err := w.stmt(q)
		if err != nil {
			return nil, err
		}
		rows, err := s.Query(h, pk, sk)
		if err != nil {
			return nil, mapErr(err)
		}
		var items []item.Item
		for rows.Next() {
			var blob []byte
			if err := rows.Scan(&h, &pk, &sk, &blob); err != nil {
				rows.Close()
				return nil, err
			}
			it, err := item.UnmarshalItem(blob)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: corrupt item in table %s: %w", pt.def.Name, err)
			}
			items = append(items, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, it := range items {
			if r := storage.IndexRowFor(pt.def, ix, it); r != nil {
				if err := w.backfillRow(ix.ID, pi, r); err != nil {
					return nil, err
				}
			}
		}
		if len(items) < page {
			return nil, nil
		}
		if limit >= 0 {
			return &storage.Key{PK: append([]byte(nil), pk...), SK: storage.LoadedSK(append([]byte(nil), sk...))}, nil
		}
	}
}

// backfillRow stores r, counting it unless it replaces a stored row.
func (w *writer) backfillRow(ixID string, pi *storage.SQLIndexTable, r *storage.IndexRow) error {
	s, err := w.stmt(strings.Replace(pi.Del, "DELETE", "SELECT size", 1))
	if err != nil {
		return err
	}
	var old int64
	size := int64(item.Size(r.Item))
	switch err := s.QueryRow(int64(item.PartitionHash(r.IndexKey.PK)), r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK)).Scan(&old); {
	case errors.Is(err, sql.ErrNoRows):
		w.addStats(ixID, 1, size)
	case err != nil:
		return mapErr(err)
	default:
		w.addStats(ixID, 0, size-old)
	}
	return w.putIndexRow(pi, r, nil, nil, 0)
}

// ensureIndexStats gives every index that has no table_stats row (one
// created before indexes were counted) a row computed from its table. It is
// idempotent and runs at open, after the migrations.
func ensureIndexStats(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SELECT def, version FROM catalog")
	if err != nil {
		return fmt.Errorf("sqlite: index counts: %w", err)
	}
	var tables []*storage.Table
	for rows.Next() {
		var def []byte
		var version int64
		if err := rows.Scan(&def, &version); err != nil {
			rows.Close()
			return err
		}
		t, err := storage.DecodeTable(def, version)
		if err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range tables {
		for _, ix := range t.Indexes {
			var n int
			if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM table_stats WHERE id = ?", ix.ID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			name, err := storage.IndexTableName(ix.ID)
			if err != nil {
				return err
			}
			if _, err := conn.ExecContext(ctx, "INSERT OR IGNORE INTO table_stats (id, item_count, size_bytes) SELECT ?, count(*), coalesce(sum(size), 0) FROM "+name, ix.ID); err != nil {
				return fmt.Errorf("sqlite: index counts of %s: %w", name, err)
			}
		}
	}
	return nil
}

// entryPage runs one page of a background job on table (account, name)
// (an index backfill, a TTL backfill or drain) as one writer transaction:
// page gets the table's current entry and clears done while the job has
// more pages. Errors (with done false, as on the other backends):
// storage.ErrTableNotFound, page's.
func (b *Backend) entryPage(ctx context.Context, account, name string, page func(w *writer, cur *storage.Table, done *bool) error) (bool, error) {
	done := true
	err := b.submit(ctx, true, func(w *writer) error {
		done = true
		cur, err := w.tableByName(account, name)
		if err != nil {
			return err
		}
		return page(w, cur, &done)
	})
	return done && err == nil, err
}
