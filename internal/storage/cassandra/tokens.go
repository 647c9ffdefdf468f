package cassandra

import (
	"context"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/storage"
)

// ClientRequestTokens of TransactWriteItems (storage.TokenStore). A token's
// record is its row of the transaction ledger (txns, tx.go), ID
// "t/<account>/<token>": the commit point of the token's transaction is the
// LWT that completes the record, so the writes and the completion commit
// together. Times are stored as nanoseconds since the epoch (a CQL
// timestamp keeps only milliseconds, and ClaimedAt identifies a claim).

// tokenRow is the ledger ID of a token's record.
func tokenRow(account, token string) string { return "t/" + account + "/" + token }

// isTokenRow reports whether ledger row id is a token's record.
func isTokenRow(id string) bool { return strings.HasPrefix(id, "t/") }

// tokenDead reports whether a record is dead at now (see storage.TokenTTL
// and storage.TokenLease).
func tokenDead(l *ledger, now time.Time) bool {
	if l.claimedAt == 0 {
		return true
	}
	if l.completed {
		return !time.Unix(0, l.completedAt).Add(storage.TokenTTL).After(now)
	}
	return !time.Unix(0, l.claimedAt).Add(storage.TokenLease).After(now)
}

// ClaimToken claims token of account (see storage.TokenStore): an INSERT
// IF NOT EXISTS when there is no record, or an update fenced on the dead
// record's claim otherwise. A dead claim whose transaction is still in
// flight is finished first (recoverLedger).
func (b *Backend) ClaimToken(ctx context.Context, account, token string, requestHash []byte, now time.Time) (bool, *storage.TokenRecord, error) {
	if b.closed.Load() {
		return false, nil, storage.ErrClosed
	}
	id := tokenRow(account, token)
	for attempt := 1; ; attempt++ {
		if attempt > b.maxAttempts {
			return false, nil, wrap("claim token", errTxRetry)
		}
		l, err := b.readLedger(ctx, id)
		if err != nil {
			return false, nil, wrap("claim token", err)
		}
		if l != nil && !tokenDead(l, now) && l.status == txCommitting {
			// Completed at its commit point but not yet committed item by
			// item: finish it first, so that a replay's success is never
			// reported before the writes can be read.
			if _, err := b.recoverLedger(ctx, id, l); err != nil {
				return false, nil, wrap("claim token", err)
			}
			continue
		}
		if l != nil && !tokenDead(l, now) {
			return false, &storage.TokenRecord{
				RequestHash: l.hash, ClaimedAt: time.Unix(0, l.claimedAt), Completed: l.completed,
				CompletedAt: time.Unix(0, l.completedAt), Result: l.result,
			}, nil
		}
		if l != nil && l.status != "" {
			// The lapsed claim's transaction is in flight: finish it.
			if _, err := b.recoverLedger(ctx, id, l); err != nil {
				return false, nil, wrap("claim token", err)
			}
			continue
		}
		// The claim's own ID tells, after an outcome in doubt, whether
		// this claim is the one stored (racers may share now and hash).
		claim := uuid.NewString()
		var q *gocql.Query
		if l == nil {
			q = b.s.Query(`INSERT INTO `+b.catalog+`.txns (id, hash, claim, claimed_at, completed) VALUES (?, ?, ?, ?, false) IF NOT EXISTS`,
				id, requestHash, claim, now.UnixNano())
		} else {
			q = b.s.Query(`UPDATE `+b.catalog+`.txns SET hash = ?, claim = ?, claimed_at = ?, completed = false, completed_at = null, result = null WHERE id = ? IF claimed_at = ? AND status = null`,
				requestHash, claim, now.UnixNano(), id, l.claimedAt)
		}
		ok, err := b.cas(ctx, q, func() (bool, error) {
			got, err := b.readLedger(ctx, id)
			return err == nil && got != nil && got.claim == claim, err
		})
		if err != nil {
			return false, nil, wrap("claim token", err)
		}
		if ok {
			return true, nil, nil
		}
	}
}

// TransactWriteToken is TransactWrite completing the claim tok at its
// commit point (see storage.TokenStore).
func (b *Backend) TransactWriteToken(ctx context.Context, ms []storage.Mutation, tok *storage.TokenCompletion) error {
	return b.transact(ctx, ms, tok)
}

// ReleaseToken deletes the running claim of token taken at claimedAt.
func (b *Backend) ReleaseToken(ctx context.Context, account, token string, claimedAt time.Time) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	id := tokenRow(account, token)
	q := b.s.Query(`DELETE FROM `+b.catalog+`.txns WHERE id = ? IF claimed_at = ? AND completed = false AND status = null`, id, claimedAt.UnixNano())
	_, err := b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, id)
		return err == nil && (l == nil || l.claimedAt != claimedAt.UnixNano()), err
	})
	return wrap("release token", err)
}

// SetTokenResult replaces the result of the completed claim taken at
// claimedAt.
func (b *Backend) SetTokenResult(ctx context.Context, account, token string, claimedAt time.Time, result []byte) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	id := tokenRow(account, token)
	q := b.s.Query(`UPDATE `+b.catalog+`.txns SET result = ? WHERE id = ? IF claimed_at = ? AND completed = true`, result, id, claimedAt.UnixNano())
	_, err := b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, id)
		return err == nil && (l == nil || l.claimedAt != claimedAt.UnixNano() || string(l.result) == string(result)), err
	})
	return wrap("set token result", err)
}

// SweepTokens deletes the token records dead at now, each with a delete
// fenced on the claim it found dead, and returns how many it deleted.
func (b *Backend) SweepTokens(ctx context.Context, now time.Time) (int64, error) {
	if b.closed.Load() {
		return 0, storage.ErrClosed
	}
	iter := b.s.Query(`SELECT id, status, claimed_at, completed, completed_at FROM ` + b.catalog + `.txns`).WithContext(ctx).PageSize(pageSize).Iter()
	type dead struct {
		id        string
		claimedAt int64
	}
	var found []dead
	var id string
	var status *string
	var claimedAt, completedAt *int64
	var completed *bool
	for iter.Scan(&id, &status, &claimedAt, &completed, &completedAt) {
		if isTokenRow(id) && deref(status) == "" {
			l := &ledger{claimedAt: deref(claimedAt), completed: deref(completed), completedAt: deref(completedAt)}
			if l.claimedAt != 0 && tokenDead(l, now) {
				found = append(found, dead{id, l.claimedAt})
			}
		}
		status, claimedAt, completedAt, completed = nil, nil, nil, nil
	}
	if err := iter.Close(); err != nil {
		return 0, wrap("sweep tokens", err)
	}
	var n int64
	for _, d := range found {
		q := b.s.Query(`DELETE FROM `+b.catalog+`.txns WHERE id = ? IF claimed_at = ? AND status = null`, d.id, d.claimedAt)
		ok, err := b.cas(ctx, q, func() (bool, error) {
			l, err := b.readLedger(ctx, d.id)
			return err == nil && l == nil, err
		})
		if err != nil {
			return n, wrap("sweep tokens", err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}
