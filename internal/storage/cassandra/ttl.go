package cassandra

import (
	"bytes"
	"context"
	"slices"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Time to Live (storage.TTLStore). Expiry rows form a sharded queue in the
// catalog keyspace, keyed by the TTL's enable generation:
//
//	ttl_rows ((tid, gen, shard), expire_at, pk, sk)
//	ttl_gens ((tid), gen)          the generations that have rows
//
// An item's row is in shard PartitionHash(pk) % ttlShards of the
// generation its table's TTL had when the row was written. Like index
// rows, rows are written after the item's fenced write with the item's
// version as write timestamp, so a later version's delete or insert wins
// whatever order they arrive in; a backfill page stamps each row with the
// version of the image it read, so a concurrent write's delete wins over
// it. A generation that is no longer current is never read again: rows a
// stale writer adds after a drain cannot reach a later enable.

// ttlShards is the number of partitions of one generation's queue.
const ttlShards = 16

func ttlShard(pk []byte) int { return int(item.PartitionHash(pk) % ttlShards) }

// writeTTLChanges applies storage.TTLChanges of one write at version ver.
func (b *Backend) writeTTLChanges(ctx context.Context, t *storage.Table, old, nw item.Item, ver int64) error {
	del, put := storage.TTLChanges(t, old, nw)
	if del == nil && put == nil {
		return nil
	}
	k := b.catalog
	gen := t.TTL.Generation
	batch := b.s.Batch(gocql.LoggedBatch)
	if del != nil {
		batch.Query(`DELETE FROM `+k+`.ttl_rows USING TIMESTAMP ? WHERE tid = ? AND gen = ? AND shard = ? AND expire_at = ? AND pk = ? AND sk = ?`,
			ver, t.ID, gen, ttlShard(del.Key.PK), del.ExpireAt, del.Key.PK, storage.StoredSK(del.Key.SK))
	}
	if put != nil {
		batch.Query(`INSERT INTO `+k+`.ttl_gens (tid, gen) VALUES (?, ?) USING TIMESTAMP ?`, t.ID, gen, ver)
		batch.Query(`INSERT INTO `+k+`.ttl_rows (tid, gen, shard, expire_at, pk, sk) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
			t.ID, gen, ttlShard(put.Key.PK), put.ExpireAt, put.Key.PK, storage.StoredSK(put.Key.SK), ver)
	}
	return b.retry(ctx, func() error { return batch.WithContext(ctx).Exec() })
}

// ExpiredRows returns up to limit expiry rows of t (of its current
// generation) with ExpireAt in (from, to], merging the shards in
// (ExpireAt, key) order.
func (b *Backend) ExpiredRows(ctx context.Context, t *storage.Table, from, to int64, limit int) ([]storage.TTLRow, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	limit = max(limit, 1)
	// The shards are read at once; each gives at most limit rows.
	shards := make([][]storage.TTLRow, ttlShards)
	err := parallel(ctx, ttlShards, func(sh int) error {
		iter := b.s.Query(`SELECT expire_at, pk, sk FROM `+b.catalog+`.ttl_rows
			WHERE tid = ? AND gen = ? AND shard = ? AND expire_at > ? AND expire_at <= ? LIMIT ?`,
			t.ID, t.TTL.Generation, sh, from, to, limit).WithContext(ctx).PageSize(1000).Iter()
		var r storage.TTLRow
		var pk, sk []byte
		for ; iter.Scan(&r.ExpireAt, &pk, &sk); pk, sk = nil, nil {
			r.Key = storage.Key{PK: pk, SK: storage.LoadedSK(sk)}
			shards[sh] = append(shards[sh], r)
		}
		return iter.Close()
	})
	if err != nil {
		return nil, wrap("expired rows", err)
	}
	var out []storage.TTLRow
	for _, rows := range shards {
		out = append(out, rows...)
	}
	slices.SortFunc(out, func(a, c storage.TTLRow) int {
		switch {
		case a.ExpireAt < c.ExpireAt:
			return -1
		case a.ExpireAt > c.ExpireAt:
			return 1
		}
		if d := bytes.Compare(a.Key.PK, c.Key.PK); d != 0 {
			return d
		}
		return bytes.Compare(a.Key.SK, c.Key.SK)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ttlLive reports whether a TTL page for status and generation gen is
// still to run on a table.
func ttlLive(status string, gen int64) func(t *storage.Table) bool {
	return func(t *storage.Table) bool { return t.TTL.Status == status && t.TTL.Generation == gen }
}

// ttlPageTable reads the entry of table (account, name) for a backfill or
// drain page: nil and no error when the page is not live (the job is
// done). Errors: storage.ErrClosed, storage.ErrTableNotFound, cluster
// failures.
func (b *Backend) ttlPageTable(ctx context.Context, account, name string, live func(t *storage.Table) bool) (*storage.Table, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	t, err := b.currentTable(ctx, account, name)
	if err != nil || !live(t) {
		return nil, err
	}
	return t, nil
}

// TokenOrder is the storage.TimeToLive.BackfillOrder of the cursors
// BackfillTTL stores: positions in token order (tokenpage.go).
const TokenOrder = "token"

// tokenCursor returns the position in token order a backfill resumes
// after: ttl's cursor when it is one (TokenOrder), else nil, the start. A
// cursor without an order was stored by a release whose backfill read in
// scan order; resuming after it in token order would skip the items
// before it in token order and after it in scan order, so the backfill
// starts again from the beginning instead (registering an item twice
// writes the same expiry row again: docs/adr/0018g).
func tokenCursor(ttl storage.TimeToLive) *storage.Key {
	if ttl.BackfillOrder != TokenOrder {
		return nil
	}
	return ttl.BackfillCursor
}

// afterTTLGrace waits backfillGrace, then reads the entry of table
// (account, name) again at SERIAL: nil and no error when the backfill's
// generation is no longer live. The first page of a backfill reads its
// items only then, so that a write that commits after that read derives
// its expiry rows from an entry with the TTL maintained (freshEntry,
// index_online.go), as an index build does for its index: a write on an
// entry loaded before the TTL was ENABLING would otherwise keep no row
// for an item the page had already passed. A ctx that ends during the
// wait ends the call with its error, having registered nothing.
func (b *Backend) afterTTLGrace(ctx context.Context, account, name string, live func(t *storage.Table) bool) (*storage.Table, error) {
	if err := sleepCtx(ctx, b.backfillGrace()); err != nil {
		return nil, err
	}
	t, err := b.readTable(ctx, account, name, gocql.Serial)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, storage.ErrTableNotFound
	}
	if !live(t) {
		return nil, nil
	}
	return t, nil
}

// BackfillTTL registers the next page of items of an ENABLING table (see
// storage.TTLStore): it reads up to limit item rows after the cursor in
// Cassandra's token order, with their images and versions at QUORUM, in
// one range read (tombstones count towards the page, as in BackfillIndex;
// readTokenPage), writes each item's expiry row stamped with that version
// (unlogged batches per shard, writeTTLRows), and then stores the cursor
// with its order, TokenOrder (or the ENABLED state), with an update
// fenced on the catalog entry it read, so on the live generation: a page
// racing DeleteTable or a newer UpdateTimeToLive stores nothing. A cursor
// of another order restarts the backfill (tokenCursor). The first page
// (no cursor) waits backfillGrace first (afterTTLGrace).
func (b *Backend) BackfillTTL(ctx context.Context, account, name string, gen int64, limit int) (bool, error) {
	limit = max(limit, 1)
	live := ttlLive(storage.TTLEnabling, gen)
	t, err := b.ttlPageTable(ctx, account, name, live)
	if t != nil && t.TTL.BackfillCursor == nil {
		t, err = b.afterTTLGrace(ctx, account, name, live)
	}
	if t == nil {
		return err == nil, err
	}
	start := t.TTL.BackfillCursor
	var rows []keyedItem
	err = b.withTable(ctx, t, func() error {
		var err error
		rows, err = b.readTokenPage(ctx, b.phys(t), tokenCursor(t.TTL), limit)
		return err
	})
	if err == nil {
		err = b.backfillRows(ctx, t, gen, rows)
	}
	if err != nil {
		return false, wrap("ttl backfill", err)
	}
	done := len(rows) < limit
	_, err = b.updateEntryIf(ctx, account, name, func(cur *storage.Table) bool {
		// Fenced on the generation and on the cursor this page started
		// from: a page another worker stored first is not stored again.
		if !live(cur) || !sameKeyPtr(cur.TTL.BackfillCursor, start) || cur.TTL.BackfillOrder != t.TTL.BackfillOrder {
			done = !live(cur)
			return false
		}
		if done {
			cur.TTL.Status, cur.TTL.BackfillCursor, cur.TTL.BackfillOrder = storage.TTLEnabled, nil, ""
		} else {
			last := rows[len(rows)-1].key
			cur.TTL.BackfillCursor, cur.TTL.BackfillOrder = &last, TokenOrder
		}
		return true
	})
	return done && err == nil, err
}

// backfillRows writes the expiry rows of the items of a page (those that
// hold a Number TTL attribute; tombstones have none), each stamped with
// the version of the image read, so that a concurrent write's own expiry
// row change (at a higher version) wins in either order.
func (b *Backend) backfillRows(ctx context.Context, t *storage.Table, gen int64, page []keyedItem) error {
	var rows []storage.TTLRow
	var versions []int64
	for _, r := range page {
		if r.it == nil {
			continue
		}
		if row := storage.TTLBackfillRow(t, r.it); row != nil {
			rows = append(rows, *row)
			versions = append(versions, r.version)
		}
	}
	return b.writeTTLRows(ctx, t, gen, rows, versions)
}

// DrainTTL removes up to limit expiry rows of a DISABLING table, of every
// generation, and when fewer remained makes the TTL DISABLED with an
// update fenced on the catalog entry (see storage.TTLStore).
func (b *Backend) DrainTTL(ctx context.Context, account, name string, gen int64, limit int) (bool, error) {
	limit = max(limit, 1)
	live := ttlLive(storage.TTLDisabling, gen)
	t, err := b.ttlPageTable(ctx, account, name, live)
	if t == nil {
		return err == nil, err
	}
	k := b.catalog
	var gens []int64
	iter := b.s.Query(`SELECT gen FROM `+k+`.ttl_gens WHERE tid = ?`, t.ID).WithContext(ctx).Iter()
	var g int64
	for iter.Scan(&g) {
		gens = append(gens, g)
	}
	if err := iter.Close(); err != nil {
		return false, wrap("ttl drain", err)
	}
	removed := 0
	for _, g := range gens {
		for sh := 0; sh < ttlShards && removed < limit; sh++ {
			iter := b.s.Query(`SELECT expire_at, pk, sk FROM `+k+`.ttl_rows WHERE tid = ? AND gen = ? AND shard = ? LIMIT ?`,
				t.ID, g, sh, limit-removed).WithContext(ctx).Iter()
			batch := b.s.Batch(gocql.UnloggedBatch) // one partition
			var at int64
			var pk, sk []byte
			for ; iter.Scan(&at, &pk, &sk); pk, sk = nil, nil {
				batch.Query(`DELETE FROM `+k+`.ttl_rows WHERE tid = ? AND gen = ? AND shard = ? AND expire_at = ? AND pk = ? AND sk = ?`,
					t.ID, g, sh, at, pk, storage.StoredSK(sk))
			}
			if err := iter.Close(); err != nil {
				return false, wrap("ttl drain", err)
			}
			if batch.Size() == 0 {
				continue
			}
			if err := b.retry(ctx, func() error { return batch.WithContext(ctx).Exec() }); err != nil {
				return false, wrap("ttl drain", err)
			}
			removed += batch.Size()
		}
	}
	if removed >= limit {
		return false, nil
	}
	_, err = b.updateEntryIf(ctx, account, name, func(cur *storage.Table) bool {
		if !live(cur) {
			return false
		}
		cur.TTL.Status, cur.TTL.AttributeName, cur.TTL.BackfillCursor = storage.TTLDisabled, "", nil
		return true
	})
	return err == nil, err
}

// updateEntryIf changes the catalog entry of (account, name) with fn
// (changeEntry); fn returns false to store nothing. It reports whether it
// stored. Unlike UpdateTable it creates and drops no Cassandra tables.
func (b *Backend) updateEntryIf(ctx context.Context, account, name string, fn func(t *storage.Table) bool) (bool, error) {
	_, nw, err := b.changeEntry(ctx, account, name, func(nw *storage.Table) (bool, error) {
		return fn(nw), nil
	})
	return nw != nil, err
}

func sameKeyPtr(a, c *storage.Key) bool {
	if a == nil || c == nil {
		return a == c
	}
	return bytes.Equal(a.PK, c.PK) && bytes.Equal(a.SK, c.SK)
}
