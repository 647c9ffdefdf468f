package cassandra

import (
	"bytes"
	"context"
	"errors"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// Step 2 of a transaction attempt (see tx.go): the ledger row in PREPARE,
// the marks, in one global key order, and the write intents.

// openLedger writes the attempt's ledger row in PREPARE: a new row, or
// for a ClientRequestToken the token's record, fenced on its claim.
func (r *txRunning) openLedger(ctx context.Context) error {
	b := r.b
	started := time.Now().UnixNano()
	var q *gocql.Query
	if r.tok == nil {
		q = b.s.Query(`INSERT INTO `+b.catalog+`.txns (id, attempt, status, started, items) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS`,
			r.id, r.attempt, txPrepare, started, encodeRefs(r.refs))
	} else {
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET attempt = ?, status = ?, started = ?, items = ? WHERE id = ? IF claimed_at = ? AND status = null AND completed = false`,
			r.attempt, txPrepare, started, encodeRefs(r.refs), r.id, r.tok.ClaimedAt.UnixNano())
	}
	ok, err := b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, r.id)
		return err == nil && l != nil && l.attempt == r.attempt, err
	})
	if err != nil {
		return err
	}
	if !ok {
		return r.lost(ctx)
	}
	r.lastBeat = time.Now()
	return nil
}

// beat keeps the ledger young while the attempt runs, so that nobody
// takes it for the ledger of a stopped frontend (see waitForTx); it
// reports whether the attempt is still in PREPARE.
func (r *txRunning) beat(ctx context.Context) (bool, error) {
	if time.Since(r.lastBeat) < r.b.txTimeout/3 {
		return true, nil
	}
	r.lastBeat = time.Now()
	return r.b.txHeartbeat(ctx, r.id, r.attempt)
}

// markAll marks the items in order, each from the image its function
// last ran on. Once every item is marked, no image can change until the
// marks go, so the functions' results hold at that instant. An error is
// the cause to abort the attempt with.
func (r *txRunning) markAll(ctx context.Context) error {
	for _, it := range r.order {
		if err := r.markItem(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// markItem marks one item: a lost fence reads the item again (waiting,
// with the earlier marks held, for a transaction that holds it) and runs
// its function again.
func (r *txRunning) markItem(ctx context.Context, it *txItem) error {
	b := r.b
	var held txWait
	for races := 0; ; {
		alive, err := r.beat(ctx)
		if err != nil {
			return err
		}
		if !alive {
			return r.lost(ctx)
		}
		switch {
		case it.cur != nil && it.cur.txn == r.mark:
			// A mark of this attempt whose outcome was in doubt landed
			// after all. It was fenced on the version of the image the
			// row still holds: keep it if the function, run again on
			// that image, gives what it stores.
			fnErr, err := b.txEval(it)
			if err != nil {
				return err
			}
			if it.op == it.cur.txOp && bytes.Equal(it.blob, it.cur.txNew) {
				r.reasons[it.idx], it.ver = fnErr, it.cur.txVer
				return nil
			}
			if err := b.unmarkPhys(ctx, it.p, it.m.Key, r.mark); err != nil {
				return err
			}
		case it.cur != nil && it.cur.txn != "":
			if err := b.waitForTx(ctx, &held, it.p, it.m.Key, it.cur.txn); err != nil {
				if errors.Is(err, storage.ErrTransactionConflict) {
					return r.conflict(it)
				}
				return err
			}
		default:
			fnErr, err := b.txEval(it)
			if err != nil {
				return err
			}
			r.reasons[it.idx] = fnErr
			err = b.txMark(ctx, it, r.mark)
			if err == nil {
				return nil
			}
			if !errors.Is(err, errTxRetry) {
				return err
			}
			if races++; races >= b.maxAttempts {
				return r.conflict(it)
			}
		}
		if it.cur, err = b.readTxItem(ctx, it); err != nil {
			return err
		}
	}
}

// conflict cancels the transaction for it, which another transaction held
// for too long or kept taking: DynamoDB's TransactionConflict.
func (r *txRunning) conflict(it *txItem) error {
	reasons := make([]error, len(r.items))
	reasons[it.idx] = storage.ErrTransactionConflict
	return &storage.TransactionError{Reasons: reasons}
}

// writeIntents records the intents of the item writes (intents.go), so
// that a crash after the commit point leaves them for the recovery of this
// frontend's writes, and then checks that the attempt is still in PREPARE.
func (r *txRunning) writeIntents(ctx context.Context) error {
	for i, it := range r.order {
		if it.op == txCheck {
			continue
		}
		if err := r.b.writeIntent(ctx, it.m.Table, it.m.Key, it.old, it.nw, it.ver, txWriteID(r.mark, i)); err != nil {
			return err
		}
	}
	alive, err := r.b.txHeartbeat(ctx, r.id, r.attempt)
	if err == nil && !alive {
		err = r.lost(ctx)
	}
	return err
}

// txMark marks one item for the attempt mark: an LWT fenced on the
// version read (or the item's absence) and on no other mark. It returns
// errTxRetry when the fence failed.
func (b *Backend) txMark(ctx context.Context, it *txItem, mark string) error {
	var q *gocql.Query
	key := it.m.Key
	if it.cur == nil {
		// A row for the absent item, a tombstone of version 0, to carry
		// the mark. The directory entry first, as for any first write.
		if it.op == txPut {
			if err := b.writeDir(ctx, it.p, "", key.PK); err != nil {
				return err
			}
		}
		q = b.s.Query(`INSERT INTO `+it.p.items+` (pk, sk, version, txn, tx_new, tx_ver, tx_op) VALUES (?, ?, 0, ?, ?, ?, ?) IF NOT EXISTS`,
			key.PK, storage.StoredSK(key.SK), mark, it.blob, it.ver, it.op)
	} else {
		if it.op == txPut && it.old == nil {
			if err := b.writeDir(ctx, it.p, "", key.PK); err != nil {
				return err
			}
		}
		q = b.s.Query(`UPDATE `+it.p.items+` SET txn = ?, tx_new = ?, tx_ver = ?, tx_op = ? WHERE pk = ? AND sk = ? IF version = ? AND txn = null`,
			mark, it.blob, it.ver, it.op, key.PK, storage.StoredSK(key.SK), it.cur.version)
	}
	var ok bool
	err := b.withTable(ctx, it.m.Table, func() (err error) {
		ok, err = b.cas(ctx, q, func() (bool, error) {
			got, err := b.readItem(ctx, it.p, key, gocql.Serial)
			return err == nil && got != nil && got.txn == mark, err
		})
		return err
	})
	if err != nil {
		return err
	}
	if !ok {
		return errTxRetry
	}
	return nil
}

// txHeartbeat moves the start of a PREPARE attempt to now and reports
// whether the ledger still holds the attempt in PREPARE (a recovery that
// found it too old may have aborted it).
func (b *Backend) txHeartbeat(ctx context.Context, id, attempt string) (bool, error) {
	now := time.Now().UnixNano()
	q := b.s.Query(`UPDATE `+b.catalog+`.txns SET started = ? WHERE id = ? IF status = ? AND attempt = ?`, now, id, txPrepare, attempt)
	return b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, id)
		return err == nil && l != nil && l.attempt == attempt && l.status == txPrepare && l.started == now, err
	})
}
