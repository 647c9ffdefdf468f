package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Streams and Time to Live (storage.StreamStore, storage.TTLStore).
//
//	ttl_rows(tid, expire_at, pk, sk)            one per item with a Number TTL attribute
//	stream_records(seq, tid, label, created, rec)
//	                                            seq INTEGER PRIMARY KEY AUTOINCREMENT
//	stream_trims(tid, label, upto)              highest seq removed by trimming
//	history(tid, seq, created, rec)             change history (storage.HistoryLabel)
//
// The single writer commits in order and AUTOINCREMENT never reuses a
// number, so sequence numbers increase with commit order. History
// sequence numbers are the writer's own, per table (historySeq).

// writeDerived writes the expiry-row changes, the stream record and the
// history record of one item write of pt (old and nw as in
// storage.TTLChanges), inside the writer's transaction. nwBlob and oldBlob
// are the stored forms of nw and old (nil when absent), which the records
// reuse instead of encoding the images again.
func (w *writer) writeDerived(pt *physTable, old, nw item.Item, id *storage.UserIdentity, nwBlob, oldBlob []byte) error {
	del, put := storage.TTLChanges(pt.def, old, nw)
	if del != nil {
		if _, err := w.exec("DELETE FROM ttl_rows WHERE tid = ? AND expire_at = ? AND pk = ? AND sk = ?", pt.def.ID, del.ExpireAt, del.Key.PK, storage.StoredSK(del.Key.SK)); err != nil {
			return err
		}
	}
	if put != nil {
		if err := w.putTTLRow(pt.def.ID, put); err != nil {
			return err
		}
	}
	now := w.now()
	r, h := storage.ChangeRecords(pt.def, old, nw, id, now)
	if r != nil {
		if err := w.appendRecord(pt.def.ID, pt.def.LatestStreamLabel, r, nwBlob, oldBlob); err != nil {
			return err
		}
	}
	if h != nil {
		return w.appendHistory(pt.def.ID, h, oldBlob)
	}
	return nil
}

// appendHistory appends r to table tid's change history; oldBlob is the
// stored form of r.OldImage (nil to encode it).
func (w *writer) appendHistory(tid string, r *storage.StreamRecord, oldBlob []byte) error {
	n, err := w.historyNum(tid, true)
	if err != nil {
		return err
	}
	seq, err := w.historySeq(tid, n)
	if err != nil {
		return err
	}
	_, err = w.exec("INSERT INTO history_rows (id, created, rec) VALUES (?, ?, ?)",
		historyID(n, seq), r.CreatedAt.Unix(), storage.EncodeStreamRecordImages(r, nil, oldBlob))
	return err
}

// historySeqBits is the width of a history sequence number inside a
// history_rows ID: a table's history numbers its records up to 2^40-1.
const historySeqBits = 40

// historyID is the history_rows ID of record seq of the table numbered n.
func historyID(n, seq int64) int64 { return n<<historySeqBits | seq }

// historyNum returns table tid's number in history_tables, giving it the
// next free one when it has none and create is set (0 when it has none and
// create is not set). Numbers are cached until a rollback (forgetHistory).
func (w *writer) historyNum(tid string, create bool) (int64, error) {
	if n, ok := w.hnum[tid]; ok {
		return n, nil
	}
	s, err := w.stmt("SELECT n FROM history_tables WHERE tid = ?")
	if err != nil {
		return 0, err
	}
	var n int64
	switch err := s.QueryRow(tid).Scan(&n); {
	case errors.Is(err, sql.ErrNoRows):
		if !create {
			return 0, nil
		}
		s, err := w.stmt("INSERT INTO history_tables (tid, n) SELECT ?, coalesce(max(n), 0) + 1 FROM history_tables RETURNING n")
		if err != nil {
			return 0, err
		}
		if err := s.QueryRow(tid).Scan(&n); err != nil {
			return 0, mapErr(err)
		}
	case err != nil:
		return 0, mapErr(err)
	}
	w.hnum[tid] = n
	return n, nil
}

// forgetHistory drops the writer's cached history numbers: after a
// rollback, one given out by the rolled-back work may not exist.
func (w *writer) forgetHistory() { clear(w.hnum) }

// historySeq gives out the next sequence number of table tid's history
// (number n): above every one stored or trimmed, and above every one given
// out since the last reset (a rolled-back write leaves a gap, never a
// reuse).
func (w *writer) historySeq(tid string, n int64) (int64, error) {
	last, ok := w.hseq[tid]
	if !ok {
		s, err := w.stmt(`SELECT max(coalesce((SELECT max(id) FROM history_rows WHERE id > ?3 AND id < ?4), ?3) - ?3,
	coalesce((SELECT upto FROM stream_trims WHERE tid = ?1 AND label = ?2), 0))`)
		if err != nil {
			return 0, err
		}
		if err := s.QueryRow(tid, storage.HistoryLabel, historyID(n, 0), historyID(n+1, 0)).Scan(&last); err != nil {
			return 0, mapErr(err)
		}
	}
	if last+1 >= 1<<historySeqBits {
		return 0, fmt.Errorf("sqlite: the change history of table %s has run out of sequence numbers", tid)
	}
	w.hseq[tid] = last + 1
	return last + 1, nil
}

// appendRecord appends r to the stream (tid, label); nwBlob and oldBlob
// are the stored forms of its images (nil to encode them).
func (w *writer) appendRecord(tid, label string, r *storage.StreamRecord, nwBlob, oldBlob []byte) error {
	_, err := w.exec("INSERT INTO stream_records (tid, label, created, rec) VALUES (?, ?, ?, ?)",
		tid, label, r.CreatedAt.Unix(), storage.EncodeStreamRecordImages(r, nwBlob, oldBlob))
	return err
}

func (w *writer) putTTLRow(tid string, r *storage.TTLRow) error {
	_, err := w.exec("INSERT OR REPLACE INTO ttl_rows (tid, expire_at, pk, sk) VALUES (?, ?, ?, ?)", tid, r.ExpireAt, r.Key.PK, storage.StoredSK(r.Key.SK))
	return err
}

// dropDerived removes the expiry rows and stream records of table tid
// (DeleteTable).
func (w *writer) dropDerived(tid string) error {
	for _, q := range []string{
		"DELETE FROM ttl_rows WHERE tid = ?",
		"DELETE FROM stream_records WHERE tid = ?",
		"DELETE FROM stream_trims WHERE tid = ?",
	} {
		if _, err := w.exec(q, tid); err != nil {
			return err
		}
	}
	n, err := w.historyNum(tid, false)
	if err != nil || n == 0 {
		return err
	}
	if _, err := w.exec("DELETE FROM history_rows WHERE id > ? AND id < ?", historyID(n, 0), historyID(n+1, 0)); err != nil {
		return err
	}
	if _, err := w.exec("DELETE FROM history_tables WHERE tid = ?", tid); err != nil {
		return err
	}
	delete(w.hnum, tid)
	delete(w.hseq, tid)
	return nil
}

// ReadStream returns up to limit records of stream (tableID, label) after
// sequence number after.
func (b *Backend) ReadStream(ctx context.Context, tableID, label string, after uint64, limit int) ([]*storage.StreamRecord, error) {
	q, args := "SELECT seq, rec FROM stream_records WHERE tid = ? AND label = ? AND seq > ? ORDER BY seq LIMIT ?", []any{tableID, label, int64(after), max(limit, 1)}
	if label == storage.HistoryLabel {
		q, args = historyRead, []any{tableID, int64(after), max(limit, 1)}
	}
	return queryRows(ctx, b, q, func(rows *sql.Rows) (*storage.StreamRecord, error) {
		var seq int64
		var rec []byte
		if err := rows.Scan(&seq, &rec); err != nil {
			return nil, err
		}
		return storage.DecodeStreamRecord(rec, uint64(seq))
	}, args...)
}

// historyFrom is the FROM clause of table ?1's history records (h), each
// of sequence number h.id - (t.n << 40) (historySeqBits).
const historyFrom = "history_tables t JOIN history_rows h ON h.id > (t.n << 40) AND h.id < ((t.n + 1) << 40) WHERE t.tid = ?1"

// historyRead reads up to ?3 records of table ?1's history after sequence
// number ?2, in order.
const historyRead = "SELECT h.id - (t.n << 40), h.rec FROM " + historyFrom + " AND h.id > (t.n << 40) + ?2 ORDER BY h.id LIMIT ?3"

// StreamBounds reports the kept records of stream (tableID, label).
func (b *Backend) StreamBounds(ctx context.Context, tableID, label string) (storage.StreamBounds, error) {
	var out storage.StreamBounds
	if b.isClosed() {
		return out, storage.ErrClosed
	}
	seq, from := "seq", "stream_records WHERE tid = ?1 AND label = ?2"
	if label == storage.HistoryLabel {
		seq, from = "h.id - (t.n << 40)", historyFrom
	}
	s, err := b.readStmt(ctx, "SELECT coalesce(min("+seq+"), 0), coalesce(max("+seq+"), 0), (SELECT coalesce(max(upto), 0) FROM stream_trims WHERE tid = ?1 AND label = ?2) FROM "+from)
	if err != nil {
		return out, err
	}
	var first, last, trimmed int64
	if err := s.QueryRowContext(ctx, tableID, label).Scan(&first, &last, &trimmed); err != nil {
		return out, mapErr(err)
	}
	return storage.StreamBounds{First: uint64(first), Last: uint64(last), Trimmed: uint64(trimmed)}, nil
}

// TrimStreams removes the records created before cutoff, remembering per
// stream the highest sequence number removed. Change history is left to
// TrimHistory.
func (b *Backend) TrimStreams(ctx context.Context, cutoff time.Time) (int64, error) {
	return b.trimRecords(ctx, "created < ?1 AND label <> ?2", cutoff.Unix(), storage.HistoryLabel)
}

// TrimHistory removes table tableID's change history created before
// cutoff, remembering the highest sequence number removed.
func (b *Backend) TrimHistory(ctx context.Context, tableID string, cutoff time.Time) (int64, error) {
	var n int64
	err := b.submit(ctx, false, func(w *writer) error {
		n = 0
		num, err := w.historyNum(tableID, false)
		if err != nil || num == 0 {
			return err
		}
		lo, hi := historyID(num, 0), historyID(num+1, 0)
		// The history is clustered by sequence number, not time: the
		// records removed are those before the first one kept, found by
		// walking from the oldest, so a pass reads what it removes and one
		// record more (creation times follow sequence numbers, but for a
		// clock stepping back, which keeps a record a little longer).
		s, err := w.stmt("SELECT id FROM history_rows WHERE id > ? AND id < ? AND created >= ? ORDER BY id LIMIT 1")
		if err != nil {
			return err
		}
		bound := hi
		if err := s.QueryRow(lo, hi, cutoff.Unix()).Scan(&bound); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return mapErr(err)
		}
		if _, err := w.exec(`INSERT INTO stream_trims (tid, label, upto)
SELECT ?1, ?2, max(id) - ?3 FROM history_rows WHERE id > ?3 AND id < ?4 HAVING count(*) > 0
ON CONFLICT (tid, label) DO UPDATE SET upto = max(upto, excluded.upto)`, tableID, storage.HistoryLabel, lo, bound); err != nil {
			return err
		}
		n, err = w.execCount("DELETE FROM history_rows WHERE id > ? AND id < ?", lo, bound)
		return err
	})
	return n, err
}

// trimRecords removes the stream records matching where (over args),
// raising each stream's trim mark, in one write transaction.
func (b *Backend) trimRecords(ctx context.Context, where string, args ...any) (int64, error) {
	var n int64
	err := b.submit(ctx, false, func(w *writer) error {
		n = 0
		if _, err := w.exec(`INSERT INTO stream_trims (tid, label, upto)
SELECT tid, label, max(seq) FROM stream_records WHERE `+where+` GROUP BY tid, label
ON CONFLICT (tid, label) DO UPDATE SET upto = max(upto, excluded.upto)`, args...); err != nil {
			return err
		}
		var err error
		n, err = w.execCount("DELETE FROM stream_records WHERE "+where, args...)
		return err
	})
	return n, err
}

// ttlPage is entryPage for one page of the TTL transition of generation
// gen towards status: a table in another state or generation is done.
func (b *Backend) ttlPage(ctx context.Context, account, name, status string, gen int64, page func(w *writer, cur *storage.Table, done *bool) error) (bool, error) {
	return b.entryPage(ctx, account, name, func(w *writer, cur *storage.Table, done *bool) error {
		if cur.TTL.Status != status || cur.TTL.Generation != gen {
			return nil
		}
		return page(w, cur, done)
	})
}

// BackfillTTL registers the next page of items of an ENABLING table (see
// storage.TTLStore). The single writer serialises the page with every item
// write, so each row derives from the committed image.
func (b *Backend) BackfillTTL(ctx context.Context, account, name string, gen int64, limit int) (bool, error) {
	if limit <= 0 {
		limit = 256
	}
	return b.ttlPage(ctx, account, name, storage.TTLEnabling, gen, func(w *writer, cur *storage.Table, done *bool) error {
		pt, err := newPhysTable(cur)
		if err != nil {
			return err
		}
		var h int64 = -1
		pk, sk := []byte{}, []byte{}
		if c := cur.TTL.BackfillCursor; c != nil {
			h, pk, sk = int64(item.PartitionHash(c.PK)), storage.StoredSK(c.PK), storage.StoredSK(c.SK)
		}
		s, err := w.stmt("SELECT h, pk, sk, item FROM " + pt.name + " WHERE (h, pk, sk) > (?, ?, ?) ORDER BY h, pk, sk LIMIT ?")
		if err != nil {
			return err
		}
		rows, err := s.Query(h, pk, sk, limit)
		if err != nil {
			return mapErr(err)
		}
		var regs []*storage.TTLRow
		n := 0
		for rows.Next() {
			var blob []byte
			if err := rows.Scan(&h, &pk, &sk, &blob); err != nil {
				rows.Close()
				return err
			}
			n++
			it, err := item.UnmarshalItem(blob)
			if err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: corrupt item in table %s: %w", name, err)
			}
			if r := storage.TTLBackfillRow(cur, it); r != nil {
				regs = append(regs, r)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return mapErr(err)
		}
		for _, r := range regs {
			if err := w.putTTLRow(cur.ID, r); err != nil {
				return err
			}
		}
		if n < limit {
			cur.TTL.Status, cur.TTL.BackfillCursor = storage.TTLEnabled, nil
		} else {
			cur.TTL.BackfillCursor = &storage.Key{PK: append([]byte(nil), pk...), SK: storage.LoadedSK(append([]byte(nil), sk...))}
			*done = false
		}
		return w.storeTable(cur)
	})
}

// DrainTTL removes up to limit expiry rows of a DISABLING table and, when
// none remain, makes it DISABLED (see storage.TTLStore).
func (b *Backend) DrainTTL(ctx context.Context, account, name string, gen int64, limit int) (bool, error) {
	if limit <= 0 {
		limit = 256
	}
	return b.ttlPage(ctx, account, name, storage.TTLDisabling, gen, func(w *writer, cur *storage.Table, done *bool) error {
		n, err := w.execCount(`DELETE FROM ttl_rows WHERE tid = ?1 AND (expire_at, pk, sk) IN
(SELECT expire_at, pk, sk FROM ttl_rows WHERE tid = ?1 ORDER BY expire_at, pk, sk LIMIT ?2)`, cur.ID, limit)
		if err != nil {
			return err
		}
		if n >= int64(limit) {
			*done = false
			return nil
		}
		cur.TTL.Status, cur.TTL.AttributeName, cur.TTL.BackfillCursor = storage.TTLDisabled, "", nil
		return w.storeTable(cur)
	})
}

// ExpiredRows returns up to limit expiry rows of t with ExpireAt in
// (from, to].
func (b *Backend) ExpiredRows(ctx context.Context, t *storage.Table, from, to int64, limit int) ([]storage.TTLRow, error) {
	const q = "SELECT expire_at, pk, sk FROM ttl_rows WHERE tid = ? AND expire_at > ? AND expire_at <= ? ORDER BY expire_at, pk, sk LIMIT ?"
	return queryRows(ctx, b, q, func(rows *sql.Rows) (storage.TTLRow, error) {
		var r storage.TTLRow
		var sk []byte
		err := rows.Scan(&r.ExpireAt, &r.Key.PK, &sk)
		r.Key.SK = storage.LoadedSK(sk)
		return r, err
	}, t.ID, from, to, max(limit, 1))
}
