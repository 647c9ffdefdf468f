package postgres

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// maxCreateRaces bounds how often Mutate re-runs fn inside one transaction
// after its create lost to a concurrent writer (whose item may in turn be
// deleted again before this writer locks it).
const maxCreateRaces = 8

// Mutate runs fn against the committed image of key in t, locked, and
// commits its result with the derived index rows, in one transaction (see
// storage.MutateFunc):
//
//  1. BEGIN; SELECT the row FOR UPDATE; read the catalog entry by t.ID
//     (one round trip). The lock comes first, so the entry read is the one
//     committed before any index change that waited for this table.
//  2. fn(old). An existing row is updated or deleted; an absent one is
//     created with INSERT ... ON CONFLICT DO NOTHING, and when a
//     concurrent writer created it first (no row inserted) fn runs again on
//     that row, locked, at most maxCreateRaces times.
//  3. The index rows and COMMIT (one round trip).
//
// A deadlock or serialization failure retries the whole transaction (fn
// runs again). Errors: fn's error unchanged; storage.ErrTableNotFound when t
// no longer exists; storage.ErrClosed; an error when fn's image has another
// key; ctx's error; SQL errors.
func (b *Backend) Mutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	name, err := storage.ItemsTableName(t.ID)
	if err != nil {
		return err
	}
	h := int64(item.PartitionHash(key.PK))
	sk := storage.StoredSK(key.SK)
	lock := "SELECT item, size FROM " + name + " WHERE h = $1 AND pk = $2 AND sk = $3 FOR UPDATE"
	id := storage.UserIdentityFrom(ctx)
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		now := b.now()
		cached, cv := b.cached(t.ID)
		batch := &pgx.Batch{}
		batch.Queue("BEGIN")
		batch.Queue(lock, h, key.PK, sk)
		batch.Queue(catalogByID, t.ID, cv)
		br := c.SendBatch(ctx, batch)
		var blob []byte
		var size int64
		found, version, def, err := readLockBatch(br, func(r pgx.Row) error { return r.Scan(&blob, &size) })
		if err != nil {
			return err
		}
		pt, err := b.resolve(t.ID, cached, version, def)
		if err != nil {
			return err
		}
		for races := 0; ; races++ {
			var old item.Item
			if found {
				if old, err = decodeItem(blob); err != nil {
					return err
				}
			}
			nw, fnErr := storage.CallMutateFunc(fn, old)
			if fnErr != nil {
				return &fnError{fnErr}
			}
			if (old == nil && nw == nil) || storage.SameImage(old, nw) {
				_, err := c.Exec(ctx, "ROLLBACK")
				return err
			}
			var newBlob []byte
			var newSize int64
			if nw != nil {
				if err := checkKey(pt.def, key, nw); err != nil {
					return err
				}
				newBlob, newSize = item.MarshalItem(nw), int64(item.Size(nw))
			}
			writes := &pgx.Batch{}
			switch {
			case nw == nil:
				writes.Queue(pt.del, h, key.PK, sk)
			case found:
				writes.Queue(pt.update, h, key.PK, sk, newBlob, newSize)
			default:
				tag, err := c.Exec(ctx, pt.insert, h, key.PK, sk, newBlob, newSize)
				if err != nil {
					return err
				}
				if tag.RowsAffected() == 0 {
					// A concurrent writer created the item after our
					// SELECT; lock it and decide again.
					if races >= maxCreateRaces {
						return errCreateRace
					}
					switch err := c.QueryRow(ctx, pt.lock, h, key.PK, sk).Scan(&blob, &size); {
					case errors.Is(err, pgx.ErrNoRows):
						found = false
					case err != nil:
						return err
					default:
						found = true
					}
					continue
				}
			}
			queueIndexChanges(writes, pt, old, nw, newBlob, newSize)
			var streams pgx.Batch
			queueDerived(writes, &streams, pt, old, nw, id, now)
			appendBatch(writes, &streams)
			queueCommit(writes)
			return c.SendBatch(ctx, writes).Close()
		}
	})
}

// readLockBatch reads the results of a batch of BEGIN, row locks and
// catalogByID queries (in that order): scan reads each lock's row, and
// found reports whether the last one had a row. version and def are the
// last catalog query's result. Errors: storage.ErrTableNotFound when a
// catalog entry is missing, SQL errors.
func readLockBatch(br pgx.BatchResults, scans ...func(pgx.Row) error) (found bool, version int64, def []byte, err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := br.Exec(); err != nil {
		return false, 0, nil, err
	}
	for _, scan := range scans {
		switch err := scan(br.QueryRow()); {
		case errors.Is(err, pgx.ErrNoRows):
			found = false
		case err != nil:
			return false, 0, nil, err
		default:
			found = true
		}
	}
	switch err := br.QueryRow().Scan(&version, &def); {
	case errors.Is(err, pgx.ErrNoRows):
		return false, 0, nil, &fnError{storage.ErrTableNotFound}
	case err != nil:
		return false, 0, nil, err
	}
	return found, version, def, nil
}

// slot is one distinct item of a TransactWrite.
type slot struct {
	tableID string
	key     storage.Key
	h       int64
	pt      *physTable
	found   bool
	blob    []byte
	size    int64
	old     item.Item // committed image, nil when absent
	cur     item.Item // image after the mutations so far
}

// TransactWrite applies ms in one transaction: it locks every row (SELECT
// ... FOR UPDATE) in (table ID, pk, sk) order, so that concurrent
// transactions cannot deadlock on each other's rows, then runs each Fn in
// the order of ms (a key named twice sees the earlier result). If any Fn
// fails nothing is written and the result is a *storage.TransactionError
// whose Reasons[i] is mutation i's error (nil for the others); the Fns
// after the first failure still run, for their reasons. A create that
// loses to a concurrent writer, a deadlock or a serialization failure
// rolls everything back and retries the transaction (the Fns run again).
// Storage failures, such as storage.ErrTableNotFound, are returned as they
// are.
func (b *Backend) TransactWrite(ctx context.Context, ms []storage.Mutation) error {
	return b.transactWrite(ctx, ms, nil)
}

// txSlots are the rows of a transaction: one slot per distinct item
// (slots, in order of first mention; slotOf[i] is mutation i's), the
// slots in lock order (table ID, pk, sk), and the tables' IDs in that
// order.
type txSlots struct {
	slots, order []*slot
	slotOf       []int
	tableIDs     []string
}

func newTxSlots(ms []storage.Mutation) *txSlots {
	x := &txSlots{slotOf: make([]int, len(ms))}
	byKey := map[string]int{}
	for i, m := range ms {
		id := m.Table.ID + "\x00" + string(m.Key.PK) + "\x00" + string(m.Key.SK)
		j, ok := byKey[id]
		if !ok {
			j = len(x.slots)
			byKey[id] = j
			x.slots = append(x.slots, &slot{tableID: m.Table.ID, key: m.Key, h: int64(item.PartitionHash(m.Key.PK))})
		}
		x.slotOf[i] = j
	}
	x.order = slices.Clone(x.slots)
	slices.SortFunc(x.order, func(a, b *slot) int {
		return cmp.Or(cmp.Compare(a.tableID, b.tableID), bytes.Compare(a.key.PK, b.key.PK), bytes.Compare(a.key.SK, b.key.SK))
	})
	for _, s := range x.order {
		if len(x.tableIDs) == 0 || x.tableIDs[len(x.tableIDs)-1] != s.tableID {
			x.tableIDs = append(x.tableIDs, s.tableID)
		}
	}
	return x
}

// transactWrite is TransactWrite; a non-nil tok is completed in the same
// transaction (TransactWriteToken, tokens.go).
func (b *Backend) transactWrite(ctx context.Context, ms []storage.Mutation, tok *storage.TokenCompletion) error {
	if len(ms) == 0 {
		return nil
	}
	x := newTxSlots(ms)
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		if err := b.lockTxSlots(ctx, c, x); err != nil {
			return err
		}
		if err := evalTx(ms, x); err != nil {
			return err
		}
		writes, inserts := queueTxWrites(x.order, storage.UserIdentityFrom(ctx), b.now())
		if tok != nil {
			return commitWithToken(ctx, c, writes, inserts, tok)
		}
		if len(inserts) == 0 {
			queueCommit(writes)
			return c.SendBatch(ctx, writes).Close()
		}
		if err := checkInserts(c.SendBatch(ctx, writes), writes.Len(), inserts); err != nil {
			return err
		}
		return commit(ctx, c)
	})
}

// lockTxSlots begins the transaction, locks and reads every slot's row (in
// lock order) and the tables' catalog entries, and sets each slot's table
// and images.
func (b *Backend) lockTxSlots(ctx context.Context, c *pgxpool.Conn, x *txSlots) error {
	batch := &pgx.Batch{}
	batch.Queue("BEGIN")
	for _, s := range x.order {
		name, err := storage.ItemsTableName(s.tableID)
		if err != nil {
			return err
		}
		batch.Queue("SELECT item, size FROM "+name+" WHERE h = $1 AND pk = $2 AND sk = $3 FOR UPDATE", s.h, s.key.PK, storage.StoredSK(s.key.SK))
	}
	pts := map[string]*physTable{}
	cached := make([]*physTable, len(x.tableIDs))
	for i, id := range x.tableIDs {
		var cv int64
		cached[i], cv = b.cached(id)
		batch.Queue(catalogByID, id, cv)
	}
	if err := readTxBatch(c.SendBatch(ctx, batch), x.order, len(x.tableIDs), func(i int, version int64, def []byte) error {
		pt, err := b.resolve(x.tableIDs[i], cached[i], version, def)
		pts[x.tableIDs[i]] = pt
		return err
	}); err != nil {
		return err
	}
	for _, s := range x.order {
		s.pt = pts[s.tableID]
		s.old, s.cur = nil, nil
		if s.found {
			it, err := decodeItem(s.blob)
			if err != nil {
				return err
			}
			s.old, s.cur = it, it
		}
	}
	return nil
}

// evalTx runs the mutations' functions, in request order, on their slots'
// images. A failing function cancels the transaction (an *fnError holding
// the *storage.TransactionError); the later ones still run, for their
// reasons.
func evalTx(ms []storage.Mutation, x *txSlots) error {
	reasons := make([]error, len(ms))
	failed := false
	for i, m := range ms {
		s := x.slots[x.slotOf[i]]
		nw, err := storage.CallMutateFunc(m.Fn, s.cur)
		switch {
		case err != nil:
			reasons[i], failed = err, true
		case failed:
		case nw != nil && !storage.SameImage(nw, s.cur):
			if err := checkKey(s.pt.def, s.key, nw); err != nil {
				return err
			}
			s.cur = nw
		case nw == nil:
			s.cur = nil
		}
	}
	if failed {
		return &fnError{&storage.TransactionError{Reasons: reasons}}
	}
	return nil
}

// queueTxWrites queues the writes of the changed slots with their index
// rows, expiry rows and (last, in table-ID order) stream records; inserts
// are the positions in writes of the creates.
func queueTxWrites(order []*slot, id *storage.UserIdentity, now time.Time) (writes *pgx.Batch, inserts []int) {
	writes = &pgx.Batch{}
	var streams pgx.Batch // stream records go last, in table-ID order
	for _, s := range order {
		if (s.old == nil && s.cur == nil) || storage.SameImage(s.old, s.cur) {
			continue
		}
		var blob []byte
		var size int64
		sk := storage.StoredSK(s.key.SK)
		switch {
		case s.cur == nil:
			writes.Queue(s.pt.del, s.h, s.key.PK, sk)
		default:
			blob, size = item.MarshalItem(s.cur), int64(item.Size(s.cur))
			if s.found {
				writes.Queue(s.pt.update, s.h, s.key.PK, sk, blob, size)
			} else {
				inserts = append(inserts, writes.Len())
				writes.Queue(s.pt.insert, s.h, s.key.PK, sk, blob, size)
			}
		}
		queueIndexChanges(writes, s.pt, s.old, s.cur, blob, size)
		queueDerived(writes, &streams, s.pt, s.old, s.cur, id, now)
	}
	appendBatch(writes, &streams)
	return writes, inserts
}

// queueCommit queues the COMMIT that ends a write batch, checked by
// checkCommit when the batch's results are read (Close).
func queueCommit(batch *pgx.Batch) {
	batch.Queue("COMMIT").Exec(checkCommit)
}

// commit commits c's open transaction, checked by checkCommit.
func commit(ctx context.Context, c *pgxpool.Conn) error {
	tag, err := c.Exec(ctx, "COMMIT")
	if err != nil {
		return err
	}
	return checkCommit(tag)
}

// checkCommit turns the tag of a COMMIT that did not commit into an
// error. PostgreSQL answers COMMIT of a failed transaction with ROLLBACK
// and no error, so a write whose error was lost on the way would
// otherwise be reported as done (pgx.Tx.Commit makes the same check).
func checkCommit(tag pgconn.CommandTag) error {
	if tag.String() != "COMMIT" {
		return fmt.Errorf("postgres: %w (%s)", pgx.ErrTxCommitRollback, tag)
	}
	return nil
}

// readTxBatch reads the results of TransactWrite's lock batch: BEGIN, one
// row lock per slot of order, then tables catalog queries, each handed to
// table.
func readTxBatch(br pgx.BatchResults, order []*slot, tables int, table func(i int, version int64, def []byte) error) (err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := br.Exec(); err != nil {
		return err
	}
	for _, s := range order {
		switch err := br.QueryRow().Scan(&s.blob, &s.size); {
		case errors.Is(err, pgx.ErrNoRows):
			s.found = false
		case err != nil:
			return err
		default:
			s.found = true
		}
	}
	for i := range tables {
		var version int64
		var def []byte
		switch err := br.QueryRow().Scan(&version, &def); {
		case errors.Is(err, pgx.ErrNoRows):
			return &fnError{storage.ErrTableNotFound}
		case err != nil:
			return err
		}
		if err := table(i, version, def); err != nil {
			return err
		}
	}
	return nil
}

// checkInserts reads the n results of a write batch and returns
// errCreateRace when one of the creates at positions inserts inserted
// nothing: a concurrent writer created that item after it was read.
func checkInserts(br pgx.BatchResults, n int, inserts []int) (err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for i := range n {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		if slices.Contains(inserts, i) && tag.RowsAffected() == 0 {
			return errCreateRace
		}
	}
	return nil
}

// checkKey verifies that the new image nw carries the mutated key.
func checkKey(t *storage.Table, key storage.Key, nw item.Item) error {
	nk, err := storage.ItemKey(t, nw)
	if err != nil {
		return err
	}
	if !bytes.Equal(nk.PK, key.PK) || !bytes.Equal(nk.SK, key.SK) {
		return fmt.Errorf("postgres: new image's key differs from the mutated key")
	}
	return nil
}

// queueIndexChanges queues the writes of storage.IndexChanges(old, nw).
// blob and size are nw's stored form, reused by ALL projections.
func queueIndexChanges(batch *pgx.Batch, pt *physTable, old, nw item.Item, blob []byte, size int64) {
	for _, c := range storage.IndexChanges(pt.def, old, nw) {
		pi := pt.indexes[c.Index.ID]
		if r := c.Delete; r != nil {
			batch.Queue(pi.Del, int64(item.PartitionHash(r.IndexKey.PK)), r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK))
		}
		if c.Put != nil {
			queueIndexPut(batch, pi, c.Put, nw, blob, size)
		}
	}
}

// queueIndexPut queues the upsert of r; full is the base image whose
// stored form (blob, size) is reused when r projects all of it.
func queueIndexPut(batch *pgx.Batch, pi *storage.SQLIndexTable, r *storage.IndexRow, full item.Item, blob []byte, size int64) {
	if blob == nil || !storage.SameImage(r.Item, full) {
		blob = item.MarshalItem(r.Item)
		size = int64(item.Size(r.Item))
	}
	batch.Queue(pi.Put, int64(item.PartitionHash(r.IndexKey.PK)), r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK), blob, size)
}

func decodeItem(blob []byte) (item.Item, error) {
	it, err := item.UnmarshalItem(blob)
	if err != nil {
		return nil, fmt.Errorf("postgres: corrupt item: %w", err)
	}
	return it, nil
}
