package cassandra

import (
	"context"
	"errors"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// Step 3 of a transaction attempt (see tx.go): the commit point.

// commitPoint moves the ledger from PREPARE to COMMITTING in one LWT: the
// instant the transaction commits. For a ClientRequestToken the same LWT
// completes the token's record with its result. When it does not apply
// (a recovery aborted the attempt, taking it for a stopped one, or the
// token's claim was taken over) nothing was applied, and the error says
// so.
func (r *txRunning) commitPoint(ctx context.Context) error {
	b := r.b
	var q *gocql.Query
	if r.tok == nil {
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET status = ? WHERE id = ? IF status = ? AND attempt = ?`,
			txCommitting, r.id, txPrepare, r.attempt)
	} else {
		var result []byte
		if r.tok.Result != nil {
			result = r.tok.Result()
		}
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET status = ?, completed = true, completed_at = ?, result = ? WHERE id = ? IF status = ? AND attempt = ? AND claimed_at = ?`,
			txCommitting, r.tok.Now.UnixNano(), result, r.id, txPrepare, r.attempt, r.tok.ClaimedAt.UnixNano())
	}
	ok, err := b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, r.id)
		return err == nil && l != nil && l.attempt == r.attempt && l.status == txCommitting, err
	})
	if err == nil && !ok {
		err = r.lost(ctx)
	}
	return err
}

// tokenCause tells why a token's transaction lost its ledger row: the
// claim is gone (storage.ErrTokenLost) or, with the claim still running,
// an attempt was aborted or is being finished (errTxRetry: try again).
func (b *Backend) tokenCause(ctx context.Context, id string, tok *storage.TokenCompletion) error {
	l, err := b.readLedger(ctx, id)
	if err != nil {
		return err
	}
	if l == nil || l.claimedAt != tok.ClaimedAt.UnixNano() || l.completed {
		return storage.ErrTokenLost
	}
	return errTxRetry
}

// errTxStopped is what a transaction returns when a test stopped it
// (Backend.txStopAt) as if its process had died.
var errTxStopped = errors.New("cassandra: transaction stopped by a test")

// txStop reports whether a test asked transactions to stop at stage, as if
// the process died there.
func (b *Backend) txStop(stage string) bool {
	f := b.txStopAt.Load()
	return f != nil && (*f)(stage)
}
