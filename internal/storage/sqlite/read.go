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

// Reads run on the read-only pool. Every acknowledged write is committed
// before it is acknowledged, and each read is one statement on one WAL
// snapshot, so all reads are strongly consistent: the Consistent flags
// change nothing.

// GetItem returns the committed item with key in t, or nil when absent.
// Errors: storage.ErrTableNotFound when t's physical table is gone,
// storage.ErrClosed, SQLite errors.
func (b *Backend) GetItem(ctx context.Context, t *storage.Table, key storage.Key, consistent bool) (item.Item, error) {
	if b.isClosed() {
		return nil, storage.ErrClosed
	}
	s, err := b.getItemStmt(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	var blob []byte
	if err := s.QueryRowContext(ctx, int64(item.PartitionHash(key.PK)), key.PK, storage.StoredSK(key.SK)).Scan(&blob); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, mapErr(err)
	}
	return decodeItem(blob)
}

// getItemStmt returns the statement, prepared on a reader connection,
// that reads the item of key (h, pk, sk) of table id.
func (b *Backend) getItemStmt(ctx context.Context, id string) (*sql.Stmt, error) {
	name, err := storage.ItemsTableName(id)
	if err != nil {
		return nil, err
	}
	return b.readStmt(ctx, "SELECT item FROM "+name+" WHERE h = ? AND pk = ? AND sk = ?")
}

func decodeItem(blob []byte) (item.Item, error) {
	it, err := item.UnmarshalItem(blob)
	if err != nil {
		return nil, fmt.Errorf("sqlite: corrupt item: %w", err)
	}
	return it, nil
}

// Query visits the rows of partition q.PK of t (or of index q.Index) whose
// sort key satisfies q.SK, in ascending (q.Forward) or descending sort-key
// order; on an index, rows sharing an index sort key are ordered by table
// key. It starts after q.ExclusiveStart when set and stops when visit
// returns false. Errors: an unknown index or a bad condition, wrapped
// storage.ErrTableNotFound for a vanished table, SQLite errors.
func (b *Backend) Query(ctx context.Context, t *storage.Table, q *storage.QueryRequest, visit storage.VisitFunc) error {
	src, err := b.source(t, q.Index)
	if err != nil {
		return err
	}
	skCol := "sk"
	if src.Index {
		skCol = "isk"
	}
	lo, hi, err := storage.SortKeyRange(q.SK)
	if err != nil {
		return err
	}
	// The start position replaces the bound on its side when it is at least
	// as tight, so that SQLite seeks to it instead of filtering up to it:
	// each side keeps exactly one range constraint.
	var startSQL string
	var startArgs []any
	if st := q.ExclusiveStart; st != nil {
		cmp := ">"
		if !q.Forward {
			cmp = "<"
		}
		if src.Index {
			startSQL = " AND (isk, pk, sk) " + cmp + " (?, ?, ?)"
			startArgs = []any{storage.StoredSK(st.IndexKey.SK), storage.StoredSK(st.Key.PK), storage.StoredSK(st.Key.SK)}
		} else {
			startSQL = " AND sk " + cmp + " ?"
			startArgs = []any{storage.StoredSK(st.Key.SK)}
		}
		if !storage.StartSupersedes(st, src.Index, q.Forward, &lo, &hi) {
			startSQL, startArgs = "", nil
		}
	}
	var sb strings.Builder
	args := []any{int64(item.PartitionHash(q.PK)), q.PK}
	sb.WriteString("SELECT " + readCols(src, q.Raw) + " FROM " + src.Name + " WHERE h = ? AND " + src.PKCol + " = ?")
	for _, bd := range []storage.SortBound{lo, hi} {
		if bd.Op != "" {
			sb.WriteString(" AND " + skCol + " " + bd.Op + " ?")
			args = append(args, bd.V)
		}
	}
	sb.WriteString(startSQL)
	args = append(args, startArgs...)
	sb.WriteString(storage.SQLQueryOrder(src.Index, q.Forward))
	return b.visitRows(ctx, sb.String(), args, src.Index, q.Raw, visit)
}

// Scan visits the rows of t (or of index s.Index) in partition-hash order:
// (h, partition key, sort key[, table key]) ascending. Segment k of N covers
// the hashes [k*2^32/N, (k+1)*2^32/N). It starts after s.ExclusiveStart when
// set and stops when visit returns false. Errors as for Query, plus a
// Segment outside [0, TotalSegments).
func (b *Backend) Scan(ctx context.Context, t *storage.Table, s *storage.ScanRequest, visit storage.VisitFunc) error {
	src, err := b.source(t, s.Index)
	if err != nil {
		return err
	}
	lo, hi, err := storage.SegmentHashRange(s)
	if err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString("SELECT " + readCols(src, s.Raw) + " FROM " + src.Name + " WHERE h < ?")
	args := []any{hi}
	// A start inside the segment replaces its lower bound, so SQLite seeks
	// to it; a start before the segment is irrelevant.
	st := s.ExclusiveStart
	startPK := storage.ScanStartPK(st, src.Index)
	switch {
	case st != nil && int64(item.PartitionHash(startPK)) >= lo && src.Index:
		sb.WriteString(" AND (h, ipk, isk, pk, sk) > (?, ?, ?, ?, ?)")
		args = append(args, int64(item.PartitionHash(startPK)), storage.StoredSK(st.IndexKey.PK), storage.StoredSK(st.IndexKey.SK), storage.StoredSK(st.Key.PK), storage.StoredSK(st.Key.SK))
	case st != nil && int64(item.PartitionHash(startPK)) >= lo:
		sb.WriteString(" AND (h, pk, sk) > (?, ?, ?)")
		args = append(args, int64(item.PartitionHash(startPK)), storage.StoredSK(st.Key.PK), storage.StoredSK(st.Key.SK))
	default:
		sb.WriteString(" AND h >= ?")
		args = append(args, lo)
	}
	sb.WriteString(storage.SQLScanOrder(src.Index))
	return b.visitRows(ctx, sb.String(), args, src.Index, s.Raw, visit)
}

// Stats returns t's committed item count and total stored size in bytes
// (item.Size of each item); storage.ErrTableNotFound if t is gone.
func (b *Backend) Stats(ctx context.Context, t *storage.Table) (storage.TableStats, error) {
	if b.isClosed() {
		return storage.TableStats{}, storage.ErrClosed
	}
	s, err := b.readStmt(ctx, "SELECT item_count, size_bytes FROM table_stats WHERE id = ?")
	if err != nil {
		return storage.TableStats{}, err
	}
	var st storage.TableStats
	if err := s.QueryRowContext(ctx, t.ID).Scan(&st.ItemCount, &st.SizeBytes); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return st, storage.ErrTableNotFound
		}
		return st, mapErr(err)
	}
	return st, nil
}

// readCols are the columns a read of src selects: a raw read's rows carry
// no position (storage.Row.Raw).
func readCols(src storage.SQLSource, raw bool) string {
	if raw {
		return "item, size"
	}
	return src.Cols
}

// visitRows runs a read statement and streams its rows to visit; with raw,
// undecoded and in the driver's buffers (storage.Row.Raw).
func (b *Backend) visitRows(ctx context.Context, query string, args []any, index, raw bool, visit storage.VisitFunc) error {
	s, err := b.readStmt(ctx, query)
	if err != nil {
		return err
	}
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	// The stored item is read in place: decodeItem copies what it keeps,
	// so the driver's buffer need not be copied first. The destinations
	// are set up once, not per row.
	var r storage.Row
	var blob sql.RawBytes
	var size int64
	dest := []any{&blob, &size}
	switch {
	case raw:
	case index:
		dest = []any{&r.Pos.IndexKey.PK, &r.Pos.IndexKey.SK, &r.Pos.Key.PK, &r.Pos.Key.SK, &blob, &size}
	default:
		dest = []any{&r.Pos.Key.PK, &r.Pos.Key.SK, &blob, &size}
	}
	for rows.Next() {
		r = storage.Row{}
		if err = rows.Scan(dest...); err != nil {
			return mapErr(err)
		}
		if raw {
			r.Raw = blob
		} else {
			r.Pos.Key.SK = storage.LoadedSK(r.Pos.Key.SK)
			r.Pos.IndexKey.SK = storage.LoadedSK(r.Pos.IndexKey.SK)
			if r.Item, err = decodeItem(blob); err != nil {
				return err
			}
		}
		r.Size = int(size)
		if !visit(r) {
			return nil
		}
	}
	return mapErr(rows.Err())
}

// source returns the physical table a read of t, or of its index named
// index when that is not "", goes to. Errors: storage.ErrClosed once the
// backend is closed, and storage.SQLSourceOf's.
func (b *Backend) source(t *storage.Table, index string) (storage.SQLSource, error) {
	if b.isClosed() {
		return storage.SQLSource{}, storage.ErrClosed
	}
	return storage.SQLSourceOf(t, index)
}
