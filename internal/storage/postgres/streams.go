package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Streams, Time to Live and leases (storage.StreamStore, storage.TTLStore,
// storage.Leaser).
//
//	ttl_rows(tid, expire_at, pk, sk)                 one per item with a Number TTL attribute
//	stream_seqs(tid, seq)                            last sequence number of a table's streams
//	stream_records(tid, label, seq, created, rec)    PRIMARY KEY (tid, label, seq)
//	stream_trims(tid, label, upto)                   highest seq removed by trimming
//	leases(name, owner, expires_at)                  background-job ownership
//
// A write takes its sequence numbers by incrementing the table's
// stream_seqs row, the last statement of its transaction: the row lock is
// held until commit, so numbers are allocated in commit order and a reader
// never sees a smaller number appear after a larger one. Writers of one
// table's stream serialise on that row for the length of their commit
// only; transactions lock stream_seqs rows in table-ID order after all
// their item rows, so they cannot deadlock on them.

const appendRecord = `WITH s AS (
	INSERT INTO stream_seqs (tid, seq) VALUES ($1, 1)
	ON CONFLICT (tid) DO UPDATE SET seq = stream_seqs.seq + 1 RETURNING seq)
INSERT INTO stream_records (tid, label, seq, created, rec) SELECT $1, $2, s.seq, $3, $4 FROM s`

// queueDerived queues the expiry-row changes of one item write into batch
// and its stream record into streams (see storage.TTLChanges and
// storage.StreamRecordFor).
func queueDerived(batch, streams *pgx.Batch, pt *physTable, old, nw item.Item, id *storage.UserIdentity, now time.Time) {
	del, put := storage.TTLChanges(pt.def, old, nw)
	if del != nil {
		batch.Queue("DELETE FROM ttl_rows WHERE tid = $1 AND expire_at = $2 AND pk = $3 AND sk = $4", pt.def.ID, del.ExpireAt, del.Key.PK, storage.StoredSK(del.Key.SK))
	}
	if put != nil {
		batch.Queue(putTTLRow, pt.def.ID, put.ExpireAt, put.Key.PK, storage.StoredSK(put.Key.SK))
	}
	r, h := storage.ChangeRecords(pt.def, old, nw, id, now)
	if r != nil {
		streams.Queue(appendRecord, pt.def.ID, pt.def.LatestStreamLabel, r.CreatedAt.Unix(), storage.EncodeStreamRecord(r))
	}
	if h != nil {
		streams.Queue(appendRecord, pt.def.ID, storage.HistoryLabel, h.CreatedAt.Unix(), storage.EncodeStreamRecord(h))
	}
}

const putTTLRow = "INSERT INTO ttl_rows (tid, expire_at, pk, sk) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING"

// appendBatch moves the queued statements of src to the end of dst.
func appendBatch(dst, src *pgx.Batch) {
	dst.QueuedQueries = append(dst.QueuedQueries, src.QueuedQueries...)
	src.QueuedQueries = nil
}

// dropDerived removes the expiry rows and stream data of table tid
// (DeleteTable).
func dropDerived(ctx context.Context, tx pgx.Tx, tid string) error {
	for _, q := range []string{
		"DELETE FROM ttl_rows WHERE tid = $1",
		"DELETE FROM stream_records WHERE tid = $1",
		"DELETE FROM stream_trims WHERE tid = $1",
		"DELETE FROM stream_seqs WHERE tid = $1",
		"DELETE FROM leases WHERE name = 'ttl/' || $1",
	} {
		if _, err := tx.Exec(ctx, q, tid); err != nil {
			return err
		}
	}
	return nil
}

// ReadStream returns up to limit records of stream (tableID, label) after
// sequence number after.
func (b *Backend) ReadStream(ctx context.Context, tableID, label string, after uint64, limit int) ([]*storage.StreamRecord, error) {
	var out []*storage.StreamRecord
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		out = out[:0]
		rows, err := c.Query(ctx, "SELECT seq, rec FROM stream_records WHERE tid = $1 AND label = $2 AND seq > $3 ORDER BY seq LIMIT $4", tableID, label, int64(after), max(limit, 1))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			var rec []byte
			if err := rows.Scan(&seq, &rec); err != nil {
				return err
			}
			r, err := storage.DecodeStreamRecord(rec, uint64(seq))
			if err != nil {
				return &fnError{err}
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// StreamBounds reports the kept records of stream (tableID, label).
func (b *Backend) StreamBounds(ctx context.Context, tableID, label string) (storage.StreamBounds, error) {
	var out storage.StreamBounds
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		var first, last, trimmed int64
		err := c.QueryRow(ctx, `SELECT coalesce(min(seq), 0), coalesce(max(seq), 0),
	(SELECT coalesce(max(upto), 0) FROM stream_trims WHERE tid = $1 AND label = $2)
FROM stream_records WHERE tid = $1 AND label = $2`, tableID, label).Scan(&first, &last, &trimmed)
		out = storage.StreamBounds{First: uint64(first), Last: uint64(last), Trimmed: uint64(trimmed)}
		return err
	})
	return out, err
}

// TrimStreams removes the records created before cutoff and raises each
// trimmed stream's stream_trims mark to the highest sequence number it
// removed. Both happen in one statement, so on one snapshot: computed in
// two, a record committed between them could be removed above the mark,
// and a reader positioned before it would never learn it was lost.
func (b *Backend) TrimStreams(ctx context.Context, cutoff time.Time) (int64, error) {
	return b.trimRecords(ctx, trimStreams, cutoff.Unix(), storage.HistoryLabel)
}

// TrimHistory removes table tableID's change history created before
// cutoff, raising its trim mark in the same statement.
func (b *Backend) TrimHistory(ctx context.Context, tableID string, cutoff time.Time) (int64, error) {
	return b.trimRecords(ctx, trimHistory, cutoff.Unix(), storage.HistoryLabel, tableID)
}

func (b *Backend) trimRecords(ctx context.Context, stmt string, args ...any) (int64, error) {
	var n int64
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		return c.QueryRow(ctx, stmt, args...).Scan(&n)
	})
	return n, err
}

const trimMark = `,
m AS (INSERT INTO stream_trims (tid, label, upto) SELECT tid, label, max(seq) FROM d GROUP BY tid, label
	ON CONFLICT (tid, label) DO UPDATE SET upto = greatest(stream_trims.upto, EXCLUDED.upto))
SELECT count(*) FROM d`

const trimStreams = `WITH d AS (DELETE FROM stream_records WHERE created < $1 AND label <> $2 RETURNING tid, label, seq)` + trimMark

const trimHistory = `WITH d AS (DELETE FROM stream_records WHERE created < $1 AND label = $2 AND tid = $3 RETURNING tid, label, seq)` + trimMark

// BackfillTTL registers the next page of items of an ENABLING table (see
// storage.TTLStore). It locks the catalog entry (FOR UPDATE) and the page's
// items (FOR SHARE), as BackfillIndex does, so a concurrent write of one
// of them either committed first (its image is the one registered) or
// waits and then maintains its row itself.
func (b *Backend) BackfillTTL(ctx context.Context, account, name string, gen int64, limit int) (bool, error) {
	limit = max(limit, 1)
	return b.ttlPage(ctx, account, name, storage.TTLEnabling, gen, func(tx pgx.Tx, t *storage.Table) (bool, error) {
		pt, err := newPhysTable(t, t.Version)
		if err != nil {
			return false, err
		}
		last, err := backfillPage(ctx, tx, pt, t.TTL.BackfillCursor, limit, func(batch *pgx.Batch, it item.Item) {
			if r := storage.TTLBackfillRow(t, it); r != nil {
				batch.Queue(putTTLRow, t.ID, r.ExpireAt, r.Key.PK, storage.StoredSK(r.Key.SK))
			}
		})
		if err != nil {
			return false, err
		}
		t.TTL.BackfillCursor = last
		if last == nil {
			t.TTL.Status = storage.TTLEnabled
		}
		return last == nil, storeEntry(ctx, tx, t)
	})
}

// ttlPage runs page, one page of the TTL transition of generation gen of
// table (account, name) towards status, in the transaction of the
// table's locked catalog entry, and commits it; page reports whether the
// transition is done. A table in another state or generation is done.
func (b *Backend) ttlPage(ctx context.Context, account, name, status string, gen int64, page func(tx pgx.Tx, t *storage.Table) (bool, error)) (done bool, err error) {
	err = b.inEntryTx(ctx, account, name, func(tx pgx.Tx, t *storage.Table) error {
		done = true
		if t.TTL.Status != status || t.TTL.Generation != gen {
			return nil
		}
		d, err := page(tx, t)
		if err != nil {
			return err
		}
		done = d
		return tx.Commit(ctx)
	})
	return done, err
}

// DrainTTL removes up to limit expiry rows of a DISABLING table and, when
// none remain, makes it DISABLED (see storage.TTLStore).
func (b *Backend) DrainTTL(ctx context.Context, account, name string, gen int64, limit int) (bool, error) {
	limit = max(limit, 1)
	return b.ttlPage(ctx, account, name, storage.TTLDisabling, gen, func(tx pgx.Tx, t *storage.Table) (bool, error) {
		tag, err := tx.Exec(ctx, `DELETE FROM ttl_rows WHERE tid = $1 AND (expire_at, pk, sk) IN
(SELECT expire_at, pk, sk FROM ttl_rows WHERE tid = $1 ORDER BY expire_at, pk, sk LIMIT $2)`, t.ID, limit)
		if err != nil || tag.RowsAffected() >= int64(limit) {
			return false, err
		}
		t.TTL.Status, t.TTL.AttributeName, t.TTL.BackfillCursor = storage.TTLDisabled, "", nil
		return true, storeEntry(ctx, tx, t)
	})
}

// ExpiredRows returns up to limit expiry rows of t with ExpireAt in
// (from, to].
func (b *Backend) ExpiredRows(ctx context.Context, t *storage.Table, from, to int64, limit int) ([]storage.TTLRow, error) {
	var out []storage.TTLRow
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		out = out[:0]
		rows, err := c.Query(ctx, "SELECT expire_at, pk, sk FROM ttl_rows WHERE tid = $1 AND expire_at > $2 AND expire_at <= $3 ORDER BY expire_at, pk, sk LIMIT $4", t.ID, from, to, max(limit, 1))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r storage.TTLRow
			var sk []byte
			if err := rows.Scan(&r.ExpireAt, &r.Key.PK, &sk); err != nil {
				return err
			}
			r.Key.SK = storage.LoadedSK(sk)
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// AcquireLease takes or renews lease name for owner: one upsert that only
// succeeds when the lease is free, expired or already owner's.
func (b *Backend) AcquireLease(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	ok := false
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		var got string
		err := c.QueryRow(ctx, `INSERT INTO leases (name, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
WHERE leases.owner = EXCLUDED.owner OR leases.expires_at < now()
RETURNING owner`, name, owner, ttl.Milliseconds()).Scan(&got)
		if errors.Is(err, pgx.ErrNoRows) {
			ok = false
			return nil
		}
		if err != nil {
			return fmt.Errorf("postgres: lease %s: %w", name, err)
		}
		ok = got == owner
		return nil
	})
	return ok, err
}
