package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// ClientRequestTokens of TransactWriteItems (storage.TokenStore).
//
//	tx_tokens(account, token, request_hash, claimed_at, completed_at, expires_at, result)
//	                                 PRIMARY KEY (account, token); times in Unix nanoseconds
//
// completed_at is NULL while the claim runs. expires_at is claimed_at +
// storage.TokenLease for a running claim and completed_at +
// storage.TokenTTL for a completed one: a row is live while expires_at >
// now. Every write goes through the single writer, which serialises
// claims; the completion runs in the savepoint of the transaction's writes.

const (
	// claimTokenSQL inserts a claim, or takes over a dead row.
	claimTokenSQL = `INSERT INTO tx_tokens (account, token, request_hash, claimed_at, completed_at, expires_at, result)
VALUES (?, ?, ?, ?, NULL, ?, NULL)
ON CONFLICT (account, token) DO UPDATE SET request_hash = excluded.request_hash, claimed_at = excluded.claimed_at,
	completed_at = NULL, expires_at = excluded.expires_at, result = NULL
WHERE tx_tokens.expires_at <= excluded.claimed_at`
	liveTokenSQL = "SELECT request_hash, claimed_at, completed_at, result FROM tx_tokens WHERE account = ? AND token = ? AND expires_at > ?"
)

// ClaimToken claims a token (see storage.TokenStore). A live row is read
// first on the read pool, so a replay writes nothing; otherwise the writer
// inserts the claim or takes over a dead row, and reads the row back when
// another claim got there first.
func (b *Backend) ClaimToken(ctx context.Context, account, token string, requestHash []byte, now time.Time) (bool, *storage.TokenRecord, error) {
	if b.isClosed() {
		return false, nil, storage.ErrClosed
	}
	s, err := b.readStmt(ctx, liveTokenSQL)
	if err != nil {
		return false, nil, err
	}
	rec, err := scanToken(s.QueryRowContext(ctx, account, token, now.UnixNano()))
	if err != nil || rec != nil {
		return false, rec, err
	}
	claimed := false
	err = b.submit(ctx, false, func(w *writer) error {
		claimed, rec = false, nil
		at := now.UnixNano()
		if n, err := w.execCount(claimTokenSQL, account, token, requestHash, at, now.Add(storage.TokenLease).UnixNano()); err != nil || n == 1 {
			claimed = err == nil
			return err
		}
		s, err := w.stmt(liveTokenSQL)
		if err != nil {
			return err
		}
		rec, err = scanToken(s.QueryRow(account, token, at))
		if err == nil && rec == nil {
			err = errors.New("sqlite: token claim lost to a row that is not live")
		}
		return err
	})
	return claimed, rec, err
}

// scanToken reads a row of liveTokenSQL; nil when there is none.
func scanToken(row *sql.Row) (*storage.TokenRecord, error) {
	var rec storage.TokenRecord
	var claimed int64
	var completed sql.NullInt64
	switch err := row.Scan(&rec.RequestHash, &claimed, &completed, &rec.Result); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, mapErr(err)
	}
	rec.ClaimedAt = time.Unix(0, claimed)
	if completed.Valid {
		rec.Completed, rec.CompletedAt = true, time.Unix(0, completed.Int64)
	}
	return &rec, nil
}

// TransactWriteToken is TransactWrite plus the completion of tok's claim,
// in the same savepoint (see storage.TokenStore).
func (b *Backend) TransactWriteToken(ctx context.Context, ms []storage.Mutation, tok *storage.TokenCompletion) error {
	id := storage.UserIdentityFrom(ctx)
	return b.submit(ctx, false, func(w *writer) error {
		if err := w.transact(ms, id); err != nil {
			return err
		}
		n, err := w.execCount("UPDATE tx_tokens SET completed_at = ?, expires_at = ?, result = ? WHERE account = ? AND token = ? AND claimed_at = ? AND completed_at IS NULL",
			tok.Now.UnixNano(), tok.Now.Add(storage.TokenTTL).UnixNano(), tok.Result(), tok.Account, tok.Token, tok.ClaimedAt.UnixNano())
		if err == nil && n == 0 {
			err = storage.ErrTokenLost
		}
		return err
	})
}

// ReleaseToken deletes a running claim (see storage.TokenStore).
func (b *Backend) ReleaseToken(ctx context.Context, account, token string, claimedAt time.Time) error {
	return b.submit(ctx, false, func(w *writer) error {
		_, err := w.exec("DELETE FROM tx_tokens WHERE account = ? AND token = ? AND claimed_at = ? AND completed_at IS NULL", account, token, claimedAt.UnixNano())
		return err
	})
}

// SetTokenResult replaces the result of a completed claim (see
// storage.TokenStore).
func (b *Backend) SetTokenResult(ctx context.Context, account, token string, claimedAt time.Time, result []byte) error {
	return b.submit(ctx, false, func(w *writer) error {
		_, err := w.exec("UPDATE tx_tokens SET result = ? WHERE account = ? AND token = ? AND claimed_at = ? AND completed_at IS NOT NULL", result, account, token, claimedAt.UnixNano())
		return err
	})
}

// SweepTokens deletes the rows dead at now (see storage.TokenStore).
func (b *Backend) SweepTokens(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := b.submit(ctx, false, func(w *writer) error {
		var err error
		n, err = w.execCount("DELETE FROM tx_tokens WHERE expires_at <= ?", now.UnixNano())
		return err
	})
	return n, err
}
