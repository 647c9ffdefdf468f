package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// BackfillIndex copies the next page of at most limit items of table
// (account, name), in scan order (h, pk, sk) after the index's
// BackfillCursor, into the index with ID indexID, in one transaction: it
// locks the catalog entry (FOR UPDATE) and the page's items (FOR SHARE), so
// a concurrent Mutate of one of them either committed before (its image is
// the one copied) or waits and then maintains the index itself (the index
// has been in the catalog since UpdateTable added it). It stores the last
// key copied as the cursor or, at the end of the table, makes the index
// ACTIVE; done reports the latter. An index that is not CREATING and
// backfilling, or is gone, is done. Errors: storage.ErrTableNotFound,
// storage.ErrClosed, SQL errors.
func (b *Backend) BackfillIndex(ctx context.Context, account, name, indexID string, limit int) (done bool, err error) {
	limit = max(limit, 1)
	err = b.inEntryTx(ctx, account, name, func(tx pgx.Tx, t *storage.Table) error {
		done = false
		var ix *storage.Index
		for i := range t.Indexes {
			if t.Indexes[i].ID == indexID {
				ix = &t.Indexes[i]
			}
		}
		if ix == nil || ix.Status != storage.StatusCreating || !ix.Backfilling {
			done = true
			return nil
		}
		pt, err := newPhysTable(t, t.Version)
		if err != nil {
			return err
		}
		last, err := backfillPage(ctx, tx, pt, ix.BackfillCursor, limit, func(batch *pgx.Batch, it item.Item) {
			if r := storage.IndexRowFor(t, ix, it); r != nil {
				queueIndexPut(batch, pt.indexes[ix.ID], r, nil, nil, 0)
			}
		})
		if err != nil {
			return err
		}
		ix.BackfillCursor = last
		if last == nil {
			ix.Status, ix.Backfilling = storage.StatusActive, false
			done = true
		}
		if err := storeEntry(ctx, tx, t); err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
	return done, err
}

// DropIndex removes the index with ID indexID from table (account, name)
// when its Status is DELETING: its catalog entry and its physical table go
// in one transaction (UpdateTable). An index or table that is gone, or an
// index in another state, is left alone without error. Errors:
// storage.ErrClosed, SQL errors.
func (b *Backend) DropIndex(ctx context.Context, account, name, indexID string) error {
	return storage.DropDeletingIndexEntry(ctx, b, account, name, "", indexID)
}

// IndexStats returns, by index ID, the row count and total size of each
// index of t, counted now. Errors: storage.ErrTableNotFound when an index
// table is gone, SQL errors.
func (b *Backend) IndexStats(ctx context.Context, t *storage.Table) (map[string]storage.TableStats, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	out := map[string]storage.TableStats{}
	if len(t.Indexes) == 0 {
		return out, nil
	}
	// An index being dropped may already have lost its rows table (the
	// caller's catalog entry can be a moment old): report it empty, and
	// count each remaining index on its own if one vanished meanwhile.
	var parts []string
	for i, ix := range t.Indexes {
		if ix.Status == storage.StatusDeleting {
			continue
		}
		name, err := storage.IndexTableName(ix.ID)
		if err != nil {
			return nil, err
		}
		parts = append(parts, fmt.Sprintf("SELECT %d, count(*), coalesce(sum(size), 0)::bigint FROM %s", i, name))
	}
	if len(parts) == 0 {
		return out, nil
	}
	err := b.indexStatsQuery(ctx, t, strings.Join(parts, " UNION ALL "), out)
	if !errors.Is(err, storage.ErrTableNotFound) {
		return out, err
	}
	for _, part := range parts {
		if err := b.indexStatsQuery(ctx, t, part, out); err != nil && !errors.Is(err, storage.ErrTableNotFound) {
			return nil, err
		}
	}
	return out, nil
}

// indexStatsQuery runs one IndexStats query (rows of index position,
// count, size) into out.
func (b *Backend) indexStatsQuery(ctx context.Context, t *storage.Table, query string, out map[string]storage.TableStats) error {
	rows, err := b.pool.Query(ctx, query)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var st storage.TableStats
		if err := rows.Scan(&i, &st.ItemCount, &st.SizeBytes); err != nil {
			return mapErr(err)
		}
		out[t.Indexes[i].ID] = st
	}
	return mapErr(rows.Err())
}

// CollectionSize returns the stored size of the items of t whose encoded
// partition key is pk plus that of their local secondary index rows.
// Errors: storage.ErrTableNotFound, SQL errors.
func (b *Backend) CollectionSize(ctx context.Context, t *storage.Table, pk []byte) (int64, error) {
	if b.closed.Load() {
		return 0, storage.ErrClosed
	}
	parts, err := storage.SQLCollectionSums(t, "$1", "$2")
	if err != nil {
		return 0, err
	}
	var size int64
	err = b.pool.QueryRow(ctx, "SELECT coalesce(sum(s), 0)::bigint FROM ("+strings.Join(parts, " UNION ALL ")+") AS c(s)",
		int64(item.PartitionHash(pk)), pk).Scan(&size)
	return size, mapErr(err)
}

// lockEntry reads and locks (FOR UPDATE) a table's catalog entry inside
// tx. Errors: storage.ErrTableNotFound (as a *fnError), SQL errors.
func lockEntry(ctx context.Context, tx pgx.Tx, account, name string) (*storage.Table, error) {
	return entryRow(tx.QueryRow(ctx, "SELECT def, version FROM catalog WHERE account = $1 AND name = $2 FOR UPDATE", account, name), nil)
}

// inEntryTx runs fn in a transaction that holds the lock (FOR UPDATE) of
// the catalog entry t of table (account, name); fn commits tx when it
// changed anything, and the transaction is rolled back otherwise. Errors:
// those of lockEntry and fn.
func (b *Backend) inEntryTx(ctx context.Context, account, name string, fn func(tx pgx.Tx, t *storage.Table) error) error {
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.Background())
		t, err := lockEntry(ctx, tx, account, name)
		if err != nil {
			return err
		}
		return fn(tx, t)
	})
}

// storeEntry writes t as its catalog entry with Version+1 (set on t).
func storeEntry(ctx context.Context, tx pgx.Tx, t *storage.Table) error {
	t.Version++
	def, err := storage.EncodeTable(t)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, "UPDATE catalog SET def = $1, version = $2 WHERE account = $3 AND name = $4", def, t.Version, t.Account, t.Name)
	return err
}

// backfillPage reads up to limit items of pt after cursor (nil: from the
// start) in scan order, locked FOR SHARE, queues what each implies with
// queue and sends it. It returns the key of the last item read, or nil when
// fewer than limit were left (the end of the table): an index build and a
// TTL backfill page work alike.
func backfillPage(ctx context.Context, tx pgx.Tx, pt *physTable, cursor *storage.Key, limit int, queue func(*pgx.Batch, item.Item)) (*storage.Key, error) {
	var h int64 = -1
	pk, sk := []byte{}, []byte{}
	if cursor != nil {
		h, pk, sk = int64(item.PartitionHash(cursor.PK)), storage.StoredSK(cursor.PK), storage.StoredSK(cursor.SK)
	}
	rows, err := tx.Query(ctx, "SELECT pk, sk, item FROM "+pt.name+
		" WHERE (h, pk, sk) > ($1, $2, $3) ORDER BY h, pk, sk LIMIT $4 FOR SHARE", h, pk, sk, limit)
	if err != nil {
		return nil, err
	}
	batch := &pgx.Batch{}
	n := 0
	var last storage.Key
	for rows.Next() {
		var blob []byte
		if err := rows.Scan(&last.PK, &last.SK, &blob); err != nil {
			rows.Close()
			return nil, err
		}
		n++
		it, err := decodeItem(blob)
		if err != nil {
			rows.Close()
			return nil, err
		}
		queue(batch, it)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if batch.Len() > 0 {
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return nil, err
		}
	}
	if n < limit {
		return nil, nil
	}
	last.SK = storage.LoadedSK(last.SK)
	return &last, nil
}
