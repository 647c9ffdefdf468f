package cassandra

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// pageSize is the driver's page size for range reads.
const pageSize = 200

// bound is one end of a clustering range: a prefix of the clustering
// columns' values (Cassandra compares blobs as unsigned bytes, as the
// encoded keys need) and whether the end is included.
type bound struct {
	vals [][]byte
	incl bool
}

// tighter returns the more restrictive of two bounds of the same end
// (lower when lower is set); nil means unbounded.
func tighter(a, b *bound, lower bool) *bound {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	n := min(len(a.vals), len(b.vals))
	for i := 0; i < n; i++ {
		if c := bytes.Compare(a.vals[i], b.vals[i]); c != 0 {
			if (c > 0) == lower {
				return a
			}
			return b
		}
	}
	switch {
	case len(a.vals) == len(b.vals):
		if !a.incl {
			return a
		}
		return b
	case len(a.vals) < len(b.vals): // a is a prefix of b
		if a.incl {
			return b
		}
		return a
	default:
		if b.incl {
			return a
		}
		return b
	}
}

// condBounds turns a sort-key condition into bounds on the first
// clustering column.
func condBounds(c storage.KeyCondition) (lo, hi *bound, err error) {
	one := func(i int, incl bool) *bound { return &bound{vals: [][]byte{c.Values[i]}, incl: incl} }
	need := 1
	if c.Op == "BETWEEN" {
		need = 2
	}
	if c.Op != "" && len(c.Values) < need {
		return nil, nil, fmt.Errorf("cassandra: key condition %s needs %d values", c.Op, need)
	}
	switch c.Op {
	case "":
	case "EQ":
		lo, hi = one(0, true), one(0, true)
	case "LT":
		hi = one(0, false)
	case "LE":
		hi = one(0, true)
	case "GT":
		lo = one(0, false)
	case "GE":
		lo = one(0, true)
	case "BETWEEN":
		lo, hi = one(0, true), one(1, true)
	case "BEGINS_WITH":
		lo = one(0, true)
		if s := storage.Successor(c.Values[0]); s != nil {
			hi = &bound{vals: [][]byte{s}}
		}
	default:
		return nil, nil, fmt.Errorf("cassandra: unknown key condition %q", c.Op)
	}
	return lo, hi, nil
}

// rangeWhere renders lo and hi as CQL restrictions on the clustering
// columns cols. Both ends use one-column syntax when they restrict only
// the first column, and tuple syntax otherwise (CQL does not mix the two).
func rangeWhere(cols []string, lo, hi *bound) (string, []any) {
	tuple := (lo != nil && len(lo.vals) > 1) || (hi != nil && len(hi.vals) > 1)
	var parts []string
	var args []any
	add := func(bd *bound, op string) {
		if bd == nil {
			return
		}
		if bd.incl {
			op += "="
		}
		n := len(bd.vals)
		if tuple {
			parts = append(parts, fmt.Sprintf("(%s) %s (%s)", strings.Join(cols[:n], ", "), op, strings.TrimSuffix(strings.Repeat("?, ", n), ", ")))
		} else {
			parts = append(parts, cols[0]+" "+op+" ?")
		}
		for _, v := range bd.vals {
			args = append(args, v)
		}
	}
	add(lo, ">")
	add(hi, "<")
	if len(parts) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(parts, " AND "), args
}

// empty reports whether no clustering prefix lies between lo and hi.
func empty(lo, hi *bound) bool {
	if lo == nil || hi == nil {
		return false
	}
	n := min(len(lo.vals), len(hi.vals))
	for i := 0; i < n; i++ {
		if c := bytes.Compare(lo.vals[i], hi.vals[i]); c != 0 {
			return c > 0
		}
	}
	if len(lo.vals) == len(hi.vals) {
		return !lo.incl || !hi.incl
	}
	// One is a prefix of the other: the longer lies inside the shorter's
	// group, so the range is empty only when the shorter excludes it.
	if len(lo.vals) < len(hi.vals) {
		return !lo.incl
	}
	return !hi.incl
}

// source is the table a Query or Scan reads: the items table or one index.
type source struct {
	table string
	ix    *storage.Index // nil for the items table
	ixID  string         // directory name: "" or the index's physical ID
	raw   bool           // hand rows over undecoded (storage.Row.Raw)
}

// source returns the table a read of t, or of its index named index when
// that is not "", goes to; raw hands its rows over undecoded.
func (b *Backend) source(t *storage.Table, p phys, index string, raw bool) (source, error) {
	if index == "" {
		return source{table: p.items, raw: raw}, nil
	}
	ix := t.Index(index)
	if ix == nil {
		return source{}, fmt.Errorf("cassandra: table %s has no index %s", t.Name, index)
	}
	return source{table: p.index[index], ix: ix, ixID: physID(ix.ID), raw: raw}, nil
}

func (s source) partCol() string {
	if s.ix == nil {
		return "pk"
	}
	return "ipk"
}

func (s source) clustering() []string {
	if s.ix == nil {
		return []string{"sk"}
	}
	return []string{"isk", "pk", "sk"}
}

// startBound is the clustering position of an exclusive start.
func (s source) startBound(pos *storage.Position) *bound {
	if s.ix == nil {
		return &bound{vals: [][]byte{storage.StoredSK(pos.Key.SK)}}
	}
	return &bound{vals: [][]byte{storage.StoredSK(pos.IndexKey.SK), pos.Key.PK, storage.StoredSK(pos.Key.SK)}}
}

// readPartition visits the rows of partition pk of s between lo and hi;
// it returns false when visit stopped the read.
func (b *Backend) readPartition(ctx context.Context, s source, pk []byte, lo, hi *bound, forward bool, cl gocql.Consistency, visit storage.VisitFunc) (bool, error) {
	if empty(lo, hi) {
		return true, nil
	}
	cols := s.clustering()
	where, args := rangeWhere(cols, lo, hi)
	stmt := "SELECT " + strings.Join(cols, ", ") + ", item, size FROM " + s.table + " WHERE " + s.partCol() + " = ?" + where
	if !forward {
		stmt += " ORDER BY " + strings.Join(cols, " DESC, ") + " DESC"
	}
	iter := b.s.Query(stmt, append([]any{pk}, args...)...).WithContext(ctx).Consistency(cl).PageSize(pageSize).Iter()
	var isk, rpk, rsk, blob []byte
	var size int
	dest := []any{&rsk, &blob, &size}
	if s.ix != nil {
		dest = []any{&isk, &rpk, &rsk, &blob, &size}
	}
	// The driver appends into a non-nil destination slice, so each row
	// starts from nil slices: the rows handed out keep their own bytes.
	for ; iter.Scan(dest...); isk, rpk, rsk, blob = nil, nil, nil, nil {
		if blob == nil {
			continue // a deleted item's row (mutate.go)
		}
		if s.raw { // no position (storage.Row.Raw)
			if !visit(storage.Row{Raw: blob, Size: size}) {
				return false, iter.Close()
			}
			continue
		}
		it, err := item.UnmarshalItem(blob)
		if err != nil {
			iter.Close()
			return false, fmt.Errorf("cassandra: corrupt row in %s: %w", s.table, err)
		}
		r := storage.Row{Item: it, Size: size}
		if s.ix == nil {
			r.Pos.Key = storage.Key{PK: pk, SK: storage.LoadedSK(rsk)}
		} else {
			r.Pos.Key = storage.Key{PK: rpk, SK: storage.LoadedSK(rsk)}
			r.Pos.IndexKey = storage.Key{PK: pk, SK: storage.LoadedSK(isk)}
		}
		if !visit(r) {
			return false, iter.Close()
		}
	}
	return true, iter.Close()
}

// readConsistency is QUORUM, which reads every write acknowledged before,
// unless the read may be eventually consistent and Options.EventualReadsAtOne
// allows ONE.
func (b *Backend) readConsistency(consistent bool) gocql.Consistency {
	if !consistent && b.opts.EventualReadsAtOne {
		return gocql.One
	}
	return gocql.Quorum
}

// Query visits one partition of the table or an index by a clustering
// range, descending with ORDER BY ... DESC; ExclusiveStart narrows the
// range, so pages need no driver paging state.
func (b *Backend) Query(ctx context.Context, t *storage.Table, q *storage.QueryRequest, visit storage.VisitFunc) error {
	p := b.phys(t)
	s, err := b.source(t, p, q.Index, q.Raw)
	if err != nil {
		return err
	}
	lo, hi, err := condBounds(q.SK)
	if err != nil {
		return err
	}
	if q.ExclusiveStart != nil {
		st := s.startBound(q.ExclusiveStart)
		if q.Forward {
			lo = tighter(lo, st, true)
		} else {
			hi = tighter(hi, st, false)
		}
	}
	err = b.withTable(ctx, t, func() error {
		_, err := b.readPartition(ctx, s, q.PK, lo, hi, q.Forward, b.readConsistency(q.Consistent), visit)
		return err
	})
	return wrap("query", err)
}

// Scan visits a table or index in (partition hash, partition key,
// clustering) order: the hash directory lists partitions by (hash, key) in
// 256 buckets of the hash range, and each partition is read in clustering
// order. Segment k of N covers the hashes [k*2^32/N, (k+1)*2^32/N).
func (b *Backend) Scan(ctx context.Context, t *storage.Table, sr *storage.ScanRequest, visit storage.VisitFunc) error {
	p := b.phys(t)
	s, err := b.source(t, p, sr.Index, sr.Raw)
	if err != nil {
		return err
	}
	lo, hi, err := storage.SegmentHashRange(sr)
	if err != nil {
		return err
	}
	cl := b.readConsistency(sr.Consistent)
	err = b.withTable(ctx, t, func() error {
		return b.scan(ctx, s, p, uint64(lo), uint64(hi), sr.ExclusiveStart, cl, visit)
	})
	return wrap("scan", err)
}

func (b *Backend) scan(ctx context.Context, s source, p phys, lo, hi uint64, start *storage.Position, cl gocql.Consistency, visit storage.VisitFunc) error {
	l := &dirListing{ix: s.ixID, lo: lo, hi: hi, cl: cl}
	if start != nil {
		l.start = storage.ScanStartPK(start, s.ix != nil)
		l.startH = uint64(item.PartitionHash(l.start))
		if l.startH < lo || l.startH >= hi {
			return fmt.Errorf("cassandra: scan start outside its segment")
		}
		// The rest of the start's partition, then the partitions after it.
		more, err := b.readPartition(ctx, s, l.start, s.startBound(start), nil, true, cl, visit)
		if err != nil || !more {
			return err
		}
	}
	for bk, last := l.buckets(); bk <= last; bk++ {
		more, err := eachPartition(b.listedPartitions(ctx, p, l, bk), func(pk []byte) (bool, error) {
			return b.readPartition(ctx, s, pk, nil, nil, true, cl, visit)
		})
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// dirListing is a read of a hash directory, one bucket at a time
// (listedPartitions): the partitions of ix ("" for the items table) whose
// 32-bit hashes lie in [lo, hi), after the partition start (whose hash is
// startH) when start is not nil, in (hash, key) order, at consistency cl.
type dirListing struct {
	ix     string
	lo, hi uint64
	start  []byte
	startH uint64
	cl     gocql.Consistency
}

// tableListing lists, at QUORUM, the items table's partitions after the
// partition of cursor (nil: all of them).
func tableListing(cursor *storage.Key) *dirListing {
	l := &dirListing{hi: 1 << 32, cl: gocql.Quorum}
	if cursor != nil {
		l.start, l.startH = cursor.PK, uint64(item.PartitionHash(cursor.PK))
	}
	return l
}

// buckets returns the first and the last bucket l reads.
func (l *dirListing) buckets() (first, last uint64) {
	first = l.lo >> bucketShift
	if l.start != nil {
		first = l.startH >> bucketShift
	}
	return first, (l.hi - 1) >> bucketShift
}

// listedPartitions returns an iterator over the partition keys l lists in
// bucket bk of p's hash directory.
func (b *Backend) listedPartitions(ctx context.Context, p phys, l *dirListing, bk uint64) *gocql.Iter {
	stmt := `SELECT pk FROM ` + p.dir + ` WHERE ix = ? AND b = ?`
	args := []any{l.ix, int(bk)}
	if l.start != nil && bk == l.startH>>bucketShift {
		stmt += ` AND (h, pk) > (?, ?) AND (h) < (?)`
		args = append(args, int64(l.startH), l.start, int64(l.hi))
	} else {
		stmt += ` AND h >= ? AND h < ?`
		args = append(args, int64(l.lo), int64(l.hi))
	}
	return b.s.Query(stmt, args...).WithContext(ctx).Consistency(l.cl).PageSize(pageSize).Iter()
}

// eachPartition calls each with the partition key of every row of iter, a
// read of a hash directory's pk column, until each returns false or an
// error, and closes iter. It returns false when each stopped it.
func eachPartition(iter *gocql.Iter, each func(pk []byte) (bool, error)) (bool, error) {
	var pk []byte
	for ; iter.Scan(&pk); pk = nil {
		more, err := each(pk)
		if err != nil || !more {
			iter.Close()
			return false, err
		}
	}
	return true, iter.Close()
}

// Stats counts the items and adds up their sizes with a full read of the
// items table's size column: exact, and as slow as a scan.
func (b *Backend) Stats(ctx context.Context, t *storage.Table) (storage.TableStats, error) {
	p := b.phys(t)
	var st storage.TableStats
	err := b.withTable(ctx, t, func() error {
		st = storage.TableStats{}
		iter := b.s.Query(`SELECT size FROM ` + p.items).WithContext(ctx).PageSize(1000).Iter()
		var size int64
		for iter.Scan(&size) {
			if size > 0 { // not a deleted item's row (every item has a size)
				st.ItemCount++
				st.SizeBytes += size
			}
		}
		return iter.Close()
	})
	return st, wrap("stats", err)
}
