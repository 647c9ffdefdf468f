package cassandra

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Online index builds and per-index counts (storage.IndexBuilder,
// storage.Statistics); docs/adr/0003 (Online
// index builds) has the reasons.
//
// A new index is in the catalog CREATING and Backfilling from the
// UpdateTable that added it (which created its table), and every write
// since maintains it. BackfillIndex copies the items the writes have not
// touched, page by page in scan order: each index row is derived from the
// item's committed image and stamped USING TIMESTAMP with that image's
// version, exactly like the index batch of the write that produced the
// image, so any later write's batch (a higher version) wins over the copy
// whatever order they arrive in. The cursor then moves with an LWT fenced
// on the catalog version.
//
// Frontends cache table entries, so a write may still run with an entry
// from before the index was added, and would then not maintain it. Two
// rules keep such a write from slipping past a backfill (docs/adr/0003,
// Online index builds, has the argument): a write's effects are derived
// from an entry loaded at most entryBudget before a moment after the
// write committed (freshEntry), and a build copies its first page only
// backfillGrace (more than entryBudget) after it saw the index in the
// catalog.

// beforeCursorUpdate, when set (by tests), runs between a backfill page's
// rows and its catalog update.
var beforeCursorUpdate atomic.Pointer[func()]

// backfillWriters bounds the index rows one page writes at once.
const backfillWriters = 16

// Defaults of the freshness rule (see freshEntry and BackfillIndex). The
// grace must exceed the budget; the difference is the margin for the
// clocks of the writer and the builder measuring durations differently.
const (
	defaultEntryBudget   = 2 * time.Second
	defaultBackfillGrace = 3 * time.Second
)

// freshnessTimes replaces the defaults above; tests set freshness.
type freshnessTimes struct{ budget, grace time.Duration }

var freshness atomic.Pointer[freshnessTimes]

// freshEntryOff, when set (by tests only), makes freshEntry return the
// entry it is given: a write behaves as if no freshness rule existed.
var freshEntryOff atomic.Bool

// entryBudget is how long before a moment after a write's commit the entry
// its effects are derived from may have been loaded.
func (b *Backend) entryBudget() time.Duration {
	if f := freshness.Load(); f != nil {
		return f.budget
	}
	return defaultEntryBudget
}

// backfillGrace is how long a build waits, after it first sees its index
// in the catalog, before it reads its first page.
func (b *Backend) backfillGrace() time.Duration {
	if f := freshness.Load(); f != nil {
		return f.grace
	}
	return defaultBackfillGrace
}

// freshEntry returns an entry of t's table from which the effects of a
// write (index rows, stream record, expiry rows) may be derived: t itself
// when it was loaded (LoadedAt) at most entryBudget ago, otherwise the
// entry read again from the catalog at QUORUM. It must be called after
// the write is known to have committed (its fenced write applied, or an
// attempt in doubt turned out applied), and its result used for every
// effect of that write, with b.phys of it. When the table is gone or is
// another table (same name, another ID), t is returned unchanged: the
// write's effects are written as they were before (a missing table is
// handled there). An entry of unknown age (LoadedAt zero) is read again.
// Errors: cluster failures reading the catalog.
func (b *Backend) freshEntry(ctx context.Context, t *storage.Table) (*storage.Table, error) {
	if freshEntryOff.Load() || !t.LoadedAt.IsZero() && time.Since(t.LoadedAt) <= b.entryBudget() {
		return t, nil
	}
	cur, err := b.readTable(ctx, t.Account, t.Name, gocql.Quorum)
	if err != nil {
		return nil, err
	}
	if cur == nil || cur.ID != t.ID {
		return t, nil
	}
	return cur, nil
}

// indexByID returns t's index with this ID, or nil.
func indexByID(t *storage.Table, id string) *storage.Index {
	for i := range t.Indexes {
		if t.Indexes[i].ID == id {
			return &t.Indexes[i]
		}
	}
	return nil
}

// building reports whether ix is an online build still copying items.
func building(ix *storage.Index) bool {
	return ix != nil && ix.Status == storage.StatusCreating && ix.Backfilling
}

func sameCursor(a, b *storage.Key) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(a.PK, b.PK) && bytes.Equal(a.SK, b.SK)
}

// BackfillIndex copies the next page of at most limit items of table
// (account, name), in scan order (partition hash, partition key, sort key)
// after the index's BackfillCursor, into the index with ID indexID. Each
// row comes from the item's image read at QUORUM (every committed write is
// seen) and is written USING TIMESTAMP <the image's version>: a concurrent
// write of the item has a higher version, so its own index batch wins over
// the copy in either order, and a copy of an image some write already
// indexed writes the same cells again. Then the cursor (the last table key
// copied) is stored with an update fenced on the catalog version; the page
// that reaches the end of the table sets the index ACTIVE, Backfilling
// false and the cursor nil in that same update, and done is true. A crash
// before the update only makes the next call copy the page again.
//
// A catalog change that wins the race (another field of the entry, say)
// is retried on the fresh entry; when another builder has moved the cursor
// meanwhile, BackfillIndex returns not done and the next call continues
// from there. An index that is not CREATING and backfilling, or is gone,
// is done.
//
// A build that has not copied anything yet (a nil cursor) first waits
// backfillGrace after the read that found the index, then reads the entry
// again: a write that commits after the page's read then derives its rows
// from an entry that lists the index (see freshEntry). The wait is in the
// call, so callers that loop without pausing do not spin; a ctx that ends
// during it ends the call with ctx's error, having copied nothing.
// Errors: storage.ErrTableNotFound, storage.ErrClosed, ctx's error,
// cluster failures.
func (b *Backend) BackfillIndex(ctx context.Context, account, name, indexID string, limit int) (done bool, err error) {
	if b.closed.Load() {
		return false, storage.ErrClosed
	}
	limit = max(limit, 1)
	t, err := b.currentTable(ctx, account, name)
	if err != nil {
		return false, err
	}
	ix := indexByID(t, indexID)
	if !building(ix) {
		return true, nil
	}
	if ix.BackfillCursor == nil {
		// The grace, counted from after a SERIAL read that found the index:
		// every catalog read issued from then on finds it too.
		if err := sleepCtx(ctx, b.backfillGrace()); err != nil {
			return false, err
		}
		if t, err = b.readTable(ctx, account, name, gocql.Serial); err != nil {
			return false, err
		}
		if t == nil {
			return false, storage.ErrTableNotFound
		}
		if ix = indexByID(t, indexID); !building(ix) {
			return true, nil
		}
	}
	start := ix.BackfillCursor
	var last *storage.Key
	err = b.withTable(ctx, t, func() error {
		var err error
		last, err = b.backfillPage(ctx, t, ix, start, limit)
		return err
	})
	if errors.Is(err, storage.ErrTableNotFound) {
		// The table, or only the index (dropped meanwhile), is gone.
		cur, rerr := b.readTable(ctx, account, name, gocql.Serial)
		if rerr != nil {
			return false, rerr
		}
		if cur == nil || cur.ID != t.ID {
			return false, storage.ErrTableNotFound
		}
		if !building(indexByID(cur, indexID)) {
			return true, nil
		}
	}
	if err != nil {
		return false, wrap("backfill index", err)
	}
	if hook := beforeCursorUpdate.Load(); hook != nil {
		(*hook)()
	}
	return b.storeBackfillCursor(ctx, t, indexID, start, last)
}

// storeBackfillCursor stores the cursor of a backfill page of the index
// indexID of t that started after start and copied up to last (nil: to
// the end of the table, which makes the index ACTIVE), fenced on the
// catalog version; done is true when the index is built.
func (b *Backend) storeBackfillCursor(ctx context.Context, t *storage.Table, indexID string, start, last *storage.Key) (done bool, err error) {
	account, name := t.Account, t.Name
	for attempt := 1; ; attempt++ {
		nw, err := copyTable(t)
		if err != nil {
			return false, err
		}
		nix := indexByID(nw, indexID)
		if last == nil {
			nix.Status, nix.Backfilling, nix.BackfillCursor = storage.StatusActive, false, nil
		} else {
			nix.BackfillCursor = last
		}
		applied, err := b.storeFenced(ctx, t, nw)
		if err != nil {
			return false, fmt.Errorf("cassandra: backfill index of %s: %w", name, err)
		}
		if applied {
			return last == nil, nil
		}
		// The entry changed since it was read: keep the page if the build
		// is where it was, on the fresh entry.
		cur, err := b.readTable(ctx, account, name, gocql.Serial)
		if err != nil {
			return false, err
		}
		if cur == nil || cur.ID != t.ID {
			return false, storage.ErrTableNotFound
		}
		cix := indexByID(cur, indexID)
		if !building(cix) {
			return true, nil
		}
		if !sameCursor(cix.BackfillCursor, start) {
			return false, nil // another builder moved on; continue from its cursor
		}
		if attempt >= b.maxAttempts {
			return false, fmt.Errorf("cassandra: backfill index of %s: lost %d catalog races in a row", name, attempt)
		}
		if err := backoff(ctx, attempt); err != nil {
			return false, err
		}
		t = cur
	}
}

// storeFenced replaces the catalog entry cur with nw (whose Version it
// sets to cur.Version+1) if the entry is still at cur.Version, and reports
// whether it did.
func (b *Backend) storeFenced(ctx context.Context, cur, nw *storage.Table) (bool, error) {
	nw.Account, nw.Name, nw.ID = cur.Account, cur.Name, cur.ID
	nw.Version = cur.Version + 1
	def, err := storage.EncodeTable(nw)
	if err != nil {
		return false, err
	}
	return b.cas(ctx, b.s.Query(`UPDATE `+b.catalog+`.tables SET def = ?, version = ?
		WHERE account = ? AND name = ? IF version = ?`, def, nw.Version, cur.Account, cur.Name, cur.Version),
		func() (bool, error) {
			got, err := b.readTable(ctx, cur.Account, cur.Name, gocql.Serial)
			if err != nil {
				return false, err
			}
			return got != nil && got.Version == nw.Version && bytes.Equal(mustDef(got), def), nil
		})
}

// pageItem is one item a backfill page copies.
type pageItem struct {
	it      item.Item
	version int64
}

// backfillPage reads up to limit items after cursor (nil: from the start)
// in scan order and writes their rows of ix. It returns the key of the
// last item read, or nil when fewer than limit items were left (the end of
// the table).
func (b *Backend) backfillPage(ctx context.Context, t *storage.Table, ix *storage.Index, cursor *storage.Key, limit int) (*storage.Key, error) {
	p := b.phys(t)
	items, last, err := b.readItemPage(ctx, p, cursor, limit)
	if err != nil {
		return nil, err
	}
	if err := b.copyIndexRows(ctx, t, p, ix, items); err != nil {
		return nil, err
	}
	if len(items) < limit {
		return nil, nil
	}
	return last, nil
}

// readItemPage reads up to limit rows of the items table at QUORUM (a
// deleted item's row is an entry with a nil image), with their versions, in scan order after cursor: the rest of the cursor's
// partition, then the partitions the hash directory lists after it,
// bucket by bucket.
func (b *Backend) readItemPage(ctx context.Context, p phys, cursor *storage.Key, limit int) ([]pageItem, *storage.Key, error) {
	var out []pageItem
	var last storage.Key
	// readPart reads partition pk after sort key after (nil: all of it).
	// A deleted item's row (mutate.go) counts as a page entry with no
	// image: it has no index row, but the page's limit and cursor count
	// it, like the rows LIMIT returns.
	readPart := func(pk, after []byte) error {
		rows, err := b.readPartRows(ctx, p, pk, after, limit-len(out))
		for _, r := range rows {
			out = append(out, r.pageItem)
			last = r.key
		}
		return err
	}
	if cursor != nil {
		if err := readPart(cursor.PK, storage.StoredSK(cursor.SK)); err != nil {
			return nil, nil, err
		}
	}
	l := tableListing(cursor)
	for bk, last := l.buckets(); bk <= last && len(out) < limit; bk++ {
		iter := b.listedPartitions(ctx, p, l, bk)
		if _, err := eachPartition(iter, func(pk []byte) (bool, error) {
			err := readPart(pk, nil)
			return len(out) < limit, err
		}); err != nil {
			return nil, nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil, nil
	}
	return out, &last, nil
}

// copyIndexRows writes the rows of ix that items imply, each stamped with
// its item's version: the directory entries of their index partitions
// first (so that Scan finds every row written), then the rows, at most
// backfillWriters requests at once. Every statement is idempotent.
func (b *Backend) copyIndexRows(ctx context.Context, t *storage.Table, p phys, ix *storage.Index, items []pageItem) error {
	type indexRow struct {
		r   *storage.IndexRow
		ver int64
	}
	var rows []indexRow
	parts := map[string]bool{}
	var partKeys [][]byte
	for _, pi := range items {
		r := storage.IndexRowFor(t, ix, pi.it)
		if r == nil {
			continue
		}
		rows = append(rows, indexRow{r, pi.version})
		if !parts[string(r.IndexKey.PK)] {
			parts[string(r.IndexKey.PK)] = true
			partKeys = append(partKeys, r.IndexKey.PK)
		}
	}
	tbl, ixID := p.index[ix.IndexName], physID(ix.ID)
	if err := parallel(ctx, len(partKeys), func(i int) error {
		return b.writeDir(ctx, p, ixID, partKeys[i])
	}); err != nil {
		return err
	}
	return parallel(ctx, len(rows), func(i int) error {
		r := rows[i].r
		return b.retry(ctx, func() error {
			return b.s.Query(`INSERT INTO `+tbl+` (ipk, isk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
				r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK), item.MarshalItem(r.Item), item.Size(r.Item), rows[i].ver).
				WithContext(ctx).Idempotent(true).Exec()
		})
	})
}

// parallel runs f(0..n-1), at most backfillWriters at once, with
// storage.EachWrite: after a call fails it starts no more, lets those
// running finish, and returns the error of the lowest index that failed.
func parallel(ctx context.Context, n int, f func(i int) error) error {
	return storage.EachWrite(ctx, n, backfillWriters, f)
}

// DropIndex removes the index with ID indexID from table (account, name)
// when its Status is DELETING: first its Cassandra table (writes stopped
// maintaining it when it became DELETING), then its catalog entry with an
// update fenced on the catalog version (UpdateTable, which drops the table
// again should anything have re-created it meanwhile). A crash in between
// leaves the entry DELETING, so the next DropIndex finishes the job. An
// index or table that is gone, or an index in another state, is left
// alone without error. Errors: storage.ErrClosed, cluster failures.
func (b *Backend) DropIndex(ctx context.Context, account, name, indexID string) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	t, err := b.readTable(ctx, account, name, gocql.Serial)
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	ix := indexByID(t, indexID)
	if ix == nil || ix.Status != storage.StatusDeleting {
		return nil
	}
	if err := b.dropPhysical(ctx, []string{b.phys(t).index[ix.IndexName]}); err != nil {
		return err
	}
	return storage.DropDeletingIndexEntry(ctx, b, account, name, t.ID, indexID)
}

// IndexStats counts the rows of every index of t and adds up their sizes
// (item.Size of each projected row, kept in the size column) with a full
// read of each index table: exact, and as slow as a scan, like Stats. A
// DELETING index is not counted, nor is one whose table is gone (the
// caller's entry may be a moment old). Errors: storage.ErrClosed, cluster
// failures.
func (b *Backend) IndexStats(ctx context.Context, t *storage.Table) (map[string]storage.TableStats, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	p := b.phys(t)
	out := make(map[string]storage.TableStats, len(t.Indexes))
	for _, ix := range t.Indexes {
		if ix.Status == storage.StatusDeleting {
			continue
		}
		st, err := b.sumSizes(ctx, `SELECT size FROM `+p.index[ix.IndexName])
		if isUnconfigured(err) {
			continue
		}
		if err != nil {
			return nil, wrap("index stats", err)
		}
		out[ix.ID] = st
	}
	return out, nil
}

// CollectionSize returns the stored size of the items of t whose encoded
// partition key is pk plus that of their local secondary index rows (an
// LSI's partition key is the table's): one partition read of the items
// table and of each LSI table. Errors: storage.ErrTableNotFound,
// storage.ErrClosed, cluster failures.
func (b *Backend) CollectionSize(ctx context.Context, t *storage.Table, pk []byte) (int64, error) {
	p := b.phys(t)
	var total int64
	err := b.withTable(ctx, t, func() error {
		st, err := b.sumSizes(ctx, `SELECT size FROM `+p.items+` WHERE pk = ?`, pk)
		if err != nil {
			return err
		}
		total = st.SizeBytes
		for _, ix := range t.Indexes {
			if ix.Global {
				continue
			}
			st, err := b.sumSizes(ctx, `SELECT size FROM `+p.index[ix.IndexName]+` WHERE ipk = ?`, pk)
			if err != nil {
				return err
			}
			total += st.SizeBytes
		}
		return nil
	})
	return total, wrap("collection size", err)
}

// sumSizes counts the rows of a query selecting one size column and adds
// up their sizes.
func (b *Backend) sumSizes(ctx context.Context, stmt string, args ...any) (storage.TableStats, error) {
	var st storage.TableStats
	iter := b.s.Query(stmt, args...).WithContext(ctx).PageSize(1000).Iter()
	var size int64
	for iter.Scan(&size) {
		st.ItemCount++
		st.SizeBytes += size
	}
	return st, iter.Close()
}

// missingDepth counts nested indexTableMissing calls in a context.
type missingDepth struct{}

// indexTableMissing is called when the index batch of a committed write
// found an index table missing: the write's table entry (t) may be older
// than an index drop (DropIndex drops the table of a DELETING index, which
// writes with an older entry still maintain), or a crash may have come
// between an UpdateTable's catalog change and its CREATE TABLE. The item
// is written already, so returning the error would run the write again:
// instead it reads the catalog, creates the tables the entry has, and
// writes the batch again for the indexes the entry still maintains. When
// the table itself is gone it returns err (the caller's ErrTableNotFound
// path).
func (b *Backend) indexTableMissing(ctx context.Context, t *storage.Table, old, nw item.Item, ver int64, err error) error {
	depth, _ := ctx.Value(missingDepth{}).(int)
	if depth >= 3 {
		return err
	}
	cur, rerr := b.readTable(ctx, t.Account, t.Name, gocql.Serial)
	if rerr != nil {
		return rerr
	}
	if cur == nil || cur.ID != t.ID {
		return err
	}
	if rerr := b.ensurePhysical(ctx, cur); rerr != nil {
		return rerr
	}
	live := *t
	live.Indexes = nil
	for _, ix := range t.Indexes {
		if c := indexByID(cur, ix.ID); c != nil && c.Maintained() {
			live.Indexes = append(live.Indexes, ix)
		}
	}
	ctx = context.WithValue(ctx, missingDepth{}, depth+1)
	return b.writeIndexes(ctx, &live, b.phys(&live), old, nw, ver)
}
