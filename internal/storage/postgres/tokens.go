package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
// now. A claim is arbitrated by the primary key (INSERT ... ON CONFLICT),
// whichever process makes it; the completion is an UPDATE fenced on the
// claim's claimed_at, in the transaction of the writes.

// maxClaimRaces bounds how often ClaimToken tries again after a row it
// could not claim vanished or died before it was read back.
const maxClaimRaces = 8

const (
	// claimTokenSQL inserts a claim, or takes over a dead row. A takeover
	// racing another locks the row and re-checks expires_at, so only one
	// of them updates it.
	claimTokenSQL = `INSERT INTO tx_tokens (account, token, request_hash, claimed_at, completed_at, expires_at, result)
VALUES ($1, $2, $3, $4, NULL, $5, NULL)
ON CONFLICT (account, token) DO UPDATE SET request_hash = EXCLUDED.request_hash, claimed_at = EXCLUDED.claimed_at,
	completed_at = NULL, expires_at = EXCLUDED.expires_at, result = NULL
WHERE tx_tokens.expires_at <= EXCLUDED.claimed_at`
	liveTokenSQL     = "SELECT request_hash, claimed_at, completed_at, result FROM tx_tokens WHERE account = $1 AND token = $2 AND expires_at > $3"
	completeTokenSQL = "UPDATE tx_tokens SET completed_at = $1, expires_at = $2, result = $3 WHERE account = $4 AND token = $5 AND claimed_at = $6 AND completed_at IS NULL"
)

// ClaimToken claims a token (see storage.TokenStore): one upsert, and when
// it claimed nothing, the live row it lost to.
func (b *Backend) ClaimToken(ctx context.Context, account, token string, requestHash []byte, now time.Time) (claimed bool, rec *storage.TokenRecord, err error) {
	at := now.UnixNano()
	err = b.withConn(ctx, func(c *pgxpool.Conn) error {
		for range maxClaimRaces {
			tag, err := c.Exec(ctx, claimTokenSQL, account, token, requestHash, at, now.Add(storage.TokenLease).UnixNano())
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				claimed, rec = true, nil
				return nil
			}
			// The row was live; unless it died or was released since.
			r, err := scanToken(c.QueryRow(ctx, liveTokenSQL, account, token, at))
			if err != nil || r != nil {
				claimed, rec = false, r
				return err
			}
		}
		return fmt.Errorf("postgres: claiming token %q lost %d races", token, maxClaimRaces)
	})
	return claimed, rec, err
}

// scanToken reads a row of liveTokenSQL; nil when there is none.
func scanToken(row pgx.Row) (*storage.TokenRecord, error) {
	var rec storage.TokenRecord
	var claimed int64
	var completed *int64
	switch err := row.Scan(&rec.RequestHash, &claimed, &completed, &rec.Result); {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	rec.ClaimedAt = time.Unix(0, claimed)
	if completed != nil {
		rec.Completed, rec.CompletedAt = true, time.Unix(0, *completed)
	}
	return &rec, nil
}

// TransactWriteToken is TransactWrite plus the completion of tok's claim,
// in the same transaction (see storage.TokenStore).
func (b *Backend) TransactWriteToken(ctx context.Context, ms []storage.Mutation, tok *storage.TokenCompletion) error {
	if len(ms) > 0 {
		return b.transactWrite(ctx, ms, tok)
	}
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		batch := &pgx.Batch{}
		batch.Queue("BEGIN")
		return commitWithToken(ctx, c, batch, nil, tok)
	})
}

// commitWithToken ends a TransactWrite whose writes are queued in writes
// (after BEGIN, without COMMIT): it adds the completion of tok, sends the
// batch, checks that every create at positions inserts created its row
// (errCreateRace otherwise, and the transaction is retried) and that the
// completion updated the claim (storage.ErrTokenLost otherwise), and
// commits.
func commitWithToken(ctx context.Context, c *pgxpool.Conn, writes *pgx.Batch, inserts []int, tok *storage.TokenCompletion) (err error) {
	at := writes.Len()
	writes.Queue(completeTokenSQL, tok.Now.UnixNano(), tok.Now.Add(storage.TokenTTL).UnixNano(), tok.Result(),
		tok.Account, tok.Token, tok.ClaimedAt.UnixNano())
	br := c.SendBatch(ctx, writes)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for i := range writes.Len() {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		switch {
		case i == at && tag.RowsAffected() == 0:
			return &fnError{storage.ErrTokenLost}
		case slices.Contains(inserts, i) && tag.RowsAffected() == 0:
			return errCreateRace
		}
	}
	if err := br.Close(); err != nil {
		return err
	}
	return commit(ctx, c)
}

// ReleaseToken deletes a running claim (see storage.TokenStore).
func (b *Backend) ReleaseToken(ctx context.Context, account, token string, claimedAt time.Time) error {
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		_, err := c.Exec(ctx, "DELETE FROM tx_tokens WHERE account = $1 AND token = $2 AND claimed_at = $3 AND completed_at IS NULL", account, token, claimedAt.UnixNano())
		return err
	})
}

// SetTokenResult replaces the result of a completed claim (see
// storage.TokenStore).
func (b *Backend) SetTokenResult(ctx context.Context, account, token string, claimedAt time.Time, result []byte) error {
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		_, err := c.Exec(ctx, "UPDATE tx_tokens SET result = $1 WHERE account = $2 AND token = $3 AND claimed_at = $4 AND completed_at IS NOT NULL", result, account, token, claimedAt.UnixNano())
		return err
	})
}

// SweepTokens deletes the rows dead at now (see storage.TokenStore).
func (b *Backend) SweepTokens(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		tag, err := c.Exec(ctx, "DELETE FROM tx_tokens WHERE expires_at <= $1", now.UnixNano())
		n = tag.RowsAffected()
		return err
	})
	return n, err
}
