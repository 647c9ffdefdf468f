package cassandra

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
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

// current is the stored state of one item.
type current struct {
	item    item.Item
	blob    []byte
	version int64
	writes  []byte // recent (write ID, version) entries
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

// readItem reads key's row at consistency cl; nil when absent.
func (b *Backend) readItem(ctx context.Context, p phys, key storage.Key, cl gocql.Consistency) (*current, error) {
	var c current
	err := b.s.Query(`SELECT item, version, writes FROM `+p.items+` WHERE pk = ? AND sk = ?`, key.PK, nz(key.SK)).
		WithContext(ctx).Consistency(cl).Scan(&c.blob, &c.version, &c.writes)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
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

// Mutate reads the item at SERIAL, runs fn and writes its result with a
// lightweight transaction fenced on the version read (IF NOT EXISTS for an
// absent item); a lost race runs again from a fresh SERIAL read, at most
// Options.MaxAttempts times with jittered backoff. A delete of an absent
// item, and fn returning old itself, write nothing. After the fenced write,
// the index rows follow in one logged batch stamped with the new version.
func (b *Backend) Mutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	p := b.phys(t)
	defer lockItem(t, key)() // streams.go: a stream's writes of one item, one at a time in this process
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
	for attempt := 1; ; attempt++ {
		var cur *current
		err := b.retry(ctx, func() (err error) {
			cur, err = b.readItem(ctx, p, key, gocql.Serial)
			return err
		})
		if err != nil {
			return nil, err
		}
		if a, ok := resolveDoubt(&doubtful, cur); ok {
			if err := b.writeIndexes(ctx, t, p, a.old, a.nw, a.ver); err != nil {
				return nil, err
			}
			return nil, b.writeDerived(ctx, t, key, a.old, a.nw, a.ver) // streams.go: stream record, expiry rows
		}
		var old item.Item
		var prev int64
		var writes []byte
		if cur != nil {
			old, prev, writes = cur.item, cur.version, cur.writes
		}
		nw, fnErr := callFn(fn, old)
		if fnErr != nil {
			return fnErr, nil
		}
		if (old == nil && nw == nil) || sameMap(old, nw) {
			return nil, nil
		}
		var blob []byte
		if nw != nil {
			nk, err := storage.ItemKey(t, nw)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(nk.PK, key.PK) || !bytes.Equal(nk.SK, key.SK) {
				return nil, errors.New("cassandra: new image's key differs from the mutated key")
			}
			blob = item.MarshalItem(nw)
		}
		ver := b.nextVersion(prev)
		id := rand.Uint64()
		writes = appendWrite(writes, id, ver)
		var q *gocql.Query
		switch {
		case nw == nil:
			q = b.s.Query(`DELETE FROM `+p.items+` WHERE pk = ? AND sk = ? IF version = ?`, key.PK, nz(key.SK), prev)
		case old == nil:
			// The directory entry first: a crash after it leaves only an
			// entry for an empty partition, which Scan skips.
			if err := b.writeDir(ctx, p, "", key.PK); err != nil {
				return nil, err
			}
			q = b.s.Query(`INSERT INTO `+p.items+` (pk, sk, item, version, size, writes) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
				key.PK, nz(key.SK), blob, ver, item.Size(nw), writes)
		default:
			q = b.s.Query(`UPDATE `+p.items+` SET item = ?, version = ?, size = ?, writes = ? WHERE pk = ? AND sk = ? IF version = ?`,
				blob, ver, item.Size(nw), writes, key.PK, nz(key.SK), prev)
		}
		applied, err := b.cas(ctx, q, func() (bool, error) {
			got, err := b.readItem(ctx, p, key, gocql.Serial)
			if err != nil {
				return false, err
			}
			// The SERIAL read has finished or discarded the round in doubt.
			// Later writes may have overwritten ours: the row remembers the
			// IDs of its last writes. A deleted row remembers nothing; its
			// absence is taken as our delete.
			ok := got == nil
			if nw != nil {
				ok = got != nil && hasWrite(got.writes, id)
			}
			if !ok {
				doubtful = append(doubtful, attemptInDoubt{id: id, prev: prev, old: old, nw: nw, ver: ver})
			}
			return ok, nil
		})
		if err != nil {
			return nil, err
		}
		if applied {
			if hook := b.beforeIndexes.Load(); hook != nil {
				(*hook)()
			}
			if err := b.writeIndexes(ctx, t, p, old, nw, ver); err != nil {
				return nil, err
			}
			return nil, b.writeDerived(ctx, t, key, old, nw, ver) // streams.go: stream record, expiry rows
		}
		if attempt >= b.maxAttempts {
			return nil, fmt.Errorf("cassandra: lost %d write races in a row on one item", attempt)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// attemptInDoubt is a conditional write whose outcome is not known yet.
type attemptInDoubt struct {
	id      uint64 // its write ID
	prev    int64  // the version it was fenced on (0: absent)
	old, nw item.Item
	ver     int64
}

// resolveDoubt checks the attempts in doubt against the current row cur:
// it returns one that turns out to have applied (its write ID is in the
// row's history, or, for a delete, the row is gone), and drops those that
// a newer commit has ruled out (the row moved past their fence without
// them).
func resolveDoubt(doubtful *[]attemptInDoubt, cur *current) (attemptInDoubt, bool) {
	keep := (*doubtful)[:0]
	for _, a := range *doubtful {
		switch {
		case a.nw != nil && cur != nil && hasWrite(cur.writes, a.id):
			return a, true
		case a.nw == nil && cur == nil:
			return a, true
		case cur == nil && a.prev == 0, cur != nil && cur.version == a.prev:
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
// committed at version ver) in one logged batch whose every statement is
// stamped USING TIMESTAMP ver: a later version's rows win over an earlier
// one's whatever order the batches arrive in. storage.IndexChanges never
// deletes and inserts one row in one write (at one timestamp the tombstone
// would win), so an unchanged index key is a lone INSERT.
func (b *Backend) writeIndexes(ctx context.Context, t *storage.Table, p phys, old, nw item.Item, ver int64) error {
	changes := storage.IndexChanges(t, old, nw)
	if len(changes) == 0 {
		return nil
	}
	batch := b.s.Batch(gocql.LoggedBatch)
	for _, c := range changes {
		tbl := p.index[c.Index.IndexName]
		if c.Delete != nil {
			r := c.Delete
			batch.Query(`DELETE FROM `+tbl+` USING TIMESTAMP ? WHERE ipk = ? AND isk = ? AND pk = ? AND sk = ?`,
				ver, r.IndexKey.PK, nz(r.IndexKey.SK), r.TableKey.PK, nz(r.TableKey.SK))
		}
		if c.Put != nil {
			r := c.Put
			batch.Query(`INSERT INTO `+tbl+` (ipk, isk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`,
				r.IndexKey.PK, nz(r.IndexKey.SK), r.TableKey.PK, nz(r.TableKey.SK), item.MarshalItem(r.Item), item.Size(r.Item), ver)
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

// retry runs an idempotent request, again after errors that allow it.
func (b *Backend) retry(ctx context.Context, f func() error) error {
	err := f()
	for try := 1; err != nil && retryable(err) && try <= 5; try++ {
		if berr := backoff(ctx, try); berr != nil {
			return berr
		}
		err = f()
	}
	return err
}

// callFn runs fn, turning a panic into an error.
func callFn(fn storage.MutateFunc, old item.Item) (nw item.Item, err error) {
	defer func() {
		if p := recover(); p != nil {
			nw, err = nil, fmt.Errorf("cassandra: mutate function panicked: %v", p)
		}
	}()
	return fn(old)
}

// sameMap reports whether a and b are the very same non-nil map.
func sameMap(a, b item.Item) bool {
	if a == nil || b == nil {
		return false
	}
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// nz stores a missing sort key as the empty blob (a clustering value
// cannot be null).
func nz(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// nilIfEmpty maps the stored empty blob back to a missing (nil) key.
func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
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
