package cassandra

import (
	"context"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Bulk work: the pieces that let background passes and multi-item
// requests keep many round trips in flight instead of waiting for each in
// turn (docs/adr/0018a). Every write keeps the fence, the write timestamp
// and the intent it has alone; only the waiting between them goes.

// writeParallelism is how many independent single-item writes callers run
// at once (storage.ParallelWriter): each is a read, an intent, a
// lightweight transaction and its derived rows, so a caller that waited
// for each in turn would leave the cluster idle. 64 rather than 16: a
// BatchWriteItem call then writes all its items at once, and the expiry
// pass, one writer alone, keeps the node busy (docs/adr/0018e).
const writeParallelism = 64

// WriteParallelism implements storage.ParallelWriter.
func (b *Backend) WriteParallelism() int { return writeParallelism }

// pageWave bounds the partitions a page reads at once.
const pageWave = 16

// keyedItem is a row of a page read: the item (nil for a tombstone), its
// version and its key.
type keyedItem struct {
	pageItem
	key storage.Key
}

// readPartRows reads up to n rows of partition pk of the items table at
// QUORUM, after sort key after (nil: from the start), with their versions.
func (b *Backend) readPartRows(ctx context.Context, p phys, pk, after []byte, n int) ([]keyedItem, error) {
	stmt := `SELECT sk, item, version FROM ` + p.items + ` WHERE pk = ?`
	args := []any{pk}
	if after != nil {
		stmt += ` AND sk > ?`
		args = append(args, after)
	}
	stmt += ` LIMIT ?`
	args = append(args, n)
	iter := b.s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.Quorum).PageSize(min(n, pageSize)).Iter()
	var out []keyedItem
	var sk, blob []byte
	var ver int64
	for ; iter.Scan(&sk, &blob, &ver); sk, blob = nil, nil {
		r := keyedItem{pageItem: pageItem{version: ver}, key: storage.Key{PK: pk, SK: storage.LoadedSK(sk)}}
		if blob != nil {
			var err error
			if r.it, err = item.UnmarshalItem(blob); err != nil {
				iter.Close()
				return nil, fmt.Errorf("cassandra: corrupt item in %s: %w", p.items, err)
			}
		}
		out = append(out, r)
	}
	return out, iter.Close()
}

// pageReader assembles a page of up to limit rows in scan order, reading
// the partitions the directory lists pageWave at a time.
type pageReader struct {
	b       *Backend
	p       phys
	limit   int
	out     []keyedItem
	pending [][]byte // partitions listed, not read yet, in scan order
}

func (r *pageReader) full() bool { return len(r.out) >= r.limit }

func (r *pageReader) add(rows []keyedItem) {
	r.out = append(r.out, rows[:min(len(rows), r.limit-len(r.out))]...)
}

// flush reads the pending partitions until none is left or the page is
// full. A wave reads from each partition an equal share of the rows still
// needed plus one; a partition that gives more than its share may hold
// more still, so it is read to its end (or the page's) on its own and the
// partitions after it in the wave are read again in the next wave,
// keeping scan order and bounding a wave's rows by what the page still
// needs plus two per partition.
func (r *pageReader) flush(ctx context.Context) error {
	for len(r.pending) > 0 && !r.full() {
		need := r.limit - len(r.out)
		w := min(len(r.pending), need, pageWave)
		share := max(1, need/w)
		res := make([][]keyedItem, w)
		err := parallel(ctx, w, func(j int) error {
			var err error
			res[j], err = r.b.readPartRows(ctx, r.p, r.pending[j], nil, share+1)
			return err
		})
		if err != nil {
			return err
		}
		read := w
		for j := 0; j < w && !r.full(); j++ {
			r.add(res[j])
			if len(res[j]) > share && !r.full() {
				last := res[j][len(res[j])-1].key
				rest, err := r.b.readPartRows(ctx, r.p, last.PK, storage.StoredSK(last.SK), r.limit-len(r.out))
				if err != nil {
					return err
				}
				r.add(rest)
				read = j + 1
				break
			}
		}
		r.pending = r.pending[read:]
	}
	return nil
}

// readPageParallel is readItemPage with the partitions of a page read up
// to pageWave at once: up to limit rows of the items table at QUORUM
// (tombstones included, with a nil item), with versions and keys, in scan
// order after cursor (nil: from the start).
func (b *Backend) readPageParallel(ctx context.Context, p phys, cursor *storage.Key, limit int) ([]keyedItem, error) {
	r := &pageReader{b: b, p: p, limit: limit}
	if cursor != nil {
		rows, err := b.readPartRows(ctx, p, cursor.PK, storage.StoredSK(cursor.SK), limit)
		if err != nil {
			return nil, err
		}
		r.add(rows)
	}
	l := tableListing(cursor)
	for bk, last := l.buckets(); bk <= last && !r.full(); bk++ {
		iter := b.listedPartitions(ctx, p, l, bk)
		var pk []byte
		for ; !r.full() && iter.Scan(&pk); pk = nil {
			r.pending = append(r.pending, pk)
			if len(r.pending) >= pageWave {
				if err := r.flush(ctx); err != nil {
					iter.Close()
					return nil, err
				}
			}
		}
		if err := iter.Close(); err != nil {
			return nil, err
		}
	}
	if err := r.flush(ctx); err != nil {
		return nil, err
	}
	return r.out, nil
}

// ttlBatchRows bounds the statements of one unlogged batch of expiry rows,
// and ttlBatchBytes their key bytes, well below Cassandra's batch size
// limits.
const (
	ttlBatchRows  = 64
	ttlBatchBytes = 24 << 10
)

// writeTTLRows writes the expiry rows of generation gen of t, each stamped
// USING TIMESTAMP its item's version, after recording gen in ttl_gens: one
// unlogged batch per shard (a single partition of ttl_rows, so the batch
// is one mutation on one replica set) and chunk, the batches at once.
func (b *Backend) writeTTLRows(ctx context.Context, t *storage.Table, gen int64, rows []storage.TTLRow, versions []int64) error {
	if len(rows) == 0 {
		return nil
	}
	k := b.catalog
	if err := b.retry(ctx, func() error {
		return b.s.Query(`INSERT INTO `+k+`.ttl_gens (tid, gen) VALUES (?, ?)`, t.ID, gen).WithContext(ctx).Idempotent(true).Exec()
	}); err != nil {
		return err
	}
	var shards [ttlShards][]int
	for i, r := range rows {
		sh := ttlShard(r.Key.PK)
		shards[sh] = append(shards[sh], i)
	}
	var batches []*gocql.Batch
	for sh, idx := range shards {
		var batch *gocql.Batch
		used := 0
		for _, i := range idx {
			r := rows[i]
			size := len(r.Key.PK) + len(r.Key.SK)
			if batch == nil || batch.Size() >= ttlBatchRows || used+size > ttlBatchBytes {
				batch = b.s.Batch(gocql.UnloggedBatch)
				batches = append(batches, batch)
				used = 0
			}
			used += size
			batch.Query(`INSERT INTO `+k+`.ttl_rows (tid, gen, shard, expire_at, pk, sk) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
				t.ID, gen, sh, r.ExpireAt, r.Key.PK, storage.StoredSK(r.Key.SK), versions[i])
		}
	}
	return parallel(ctx, len(batches), func(i int) error {
		return b.retry(ctx, func() error { return batches[i].WithContext(ctx).Exec() })
	})
}
