package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Reads go to the one primary and every acknowledged write is committed
// before it is acknowledged, so all reads are strongly consistent: the
// Consistent flags change nothing. Query and Scan read in chunks (keyset
// pagination: each chunk starts after the last row of the one before), so
// a visitor that stops early never makes the server produce, nor the
// connection drain, the rest of a large range. Each chunk is one statement
// on one snapshot; like DynamoDB's, a long read is not one snapshot.

// Chunk sizes of Query and Scan: the first chunk is small (a Limit 1 query
// reads little), later ones grow to chunkMax.
const (
	chunkMin = 16
	chunkMax = 1024
)

// GetItem returns the committed item with key in t, or nil when absent.
// Errors: storage.ErrTableNotFound when t's physical table is gone,
// storage.ErrClosed, SQL errors.
func (b *Backend) GetItem(ctx context.Context, t *storage.Table, key storage.Key, consistent bool) (item.Item, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	name, err := storage.ItemsTableName(t.ID)
	if err != nil {
		return nil, err
	}
	var blob []byte
	err = b.pool.QueryRow(ctx, "SELECT item FROM "+name+" WHERE h = $1 AND pk = $2 AND sk = $3",
		int64(item.PartitionHash(key.PK)), key.PK, storage.StoredSK(key.SK)).Scan(&blob)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err)
	}
	return decodeItem(blob)
}

// Query visits the rows of partition q.PK of t (or of index q.Index) whose
// sort key satisfies q.SK, in ascending (q.Forward) or descending sort-key
// order; on an index, rows sharing an index sort key are ordered by table
// key. It starts after q.ExclusiveStart when set and stops when visit
// returns false. Errors: an unknown index (wrapped
// storage.ErrTableNotFound) or a bad condition, wrapped
// storage.ErrTableNotFound for a vanished table, SQL errors.
func (b *Backend) Query(ctx context.Context, t *storage.Table, q *storage.QueryRequest, visit storage.VisitFunc) error {
	src, err := b.source(t, q.Index)
	if err != nil {
		return err
	}
	lo, hi, err := storage.SortKeyRange(q.SK)
	if err != nil {
		return err
	}
	build := func(start *storage.Position, limit int) (string, []any) {
		return src.querySQL(q, lo, hi, start, limit)
	}
	return b.visitChunks(ctx, build, q.ExclusiveStart, src.Index, q.Raw, visit)
}

// querySQL builds one chunk of a Query: at most limit rows after start.
func (src rowSource) querySQL(q *storage.QueryRequest, lo, hi storage.SortBound, start *storage.Position, limit int) (string, []any) {
	skCol := "sk"
	if src.Index {
		skCol = "isk"
	}
	var a args
	var sb strings.Builder
	sb.WriteString("SELECT " + src.Cols + " FROM " + src.Name + " WHERE h = " + a.add(int64(item.PartitionHash(q.PK))) +
		" AND " + src.PKCol + " = " + a.add(q.PK))
	// The start position replaces the bound on its side when it is at least
	// as tight, so each side keeps one range constraint and the index scan
	// starts at the tighter one.
	if start != nil && storage.StartSupersedes(start, src.Index, q.Forward, &lo, &hi) {
		cmp := ">"
		if !q.Forward {
			cmp = "<"
		}
		if src.Index {
			sb.WriteString(" AND (isk, pk, sk) " + cmp + " (" + a.add(storage.StoredSK(start.IndexKey.SK)) + ", " + a.add(storage.StoredSK(start.Key.PK)) + ", " + a.add(storage.StoredSK(start.Key.SK)) + ")")
		} else {
			sb.WriteString(" AND sk " + cmp + " " + a.add(storage.StoredSK(start.Key.SK)))
		}
	}
	for _, bd := range []storage.SortBound{lo, hi} {
		if bd.Op != "" {
			sb.WriteString(" AND " + skCol + " " + bd.Op + " " + a.add(bd.V))
		}
	}
	sb.WriteString(storage.SQLQueryOrder(src.Index, q.Forward))
	sb.WriteString(" LIMIT " + a.add(limit))
	return sb.String(), a
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
	build, err := src.segmentChunks(s)
	if err != nil {
		return err
	}
	return b.visitChunks(ctx, build, s.ExclusiveStart, src.Index, s.Raw, visit)
}

// segmentChunks returns the builder of the chunks of a Scan of segment
// s.Segment of s.TotalSegments (scanSQL). Errors: a segment outside
// [0, TotalSegments).
func (src rowSource) segmentChunks(s *storage.ScanRequest) (func(start *storage.Position, limit int) (string, []any), error) {
	lo, hi, err := storage.SegmentHashRange(s)
	if err != nil {
		return nil, err
	}
	return func(start *storage.Position, limit int) (string, []any) {
		return src.scanSQL(lo, hi, start, limit)
	}, nil
}

// scanSQL builds one chunk of a Scan of the hashes [lo, hi): at most limit
// rows after start.
func (src rowSource) scanSQL(lo, hi int64, start *storage.Position, limit int) (string, []any) {
	var a args
	var sb strings.Builder
	sb.WriteString("SELECT " + src.Cols + " FROM " + src.Name + " WHERE h < " + a.add(hi))
	// A start inside the segment replaces its lower bound; a start before
	// the segment is irrelevant.
	switch sh := int64(item.PartitionHash(storage.ScanStartPK(start, src.Index))); {
	case start != nil && sh >= lo && src.Index:
		sb.WriteString(" AND (h, ipk, isk, pk, sk) > (" + a.add(sh) + ", " + a.add(storage.StoredSK(start.IndexKey.PK)) + ", " +
			a.add(storage.StoredSK(start.IndexKey.SK)) + ", " + a.add(storage.StoredSK(start.Key.PK)) + ", " + a.add(storage.StoredSK(start.Key.SK)) + ")")
	case start != nil && sh >= lo:
		sb.WriteString(" AND (h, pk, sk) > (" + a.add(sh) + ", " + a.add(storage.StoredSK(start.Key.PK)) + ", " + a.add(storage.StoredSK(start.Key.SK)) + ")")
	default:
		sb.WriteString(" AND h >= " + a.add(lo))
	}
	sb.WriteString(storage.SQLScanOrder(src.Index))
	sb.WriteString(" LIMIT " + a.add(limit))
	return sb.String(), a
}

// Stats returns t's item count and total stored size in bytes (item.Size
// of each item), counted now: exact, and linear in the table's size.
// Errors: storage.ErrTableNotFound if t is gone, SQL errors.
func (b *Backend) Stats(ctx context.Context, t *storage.Table) (storage.TableStats, error) {
	var st storage.TableStats
	if b.closed.Load() {
		return st, storage.ErrClosed
	}
	name, err := storage.ItemsTableName(t.ID)
	if err != nil {
		return st, err
	}
	err = b.pool.QueryRow(ctx, "SELECT count(*), coalesce(sum(size), 0)::bigint FROM "+name).Scan(&st.ItemCount, &st.SizeBytes)
	return st, mapErr(err)
}

// args collects the parameters of a statement being built.
type args []any

// add appends v and returns its placeholder.
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// rowSource is the physical table a read goes to.
type rowSource storage.SQLSource

// source returns the physical table a read of t, or of its index named
// index when that is not "", goes to. Errors: storage.ErrClosed once the
// backend is closed, and storage.SQLSourceOf's.
func (b *Backend) source(t *storage.Table, index string) (rowSource, error) {
	if b.closed.Load() {
		return rowSource{}, storage.ErrClosed
	}
	src, err := storage.SQLSourceOf(t, index)
	return rowSource(src), err
}

// visitChunks streams the rows of a read to visit, one chunk (statement)
// at a time: build returns the statement for at most limit rows after
// start. It stops when visit returns false or a chunk comes back short.
// With raw, rows are handed over undecoded (storage.Row.Raw).
func (b *Backend) visitChunks(ctx context.Context, build func(start *storage.Position, limit int) (string, []any), start *storage.Position, index, raw bool, visit storage.VisitFunc) error {
	return visitChunksOn(ctx, b.pool, build, start, index, raw, visit)
}

// querier runs a read statement: the pool (each chunk on its own
// snapshot) or a transaction (every chunk on the transaction's).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// visitChunksOn is visitChunks through q.
func visitChunksOn(ctx context.Context, q querier, build func(start *storage.Position, limit int) (string, []any), start *storage.Position, index, raw bool, visit storage.VisitFunc) error {
	limit := chunkMin
	for {
		query, a := build(start, limit)
		rows, err := q.Query(ctx, query, a...)
		if err != nil {
			return mapErr(err)
		}
		n := 0
		var last storage.Position
		stop := false
		for rows.Next() {
			var r storage.Row
			var blob []byte
			var size int64
			if index {
				err = rows.Scan(&r.Pos.IndexKey.PK, &r.Pos.IndexKey.SK, &r.Pos.Key.PK, &r.Pos.Key.SK, &blob, &size)
				r.Pos.IndexKey.SK = storage.LoadedSK(r.Pos.IndexKey.SK)
			} else {
				err = rows.Scan(&r.Pos.Key.PK, &r.Pos.Key.SK, &blob, &size)
			}
			if err == nil && raw {
				r.Raw = blob
			} else if err == nil {
				r.Item, err = decodeItem(blob)
			}
			if err != nil {
				rows.Close()
				return mapErr(err)
			}
			r.Pos.Key.SK = storage.LoadedSK(r.Pos.Key.SK)
			r.Size = int(size)
			n++
			last = r.Pos
			if raw {
				r.Pos = storage.Position{} // a raw row carries no position
			}
			if !visit(r) {
				// The rest of this chunk is at most limit rows: drained by
				// Close, never the rest of the range.
				stop = true
				break
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return mapErr(err)
		}
		if stop || n < limit {
			return nil
		}
		start = &last
		limit = min(2*limit, chunkMax)
	}
}
