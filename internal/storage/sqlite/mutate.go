package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Mutate runs fn on the writer against the committed image of key in t and
// commits its result with the derived index rows (see storage.MutateFunc).
// The writer uses its own catalog entry of t (by t.ID), so index rows always
// follow the committed catalog. Errors: fn's error unchanged;
// storage.ErrTableNotFound when t no longer exists; storage.ErrClosed after
// Close; ctx's error when it ended before the write started; SQLite errors.
func (b *Backend) Mutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	id := storage.UserIdentityFrom(ctx)
	return b.submit(ctx, false, func(w *writer) error {
		fnErr, err := w.mutate(t.ID, key, fn, true, id)
		if err != nil {
			return err
		}
		return fnErr
	})
}

// TransactWrite applies ms in one savepoint: every Fn runs (in order, each
// seeing the writes of the ones before it); if any returns an error nothing
// is written and the result is a *storage.TransactionError whose Reasons[i]
// is mutation i's error (nil for the others). Storage failures, such as
// storage.ErrTableNotFound, are returned as they are.
func (b *Backend) TransactWrite(ctx context.Context, ms []storage.Mutation) error {
	id := storage.UserIdentityFrom(ctx)
	return b.submit(ctx, false, func(w *writer) error { return w.transact(ms, id) })
}

// transact is the body of TransactWrite, run inside the writer's savepoint
// for the request.
func (w *writer) transact(ms []storage.Mutation, id *storage.UserIdentity) error {
	reasons := make([]error, len(ms))
	failed := false
	for i, m := range ms {
		fnErr, err := w.mutate(m.Table.ID, m.Key, m.Fn, !failed, id)
		if err != nil {
			return err
		}
		if fnErr != nil {
			reasons[i] = fnErr
			failed = true
		}
	}
	if failed {
		return &storage.TransactionError{Reasons: reasons}
	}
	return nil
}

// mutate reads the image of key, calls fn and, when write is set and fn
// succeeded, stores the result with its index rows, expiry row and stream
// record (id is the writer's identity for the latter). fnErr is fn's
// error; err is a storage failure.
func (w *writer) mutate(tableID string, key storage.Key, fn storage.MutateFunc, write bool, id *storage.UserIdentity) (fnErr, err error) {
	pt, err := w.table(tableID)
	if err != nil {
		return nil, err
	}
	h := int64(item.PartitionHash(key.PK))
	sk := storage.StoredSK(key.SK)
	get, err := w.stmt(pt.get)
	if err != nil {
		return nil, err
	}
	var oldBlob []byte
	var oldSize int64
	var old item.Item
	switch err := get.QueryRow(h, key.PK, sk).Scan(&oldBlob, &oldSize); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, mapErr(err)
	default:
		if old, err = item.UnmarshalItem(oldBlob); err != nil {
			return nil, fmt.Errorf("sqlite: corrupt item in table %s: %w", pt.def.Name, err)
		}
	}
	nw, fnErr := storage.CallMutateFunc(fn, old)
	if fnErr != nil || !write {
		return fnErr, nil
	}
	if (old == nil && nw == nil) || storage.SameImage(old, nw) {
		return nil, nil
	}
	if nw == nil {
		if _, err := w.exec(pt.del, h, key.PK, sk); err != nil {
			return nil, err
		}
		w.addStats(tableID, -1, -oldSize)
		if err := w.writeIndexes(pt, old, nil, nil, 0); err != nil {
			return nil, err
		}
		return nil, w.writeDerived(pt, old, nil, id, nil, oldBlob)
	}
	nk, err := storage.ItemKey(pt.def, nw)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(nk.PK, key.PK) || !bytes.Equal(nk.SK, key.SK) {
		return nil, fmt.Errorf("sqlite: new image's key differs from the mutated key")
	}
	blob := item.MarshalItem(nw)
	size := int64(item.Size(nw))
	if _, err := w.exec(pt.put, h, key.PK, sk, blob, size); err != nil {
		return nil, err
	}
	if old == nil {
		w.addStats(tableID, 1, size)
	} else {
		w.addStats(tableID, 0, size-oldSize)
	}
	if err := w.writeIndexes(pt, old, nw, blob, size); err != nil {
		return nil, err
	}
	return nil, w.writeDerived(pt, old, nw, id, blob, oldBlob)
}

// writeIndexes persists storage.IndexChanges(old, nw) and the changes to
// each index's counts. blob and size are nw's stored form, reused by ALL
// projections.
func (w *writer) writeIndexes(pt *physTable, old, nw item.Item, blob []byte, size int64) error {
	for _, c := range storage.IndexChanges(pt.def, old, nw) {
		pi := pt.indexes[c.Index.ID]
		if c.Delete != nil {
			r := c.Delete
			res, err := w.exec(pi.Del, int64(item.PartitionHash(r.IndexKey.PK)), r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK))
			if err != nil {
				return err
			}
			// A CREATING index lacks the rows of items its backfill has
			// not reached yet: only a row that was there is uncounted.
			if n, err := res.RowsAffected(); err == nil && n > 0 {
				w.addStats(c.Index.ID, -1, -int64(item.Size(r.Item)))
			}
		}
		if c.Put != nil {
			if c.Replaced != nil && c.Index.Status == storage.StatusCreating {
				// The row may be missing in a CREATING index, as above.
				if err := w.backfillRow(c.Index.ID, pi, c.Put); err != nil {
					return err
				}
				continue
			}
			if err := w.putIndexRow(pi, c.Put, nw, blob, size); err != nil {
				return err
			}
			if c.Replaced != nil {
				w.addStats(c.Index.ID, 0, int64(item.Size(c.Put.Item)-item.Size(c.Replaced.Item)))
			} else {
				w.addStats(c.Index.ID, 1, int64(item.Size(c.Put.Item)))
			}
		}
	}
	return nil
}

// putIndexRow stores r; full is the base image whose stored form (blob,
// size) is reused when r projects all of it.
func (w *writer) putIndexRow(pi *storage.SQLIndexTable, r *storage.IndexRow, full item.Item, blob []byte, size int64) error {
	if blob == nil || !storage.SameImage(r.Item, full) {
		blob = item.MarshalItem(r.Item)
		size = int64(item.Size(r.Item))
	}
	_, err := w.exec(pi.Put, int64(item.PartitionHash(r.IndexKey.PK)), r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK), blob, size)
	return err
}
