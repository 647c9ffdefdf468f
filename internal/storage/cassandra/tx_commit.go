package cassandra

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Steps 4 and 5 of a transaction attempt (see tx.go): every item committed
// from its mark, with its derived rows, then the ledger cleared.

// errTxCommitted is abortTx's report that the attempt it was to abort has
// passed its commit point.
var errTxCommitted = errors.New("cassandra: the transaction attempt committed")

// txCommitAll is steps 4 and 5 of an attempt past its commit point: it
// commits every item and clears the ledger. The transaction is committed
// whatever happens here, so a failure is not reported (a retry by the
// client would apply it twice): the ledger stays COMMITTING and whoever
// next waits for one of its items, or Recover, finishes it.
func (b *Backend) txCommitAll(ctx context.Context, id, attempt, mark string, order []*txItem, token bool) error {
	for i, it := range order {
		var err error
		for try := 1; try <= 3; try++ {
			if err = b.txCommit(ctx, it.m.Table, it.p, it.m.Key, mark, i, it.old, it.cur); err == nil || ctx.Err() != nil {
				break
			}
		}
		if err != nil {
			return nil
		}
	}
	_ = b.finishLedger(ctx, id, attempt, token)
	return nil
}

// txWriteID is the write ID of item i's commit in the attempt mark: the
// same for whoever commits it, so the item's write history says whether
// the commit applied.
func txWriteID(mark string, i int) uint64 {
	h := sha256.Sum256(fmt.Appendf(nil, "%s#%d", mark, i))
	return binary.BigEndian.Uint64(h[:8])
}

// txCommit commits item i (in ledger order) of the attempt mark: an LWT
// fenced on the mark stores the marked image at the marked version and
// clears the mark; then the write's index rows, stream record and expiry
// rows follow. When the item no longer carries the mark, someone else
// committed it (a recovery, which writes the effects after its commit,
// with an intent) and nothing is written. old and cur, when known, are the image and row
// the mark was fenced on; a recovery passes nil and reads them.
func (b *Backend) txCommit(ctx context.Context, t *storage.Table, p phys, key storage.Key, mark string, i int, old item.Item, cur *current) error {
	wid := txWriteID(mark, i)
	// What the mark stores, once a read has shown it.
	var seen *current
	var nw item.Item
	for attempt := 1; ; attempt++ {
		var row *current
		err := b.withTable(ctx, t, func() error {
			return b.retry(ctx, func() (err error) {
				row, err = b.readItem(ctx, p, key, gocql.Serial)
				return err
			})
		})
		if err != nil {
			return err
		}
		if row == nil {
			return nil // the table was recreated or the row never marked
		}
		if row.txn != mark {
			// Committed: by a recovery (which writes the effects after
			// its commit), or by an attempt of this call whose outcome
			// was in doubt and that landed after all, whose effects are
			// written here (again, harmlessly, if a recovery did too).
			if seen != nil && seen.txOp != txCheck && hasWrite(row.writes, wid) && (old != nil || nw != nil) {
				return b.committed(ctx, t, p, key, old, nw, seen.txVer)
			}
			return nil
		}
		if seen == nil {
			seen = row
			if cur == nil {
				old = row.item
			}
			if row.txOp == txPut {
				if nw, err = item.UnmarshalItem(row.txNew); err != nil {
					return fmt.Errorf("cassandra: corrupt marked image in %s: %w", p.items, err)
				}
			}
		}
		var q *gocql.Query
		switch row.txOp {
		case txPut, txDelete:
			size := 0
			if nw != nil {
				size = item.Size(nw)
			}
			writes := appendWrite(row.writes, wid, row.txVer)
			q = b.s.Query(`UPDATE `+p.items+` SET item = ?, version = ?, size = ?, writes = ?, txn = null, tx_new = null, tx_ver = null, tx_op = null WHERE pk = ? AND sk = ? IF txn = ?`,
				row.txNew, row.txVer, size, writes, key.PK, storage.StoredSK(key.SK), mark)
		default:
			q = b.s.Query(`UPDATE `+p.items+` SET txn = null, tx_new = null, tx_ver = null, tx_op = null WHERE pk = ? AND sk = ? IF txn = ?`,
				key.PK, storage.StoredSK(key.SK), mark)
		}
		var ok bool
		err = b.withTable(ctx, t, func() (err error) {
			ok, err = b.cas(ctx, q, func() (bool, error) {
				got, err := b.readItem(ctx, p, key, gocql.Serial)
				if err != nil || got == nil {
					return false, err
				}
				return got.txn != mark, nil // only a commit removes a mark of a COMMITTING ledger
			})
			return err
		})
		if err != nil {
			return err
		}
		if ok {
			if row.txOp == txCheck || (old == nil && nw == nil) {
				return nil
			}
			return b.committed(ctx, t, p, key, old, nw, row.txVer)
		}
		// Not applied, or in doubt: the next read tells. The mark stays
		// until a commit removes it, so the ledger is never cleared with
		// a mark left (which a waiter would take for an orphan).
		if attempt >= b.maxAttempts {
			return fmt.Errorf("cassandra: commit of a transaction's item stays in doubt after %d attempts", attempt)
		}
		if err := backoff(ctx, min(attempt, 6)); err != nil {
			return err
		}
	}
}

// txCommitRecovered commits item i of a COMMITTING attempt on behalf of a
// frontend that did not: an intent first, in this frontend's name, so that
// a crash of this one too is recovered.
func (b *Backend) txCommitRecovered(ctx context.Context, t *storage.Table, key storage.Key, mark string, i int) error {
	p := b.phys(t)
	var row *current
	err := b.withTable(ctx, t, func() error {
		return b.retry(ctx, func() (err error) {
			row, err = b.readItem(ctx, p, key, gocql.Serial)
			return err
		})
	})
	if err != nil || row == nil || row.txn != mark {
		return err
	}
	if row.txOp != txCheck {
		var nw item.Item
		if row.txOp == txPut {
			if nw, err = item.UnmarshalItem(row.txNew); err != nil {
				return fmt.Errorf("cassandra: corrupt marked image in %s: %w", p.items, err)
			}
		}
		if err := b.writeIntent(ctx, t, key, row.item, nw, row.txVer, txWriteID(mark, i)); err != nil {
			return err
		}
	}
	return b.txCommit(ctx, t, p, key, mark, i, nil, nil)
}
