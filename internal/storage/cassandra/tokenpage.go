package cassandra

import (
	"bytes"
	"context"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// Token pages (docs/adr/0018f): the TTL backfill reads the items table in
// Cassandra's own order, by token of the partition key and then by sort
// key, with one range read per page, instead of listing the partitions in
// the hash directory and reading each on its own (one read per item in a
// table whose partitions hold one item). Cassandra orders partitions by
// token and partitions of one token by their key's bytes (unsigned); a
// cursor (the last key of a page) resumes after itself in that order: the
// rest of its partition, then the partitions of its token whose keys sort
// after it (two keys of one token are rare, but possible), then the
// tokens after it.

// readTokenPage reads up to limit rows of the items table at QUORUM
// (tombstones included, with a nil item), with their versions and keys, in
// token order after cursor (nil: from the start). Rows after cursor that
// the page leaves out are read by the page started from its last key.
func (b *Backend) readTokenPage(ctx context.Context, p phys, cursor *storage.Key, limit int) ([]keyedItem, error) {
	var out []keyedItem
	stmt := `SELECT pk, sk, item, version FROM ` + p.items
	var args []any
	if cursor != nil {
		rest, err := b.readPartRows(ctx, p, cursor.PK, storage.StoredSK(cursor.SK), limit)
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
		if len(out) < limit {
			if out, err = b.readSameToken(ctx, p, cursor.PK, out, limit); err != nil {
				return nil, err
			}
		}
		stmt += ` WHERE token(pk) > token(?)`
		args = append(args, cursor.PK)
	}
	if len(out) >= limit {
		return out[:limit], nil
	}
	n := limit - len(out)
	stmt += ` LIMIT ?`
	args = append(args, n)
	iter := b.s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.Quorum).PageSize(min(n, 1000)).Iter()
	return scanKeyedItems(iter, p, out)
}

// readSameToken appends to out, up to limit rows in all, the rows of the
// partitions that share pk's token and whose keys sort after pk, in
// Cassandra's order.
func (b *Backend) readSameToken(ctx context.Context, p phys, pk []byte, out []keyedItem, limit int) ([]keyedItem, error) {
	iter := b.s.Query(`SELECT DISTINCT pk FROM `+p.items+` WHERE token(pk) = token(?)`, pk).
		WithContext(ctx).Consistency(gocql.Quorum).Iter()
	var after [][]byte
	var other []byte
	for ; iter.Scan(&other); other = nil {
		if bytes.Compare(other, pk) > 0 {
			after = append(after, other)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, err
	}
	// The query returns them in Cassandra's order already.
	for _, o := range after {
		if len(out) >= limit {
			break
		}
		rows, err := b.readPartRows(ctx, p, o, nil, limit-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// BackfillOrder returns the keys of the live items of table (account,
// name) in the order BackfillTTL registers them (token order, above), for
// tests that plant a backfill cursor and must know which items come after
// it. It reads the whole table: keep it to small tables. Errors:
// storage.ErrTableNotFound, storage.ErrClosed, backend failures.
func (b *Backend) BackfillOrder(ctx context.Context, account, name string) ([]storage.Key, error) {
	t, err := b.GetTable(ctx, account, name)
	if err != nil {
		return nil, err
	}
	var out []storage.Key
	var cursor *storage.Key
	const page = 1000
	for {
		var rows []keyedItem
		err := b.withTable(ctx, t, func() error {
			var err error
			rows, err = b.readTokenPage(ctx, b.phys(t), cursor, page)
			return err
		})
		if err != nil {
			return nil, wrap("backfill order", err)
		}
		for _, r := range rows {
			if r.it != nil {
				out = append(out, r.key)
			}
		}
		if len(rows) < page {
			return out, nil
		}
		cursor = &rows[len(rows)-1].key
	}
}
