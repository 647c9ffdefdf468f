package cassandra

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// bucketShift turns a 32-bit partition hash into one of the 256 partitions
// of a hash directory.
const bucketShift = 24

// An item row remembers its recent writes so that a writer whose outcome
// was uncertain can find out later whether its write applied, even after
// other writes followed: writes holds 16-byte entries (write ID, version),
// those of the last writeMemory (by version, which is µs since the epoch),
// at most maxRecentWrites of them. A rarely written row keeps one entry.
const (
	writeMemory     = int64(60 * time.Second / time.Microsecond)
	maxRecentWrites = 64
)

// current is the stored state of one item's row. A deleted item keeps its
// row as a tombstone (item nil, blob nil) with its version and write
// history, so that a re-creation is fenced on the delete's version like any
// other write; a row a transaction created to mark an absent item is a
// tombstone of version 0.
type current struct {
	item    item.Item // nil: absent (tombstone)
	blob    []byte
	version int64
	writes  []byte // recent (write ID, version) entries
	// The transaction holding the item (tx.go): its ID ("" when none),
	// the image it will store (txNew; nil with txOp txDelete deletes) and
	// the version it will store it at.
	txn   string
	txNew []byte
	txVer int64
	txOp  int
}

// appendWrite returns writes plus (id, ver), without the entries that are
// older than writeMemory before ver or beyond maxRecentWrites.
func appendWrite(writes []byte, id uint64, ver int64) []byte {
	var out []byte
	for i := 0; i+16 <= len(writes); i += 16 {
		if int64(binary.BigEndian.Uint64(writes[i+8:])) > ver-writeMemory {
			out = append(out, writes[i:i+16]...)
		}
	}
	out = binary.BigEndian.AppendUint64(out, id)
	out = binary.BigEndian.AppendUint64(out, uint64(ver))
	if n := len(out) - 16*maxRecentWrites; n > 0 {
		out = out[n:]
	}
	return out
}

// hasWrite reports whether the write with this ID is among writes.
func hasWrite(writes []byte, id uint64) bool {
	for i := 0; i+16 <= len(writes); i += 16 {
		if binary.BigEndian.Uint64(writes[i:]) == id {
			return true
		}
	}
	return false
}

// deref returns *p, or the zero value for a nil p (a null column).
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// readItem reads key's row at consistency cl: nil when the item was never
// written, a row with a nil item when it is deleted (a tombstone).
func (b *Backend) readItem(ctx context.Context, p phys, key storage.Key, cl gocql.Consistency) (*current, error) {
	// A null column (no transaction holds the item) scans as its zero
	// value: "" and 0.
	var c current
	err := b.s.Query(`SELECT item, version, writes, txn, tx_new, tx_ver, tx_op FROM `+p.items+` WHERE pk = ? AND sk = ?`, key.PK, storage.StoredSK(key.SK)).
		WithContext(ctx).Consistency(cl).Scan(&c.blob, &c.version, &c.writes, &c.txn, &c.txNew, &c.txVer, &c.txOp)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if c.blob == nil {
		return &c, nil
	}
	if c.item, err = item.UnmarshalItem(c.blob); err != nil {
		return nil, fmt.Errorf("cassandra: corrupt item in %s: %w", p.items, err)
	}
	return &c, nil
}

// withTable runs op on t's tables. When a table is missing it asks the
// catalog: a deleted table gives storage.ErrTableNotFound; a live one gets
// its missing tables and op runs once more.
func (b *Backend) withTable(ctx context.Context, t *storage.Table, op func() error) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	err := op()
	if err == nil || !isUnconfigured(err) {
		return err
	}
	if err := b.checkTable(ctx, t); err != nil {
		return err
	}
	if err = op(); isUnconfigured(err) {
		return storage.ErrTableNotFound
	}
	return err
}

// GetItem reads one item (see readConsistency).
func (b *Backend) GetItem(ctx context.Context, t *storage.Table, key storage.Key, consistent bool) (item.Item, error) {
	cl := b.readConsistency(consistent)
	p := b.phys(t)
	var out item.Item
	err := b.withTable(ctx, t, func() error {
		c, err := b.readItem(ctx, p, key, cl)
		if err != nil {
			return err
		}
		if c != nil {
			out = c.item
		}
		return nil
	})
	if err != nil {
		return nil, wrap("get item", err)
	}
	return out, nil
}

// Mutate reads the item (at QUORUM first, see mutate; not at all when a
// blind insert is tried, see blind.go), runs fn and writes
// its result with a lightweight transaction fenced on the version read (IF
// NOT EXISTS for an absent item); a lost race runs again from a fresh
// SERIAL read, at most Options.MaxAttempts times with jittered backoff. A delete of an absent
// item, and fn returning old itself, write nothing. After the fenced write,
// the index rows follow in one logged batch stamped with the new version.
func (b *Backend) Mutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	p := b.phys(t)
	var fnErr error
	err := b.withTable(ctx, t, func() error {
		var err error
		fnErr, err = b.mutate(ctx, t, p, key, fn)
		return err
	})
	if err != nil {
		return wrap("mutate", err)
	}
	return fnErr
}

// mutate returns fn's error as fnErr and storage failures as err.
func (b *Backend) mutate(ctx context.Context, t *storage.Table, p phys, key storage.Key, fn storage.MutateFunc) (fnErr, err error) {
	// doubtful holds this call's attempts whose outcome was uncertain and
	// that a SERIAL read did not show as applied: a Paxos proposal accepted
	// by a minority of replicas can still be completed by a later round,
	// until a newer write commits. Every read below checks for them.
	var doubtful []attemptInDoubt
	var held txWait // tx.go: how long the item has been held by a transaction
	// The first read is at QUORUM, not SERIAL: it sees every write
	// acknowledged before it, and a Paxos round still in flight that it
	// misses makes the fenced write below fail (the LWT finishes that
	// round first) and the next attempt read at SERIAL. Every later read,
	// which may have to settle a round in doubt, is at SERIAL.
	readCL := gocql.Quorum
	// A probably absent item is written without that read (blind.go); if
	// it exists after all, the reads start at SERIAL.
	tried, done, err := b.insertBlind(ctx, t, p, key, fn, &doubtful)
	if err != nil || done {
		return nil, err
	}
	if tried {
		readCL = gocql.Serial
	}
	for attempt := 1; ; attempt++ {
		var cur *current
		cl := readCL
		readCL = gocql.Serial
		err := b.retry(ctx, func() (err error) {
			cur, err = b.readItem(ctx, p, key, cl)
			return err
		})
		if err != nil {
			return nil, err
		}
		if attempt == 1 && !tried {
			b.absent.note(t.ID, cur == nil)
		}
		if a, ok := resolveDoubt(&doubtful, cur); ok {
			return nil, b.committed(ctx, t, p, key, a.old, a.nw, a.ver)
		}
		if cur != nil && cur.txn != "" {
			// A transaction holds the item: wait for it to finish (or
			// finish it, when its frontend is gone) and read again.
			if err := b.waitForTx(ctx, &held, p, key, cur.txn); err != nil {
				if errors.Is(err, storage.ErrTransactionConflict) {
					return err, nil
				}
				return nil, err
			}
			attempt--
			continue
		}
		var old item.Item
		var writes []byte
		if cur != nil {
			old, writes = cur.item, cur.writes
		}
		nw, fnErr := storage.CallMutateFunc(fn, old)
		if fnErr != nil {
			return fnErr, nil
		}
		if (old == nil && nw == nil) || storage.SameImage(old, nw) {
			return nil, nil
		}
		ver, applied, err := b.attemptWrite(ctx, t, p, key, cur, nw, writes, &doubtful)
		if err != nil {
			return nil, err
		}
		if applied {
			return nil, b.committed(ctx, t, p, key, old, nw, ver)
		}
		if attempt >= b.maxAttempts {
			return nil, fmt.Errorf("cassandra: lost %d write races in a row on one item", attempt)
		}
		b.noteRetry("contention")
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// attemptWrite makes one fenced write of nw over cur (nil: no row), the
// item's current row as read: the directory entry for a new item, the
// write intent, then the LWT. It returns the version written and whether
// the LWT applied; an attempt whose outcome stays uncertain is added to
// doubtful for the next reads to settle.
func (b *Backend) attemptWrite(ctx context.Context, t *storage.Table, p phys, key storage.Key, cur *current, nw item.Item,
	writes []byte, doubtful *[]attemptInDoubt) (ver int64, applied bool, err error) {
	var old item.Item
	var prev int64
	if cur != nil {
		old, prev = cur.item, cur.version
	}
	blob, err := encodeNewImage(t, key, nw)
	if err != nil {
		return 0, false, err
	}
	ver = b.nextVersion(prev)
	id := rand.Uint64()
	writes = appendWrite(writes, id, ver)
	if old == nil {
		// The directory entry first: a crash after it leaves only an
		// entry for an empty partition, which Scan skips.
		if err := b.writeDir(ctx, p, "", key.PK); err != nil {
			return 0, false, err
		}
	}
	q := b.itemWriteQuery(p, key, cur, nw, blob, ver, writes)
	existed := cur != nil
	// The intent first (intents.go): should this process stop after
	// the LWT applied, another one writes the effects.
	if err := b.writeIntent(ctx, t, key, old, nw, ver, id); err != nil {
		return 0, false, err
	}
	applied, err = b.cas(ctx, q, func() (bool, error) {
		got, err := b.readItem(ctx, p, key, gocql.Serial)
		if err != nil {
			return false, err
		}
		// The SERIAL read has finished or discarded the round in doubt.
		// Later writes may have overwritten ours: the row remembers the
		// IDs of its last writes, deleted or not.
		ok := got != nil && hasWrite(got.writes, id)
		if !ok {
			*doubtful = append(*doubtful, attemptInDoubt{id: id, existed: existed, prev: prev, old: old, nw: nw, ver: ver})
		}
		return ok, nil
	})
	return ver, applied, err
}

// encodeNewImage checks that nw, the image a MutateFunc returned for key
// of t, has that key, and encodes it; nil (a delete) encodes as nil.
func encodeNewImage(t *storage.Table, key storage.Key, nw item.Item) ([]byte, error) {
	if nw == nil {
		return nil, nil
	}
	nk, err := storage.ItemKey(t, nw)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(nk.PK, key.PK) || !bytes.Equal(nk.SK, key.SK) {
		return nil, errors.New("cassandra: new image's key differs from the mutated key")
	}
	return item.MarshalItem(nw), nil
}

// itemWriteQuery is the LWT of a single-item write of key from cur (nil:
// never written) to nw (nil: a delete), encoded as blob, at version ver,
// with the row's write history writes.
func (b *Backend) itemWriteQuery(p phys, key storage.Key, cur *current, nw item.Item, blob []byte, ver int64, writes []byte) *gocql.Query {
	if cur == nil {
		return b.s.Query(`INSERT INTO `+p.items+` (pk, sk, item, version, size, writes) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
			key.PK, storage.StoredSK(key.SK), blob, ver, item.Size(nw), writes)
	}
	// A delete keeps the row as a tombstone (item null) with its version
	// and history; an update, a delete and the re-creation of a deleted
	// item are fenced on the version read and on no transaction holding
	// the item.
	size := 0
	if nw != nil {
		size = item.Size(nw)
	}
	return b.s.Query(`UPDATE `+p.items+` SET item = ?, version = ?, size = ?, writes = ? WHERE pk = ? AND sk = ? IF version = ? AND txn = null`,
		blob, ver, size, writes, key.PK, storage.StoredSK(key.SK), cur.version)
}

// writeEffects writes what follows from a committed write of key (old ->
// nw at version ver): its index rows, then its stream record and expiry
// rows (streams.go). Each is stamped with ver or keyed by it, so writing
// them again rewrites the same cells. They are derived from an entry of
// the table no older than the entry budget (freshEntry, index_online.go),
// so that a write committed after a new index's backfill started
// maintains that index.
func (b *Backend) writeEffects(ctx context.Context, t *storage.Table, p phys, key storage.Key, old, nw item.Item, ver int64) error {
	return b.effects(ctx, t, p, key, old, nw, nw, ver)
}

// effects is writeEffects with the index rows changed from old to indexed
// (nw, or nil to remove old's rows only: a replay of a write the item has
// moved on from, recovery's apply).
func (b *Backend) effects(ctx context.Context, t *storage.Table, p phys, key storage.Key, old, nw, indexed item.Item, ver int64) error {
	ft, err := b.freshEntry(ctx, t)
	if err != nil {
		return err
	}
	if ft != t {
		if t.Filling() && !ft.Filling() {
			ft = stillFilling(ft)
		}
		t, p = ft, b.phys(ft)
	}
	if err := b.writeIndexes(ctx, t, p, old, indexed, ver); err != nil {
		return err
	}
	return b.writeDerived(ctx, t, key, old, nw, ver)
}

// stillFilling is entry t of a table that turned ACTIVE after a write a
// filling job made into it (a repair or an intent replayed late): that
// write still owes every index row of its image (indexWrites), so its
// effects see t as filling. Only the index rows read the status.
func stillFilling(t *storage.Table) *storage.Table {
	c := *t
	c.Status, c.ActiveAt = storage.StatusCreating, storage.FillingUntil
	return &c
}

// attemptInDoubt is a conditional write whose outcome is not known yet.
type attemptInDoubt struct {
	id      uint64 // its write ID
	existed bool   // the row existed (fenced on prev, else on absence)
	prev    int64  // the version it was fenced on
	old, nw item.Item
	ver     int64
}

// resolveDoubt checks the attempts in doubt against the current row cur:
// it returns one that turns out to have applied (its write ID is in the
// row's history), and drops those that a newer commit has ruled out (the
// row moved past their fence without them).
func resolveDoubt(doubtful *[]attemptInDoubt, cur *current) (attemptInDoubt, bool) {
	keep := (*doubtful)[:0]
	for _, a := range *doubtful {
		switch {
		case cur != nil && hasWrite(cur.writes, a.id):
			return a, true
		case cur == nil && !a.existed, cur != nil && a.existed && cur.version == a.prev && cur.txn == "":
			keep = append(keep, a) // still at its fence: may yet apply
		}
	}
	*doubtful = keep
	return attemptInDoubt{}, false
}

// writeDir records that partition pk of the table (ix "") or of an index
// (ix its physical ID) may hold rows.
func (b *Backend) writeDir(ctx context.Context, p phys, ix string, pk []byte) error {
	h := item.PartitionHash(pk)
	return b.retry(ctx, func() error {
		return b.s.Query(`INSERT INTO `+p.dir+` (ix, b, h, pk) VALUES (?, ?, ?, ?)`, ix, int(h>>bucketShift), int64(h), pk).
			WithContext(ctx).Idempotent(true).Exec()
	})
}

// writeIndexes applies the index changes of one item write (old -> nw,
// committed at version ver; indexWrites) in one logged batch whose every
// statement is stamped USING TIMESTAMP ver: a later version's rows win over
// an earlier one's whatever order the batches arrive in. The changes never
// delete and insert one row in one write (at one timestamp the tombstone
// would win), so an unchanged index key is a lone INSERT.
func (b *Backend) writeIndexes(ctx context.Context, t *storage.Table, p phys, old, nw item.Item, ver int64) error {
	changes := indexWrites(t, old, nw)
	if len(changes) == 0 {
		return nil
	}
	batch := b.s.Batch(gocql.LoggedBatch)
	for _, c := range changes {
		tbl := p.index[c.Index.IndexName]
		if c.Delete != nil {
			r := c.Delete
			batch.Query(`DELETE FROM `+tbl+` USING TIMESTAMP ? WHERE ipk = ? AND isk = ? AND pk = ? AND sk = ?`,
				ver, r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK))
		}
		if c.Put != nil {
			r := c.Put
			batch.Query(`INSERT INTO `+tbl+` (ipk, isk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
				r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK), item.MarshalItem(r.Item), item.Size(r.Item), ver)
			h := item.PartitionHash(r.IndexKey.PK)
			batch.Query(`INSERT INTO `+p.dir+` (ix, b, h, pk) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`,
				physID(c.Index.ID), int(h>>bucketShift), int64(h), r.IndexKey.PK, ver)
		}
	}
	err := b.retry(ctx, func() error { return batch.WithContext(ctx).Exec() })
	// An index table missing (dropped, or not created yet): see
	// index_online.go.
	if err != nil && isUnconfigured(err) {
		err = b.indexTableMissing(ctx, t, old, nw, ver, err)
	}
	if err != nil {
		return fmt.Errorf("cassandra: index rows of a committed write (version %d): %w", ver, err)
	}
	return nil
}

// indexWrites returns the index changes a write of t from old to nw makes:
// storage.IndexChanges, or storage.IndexRewrites when a job is filling t
// (storage.Table.Filling: a restore or an import, the only writer of a
// table CREATING). A filling job killed between an item's commit and its
// index rows leaves that item without them until another process replays
// the write's intent, after the killed one's lease lapses (intents.go);
// the resumed job writes the same image again, which changes no index
// row, so it writes every row of the image, stamped with its own, newer
// version: the table is complete when the job sets it ACTIVE. Other
// writes, which a crash can leave without their rows just as well, leave
// them to the replay and write only what changes (docs/adr/0018j).
func indexWrites(t *storage.Table, old, nw item.Item) []storage.IndexChange {
	if t.Filling() {
		return storage.IndexRewrites(t, old, nw)
	}
	return storage.IndexChanges(t, old, nw)
}

// retry runs an idempotent request, again after errors that allow it.
func (b *Backend) retry(ctx context.Context, f func() error) error {
	err := f()
	for try := 1; err != nil && retryable(err) && try <= 5; try++ {
		b.noteRetry(retryReason(err))
		if berr := backoff(ctx, try); berr != nil {
			return berr
		}
		err = f()
	}
	return err
}

// wrap keeps the contract's errors as they are and names the operation on
// others.
func wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrTableNotFound), errors.Is(err, storage.ErrClosed),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("cassandra: %s: %w", op, err)
}
