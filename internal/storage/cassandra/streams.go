package cassandra

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// DynamoDB Streams (storage.StreamStore). The records live in the catalog
// keyspace, since ReadStream names a stream by table ID alone:
//
//	stream_records ((tid, label, bucket), version, h, pk, sk) rec
//	stream_buckets ((tid), label, bucket)       the buckets that hold records
//	stream_trims   ((tid), label) upto_version, upto_h
//
// A record is written after its item's fenced write is known to have
// applied (with the index batch, see writeDerived), under a primary key
// derived from the write alone: the table, the stream label, the item's
// key and the new version. Writing it again (a retry, or an attempt whose
// uncertain outcome turned out applied) rewrites the same cell, so every
// applied write has exactly one record. bucket is the version's hour;
// retention trimming removes whole buckets.
//
// The sequence number is version<<seqHashBits | h, where h is a hash of the
// item's key: versions of one item increase with every write, so one
// item's records are in write order; across items, records are in version
// order, which is commit order up to the frontends' clock skew (see
// docs/adr/0003-cassandra-backend.md).

const (
	// seqHashBits low bits of a sequence number separate the records of
	// different items written at the same microsecond.
	seqHashBits = 12
	// streamBucket is the span of versions (µs) of one record partition.
	streamBucket = int64(time.Hour / time.Microsecond)
)

// keyHash is the h of a record of the item with this key.
func keyHash(key storage.Key) int {
	f := fnv.New64a()
	f.Write(binary.AppendUvarint(nil, uint64(len(key.PK))))
	f.Write(key.PK)
	f.Write(key.SK)
	return int(f.Sum64() & (1<<seqHashBits - 1))
}

func seqOf(version int64, h int) uint64 { return uint64(version)<<seqHashBits | uint64(h) }

func splitSeq(seq uint64) (version int64, h int) {
	return int64(seq >> seqHashBits), int(seq & (1<<seqHashBits - 1))
}

// writeDerived writes what one applied item write (old -> nw at version
// ver) adds besides the item and its index rows: the expiry-row changes of
// a table whose TTL is maintained, and the stream record of a table whose
// stream is enabled. Both are idempotent, so a retried or resolved write
// may run it again.
func (b *Backend) writeDerived(ctx context.Context, t *storage.Table, key storage.Key, old, nw item.Item, ver int64) error {
	if err := b.writeTTLChanges(ctx, t, old, nw, ver); err != nil {
		return fmt.Errorf("cassandra: expiry rows of a committed write (version %d): %w", ver, err)
	}
	// The records' time comes from the version, so that every writing of
	// them stores the same bytes.
	at := time.UnixMicro(ver)
	r, h := storage.ChangeRecords(t, old, nw, storage.UserIdentityFrom(ctx), at)
	if r != nil {
		if err := b.appendRecord(ctx, t.ID, t.LatestStreamLabel, key, ver, r); err != nil {
			return err
		}
	}
	if h != nil {
		return b.appendRecord(ctx, t.ID, storage.HistoryLabel, key, ver, h)
	}
	return nil
}

// appendRecord writes r, of the item write at version ver, to the stream
// (tid, label). It is idempotent.
func (b *Backend) appendRecord(ctx context.Context, tid, label string, key storage.Key, ver int64, r *storage.StreamRecord) error {
	k := b.catalog
	bucket := ver / streamBucket
	err := b.retry(ctx, func() error {
		return b.s.Query(`INSERT INTO `+k+`.stream_buckets (tid, label, bucket) VALUES (?, ?, ?) USING TIMESTAMP ?`,
			tid, label, bucket, ver).WithContext(ctx).Idempotent(true).Exec()
	})
	if err == nil {
		err = b.retry(ctx, func() error {
			return b.s.Query(`INSERT INTO `+k+`.stream_records (tid, label, bucket, version, h, pk, sk, rec) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
				tid, label, bucket, ver, keyHash(key), key.PK, storage.StoredSK(key.SK), storage.EncodeStreamRecord(r), ver).
				WithContext(ctx).Idempotent(true).Exec()
		})
	}
	if err != nil {
		return fmt.Errorf("cassandra: %s record of a committed write (version %d): %w", label, ver, err)
	}
	return nil
}

// streamBuckets lists the buckets of stream (tid, label) from bucket from
// on, ascending.
func (b *Backend) streamBuckets(ctx context.Context, tid, label string, from int64) ([]int64, error) {
	iter := b.s.Query(`SELECT bucket FROM `+b.catalog+`.stream_buckets WHERE tid = ? AND label = ? AND bucket >= ?`, tid, label, from).
		WithContext(ctx).PageSize(1000).Iter()
	return scanColumn[int64](iter)
}

// ReadStream returns up to limit records of stream (tableID, label) after
// sequence number after, bucket by bucket.
func (b *Backend) ReadStream(ctx context.Context, tableID, label string, after uint64, limit int) ([]*storage.StreamRecord, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	limit = max(limit, 1)
	av, ah := splitSeq(after)
	buckets, err := b.streamBuckets(ctx, tableID, label, av/streamBucket)
	if err != nil {
		return nil, wrap("read stream", err)
	}
	var out []*storage.StreamRecord
	for _, bk := range buckets {
		iter := b.s.Query(`SELECT version, h, rec FROM `+b.catalog+`.stream_records
			WHERE tid = ? AND label = ? AND bucket = ? AND (version, h) > (?, ?) LIMIT ?`,
			tableID, label, bk, av, ah, limit-len(out)).WithContext(ctx).PageSize(pageSize).Iter()
		var ver int64
		var h int
		var rec []byte
		for ; iter.Scan(&ver, &h, &rec); rec = nil {
			r, err := storage.DecodeStreamRecord(rec, seqOf(ver, h))
			if err != nil {
				iter.Close()
				return nil, err
			}
			out = append(out, r)
		}
		if err := iter.Close(); err != nil {
			return nil, wrap("read stream", err)
		}
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// StreamBounds reports the first and last kept records of stream
// (tableID, label) and how far it was trimmed.
func (b *Backend) StreamBounds(ctx context.Context, tableID, label string) (storage.StreamBounds, error) {
	var out storage.StreamBounds
	if b.closed.Load() {
		return out, storage.ErrClosed
	}
	k := b.catalog
	var uv int64
	var uh int
	err := b.s.Query(`SELECT upto_version, upto_h FROM `+k+`.stream_trims WHERE tid = ? AND label = ?`, tableID, label).
		WithContext(ctx).Scan(&uv, &uh)
	switch {
	case err == nil:
		if uv > 0 {
			out.Trimmed = seqOf(uv, uh)
		}
	case !errors.Is(err, gocql.ErrNotFound):
		return out, wrap("stream bounds", err)
	}
	buckets, err := b.streamBuckets(ctx, tableID, label, 0)
	if err != nil {
		return out, wrap("stream bounds", err)
	}
	edge := func(bk int64, order string) (uint64, error) {
		var v int64
		var h int
		err := b.s.Query(`SELECT version, h FROM `+k+`.stream_records WHERE tid = ? AND label = ? AND bucket = ?
			ORDER BY version `+order+`, h `+order+` LIMIT 1`, tableID, label, bk).WithContext(ctx).Scan(&v, &h)
		if errors.Is(err, gocql.ErrNotFound) {
			return 0, nil
		}
		return seqOf(v, h), err
	}
	for _, bk := range buckets {
		if out.First, err = edge(bk, "ASC"); err != nil || out.First != 0 {
			break
		}
	}
	for i := len(buckets) - 1; i >= 0 && err == nil; i-- {
		if out.Last, err = edge(buckets[i], "DESC"); out.Last != 0 {
			break
		}
	}
	return out, wrap("stream bounds", err)
}

// TrimStreams removes, in every stream but the change histories, the
// buckets that end at or before cutoff (so a record is kept for its
// retention and at most one bucket more) and raises each stream's trim
// mark to the highest sequence number removed. The mark is written with
// that record's version as its write timestamp, so the highest mark wins
// whatever order trims run in.
func (b *Backend) TrimStreams(ctx context.Context, cutoff time.Time) (int64, error) {
	if b.closed.Load() {
		return 0, storage.ErrClosed
	}
	iter := b.s.Query(`SELECT tid, label, bucket FROM ` + b.catalog + `.stream_buckets`).WithContext(ctx).PageSize(1000).Iter()
	return b.trimBuckets(ctx, iter, cutoff, func(label string) bool { return label != storage.HistoryLabel })
}

// TrimHistory removes the buckets of table tableID's change history that
// end at or before cutoff, as TrimStreams does for streams.
func (b *Backend) TrimHistory(ctx context.Context, tableID string, cutoff time.Time) (int64, error) {
	if b.closed.Load() {
		return 0, storage.ErrClosed
	}
	iter := b.s.Query(`SELECT tid, label, bucket FROM `+b.catalog+`.stream_buckets WHERE tid = ? AND label = ?`,
		tableID, storage.HistoryLabel).WithContext(ctx).PageSize(1000).Iter()
	return b.trimBuckets(ctx, iter, cutoff, func(string) bool { return true })
}

type bucketRef struct {
	tid, label string
	bucket     int64
}

// trimBuckets removes the buckets iter lists (tid, label, bucket) whose
// label keep accepts and that end at or before cutoff.
func (b *Backend) trimBuckets(ctx context.Context, iter *gocql.Iter, cutoff time.Time, keep func(label string) bool) (int64, error) {
	var due []bucketRef
	var r bucketRef
	for iter.Scan(&r.tid, &r.label, &r.bucket) {
		if keep(r.label) && (r.bucket+1)*streamBucket <= cutoff.UnixMicro() {
			due = append(due, r)
		}
	}
	if err := iter.Close(); err != nil {
		return 0, wrap("trim streams", err)
	}
	var total int64
	for _, d := range due {
		n, err := b.trimBucket(ctx, d)
		if err != nil {
			return total, wrap("trim streams", err)
		}
		total += n
	}
	return total, nil
}

// trimBucket raises d's stream trim mark to its highest record, then
// deletes its records and its bucket entry, returning how many it held.
func (b *Backend) trimBucket(ctx context.Context, d bucketRef) (int64, error) {
	k := b.catalog
	var n, v int64
	var h int
	it := b.s.Query(`SELECT version, h FROM `+k+`.stream_records WHERE tid = ? AND label = ? AND bucket = ?`,
		d.tid, d.label, d.bucket).WithContext(ctx).PageSize(1000).Iter()
	var rv int64
	var rh int
	for it.Scan(&rv, &rh) {
		n++
		v, h = rv, rh // clustering order: the last is the highest
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	err := b.retry(ctx, func() error {
		if n == 0 {
			return nil
		}
		return b.s.Query(`INSERT INTO `+k+`.stream_trims (tid, label, upto_version, upto_h) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
			d.tid, d.label, v, h, v).WithContext(ctx).Idempotent(true).Exec()
	})
	if err == nil {
		err = b.retry(ctx, func() error {
			return b.s.Query(`DELETE FROM `+k+`.stream_records WHERE tid = ? AND label = ? AND bucket = ?`,
				d.tid, d.label, d.bucket).WithContext(ctx).Idempotent(true).Exec()
		})
	}
	if err == nil {
		err = b.retry(ctx, func() error {
			return b.s.Query(`DELETE FROM `+k+`.stream_buckets WHERE tid = ? AND label = ? AND bucket = ?`,
				d.tid, d.label, d.bucket).WithContext(ctx).Idempotent(true).Exec()
		})
	}
	return n, err
}

// dropDerived removes the stream records and expiry rows of table tid
// (after DeleteTable dropped its tables).
func (b *Backend) dropDerived(ctx context.Context, tid string) error {
	k := b.catalog
	var stmts [][]any
	iter := b.s.Query(`SELECT label, bucket FROM `+k+`.stream_buckets WHERE tid = ?`, tid).WithContext(ctx).PageSize(1000).Iter()
	var label string
	var bk int64
	for iter.Scan(&label, &bk) {
		stmts = append(stmts, []any{`DELETE FROM ` + k + `.stream_records WHERE tid = ? AND label = ? AND bucket = ?`, tid, label, bk})
	}
	if err := iter.Close(); err != nil {
		return err
	}
	iter = b.s.Query(`SELECT gen FROM `+k+`.ttl_gens WHERE tid = ?`, tid).WithContext(ctx).Iter()
	var gen int64
	for iter.Scan(&gen) {
		for sh := range ttlShards {
			stmts = append(stmts, []any{`DELETE FROM ` + k + `.ttl_rows WHERE tid = ? AND gen = ? AND shard = ?`, tid, gen, sh})
		}
	}
	if err := iter.Close(); err != nil {
		return err
	}
	for _, tbl := range []string{"stream_buckets", "stream_trims", "ttl_gens"} {
		stmts = append(stmts, []any{`DELETE FROM ` + k + `.` + tbl + ` WHERE tid = ?`, tid})
	}
	for _, st := range stmts {
		err := b.retry(ctx, func() error {
			return b.s.Query(st[0].(string), st[1:]...).WithContext(ctx).Idempotent(true).Exec()
		})
		if err != nil {
			return fmt.Errorf("cassandra: remove stream records and expiry rows of table %s: %w", tid, err)
		}
	}
	return nil
}
