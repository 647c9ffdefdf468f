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

// keyedItem is a row of a page read: the item (nil for a tombstone), its
// version and its key.
type keyedItem struct {
	pageItem
	key storage.Key
}

// readPartRows reads up to n rows of partition pk of the items table at
// QUORUM, after sort key after (nil: from the start), with their versions.
func (b *Backend) readPartRows(ctx context.Context, p phys, pk, after []byte, n int) ([]keyedItem, error) {
	stmt := `SELECT pk, sk, item, version FROM ` + p.items + ` WHERE pk = ?`
	args := []any{pk}
	if after != nil {
		stmt += ` AND sk > ?`
		args = append(args, after)
	}
	stmt += ` LIMIT ?`
	args = append(args, n)
	iter := b.s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.Quorum).PageSize(min(n, pageSize)).Iter()
	return scanKeyedItems(iter, p, nil)
}

// scanKeyedItems appends the rows of iter, a read of the columns pk, sk,
// item and version of p's items table, to out, and closes iter. Errors: a
// corrupt item, the read's.
func scanKeyedItems(iter *gocql.Iter, p phys, out []keyedItem) ([]keyedItem, error) {
	var pk, sk, blob []byte
	var ver int64
	for ; iter.Scan(&pk, &sk, &blob, &ver); pk, sk, blob = nil, nil, nil {
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
