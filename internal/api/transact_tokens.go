package api

import (
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// ClientRequestToken idempotency of TransactWriteItems.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#DDB-TransactWriteItems-request-ClientRequestToken
//
// A token is valid for 10 minutes after the first request that used it
// completes. A repeat with the same parameters within that window succeeds
// without applying anything again; a repeat with other parameters is
// IdempotentParameterMismatchException; a repeat while the first is still
// running is TransactionInProgressException. Only successful transactions
// claim their token: after a failure the same token may be used again.
//
// Tokens live in this process's memory (a bounded map, oldest evicted
// first). Making them durable and shared between processes needs a unique
// insert of (account, token) in the catalog store; see
// docs/differences-from-dynamodb.md.

const (
	txTokenTTL = 10 * time.Minute
	maxTokens  = 100_000
)

type txTokenKey struct{ account, token string }

// txTokenEntry is one claimed token. While running is set the first request
// has not finished; once done, replay holds what a repeat reports.
type txTokenEntry struct {
	hash      [32]byte
	running   bool
	completed time.Time
	replay    *txReplay
}

// txReplay is what a repeat of a completed transaction reports: the
// per-table read units of reading its items (DynamoDB reports the capacity
// of reading the items for a repeated token) and the first response's
// ItemCollectionMetrics.
type txReplay struct {
	tables  []string
	units   map[string]float64
	metrics *txMetrics
}

// txTokenStore is the token table of one engine. Entries are evicted in the
// order they completed, which is also the order they expire in.
type txTokenStore struct {
	mu      sync.Mutex
	entries map[txTokenKey]*txTokenEntry
	order   []txTokenKey // completed entries, oldest first
}

func newTxTokenStore() *txTokenStore {
	return &txTokenStore{entries: map[txTokenKey]*txTokenEntry{}}
}

func (e *Engine) txTokens() *txTokenStore { return e.tokens }

// begin claims token for a request whose canonical parameters hash to h.
// It returns a non-nil replay when the token completed a transaction with
// the same parameters less than 10 minutes ago; nil and no error means the
// caller owns the token and must call finish or abandon.
func (s *txTokenStore) begin(k txTokenKey, h [32]byte, now time.Time) (*txReplay, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if en, ok := s.entries[k]; ok {
		if en.hash != h {
			// The message is not documented; DynamoDB Local sends none.
			return nil, ddberr.IdempotentParameterMismatch("Request parameters do not match the previous request with the same idempotency token")
		}
		if en.running {
			// https://github.com/aws/aws-sdk-java-v2/issues/2518 (message seen from DynamoDB)
			return nil, ddberr.TransactionInProgress("Transaction from previous request is still in progress")
		}
		return en.replay, nil
	}
	for len(s.entries) >= maxTokens && len(s.order) > 0 {
		s.evictOldest()
	}
	s.entries[k] = &txTokenEntry{hash: h, running: true}
	return nil, nil
}

// finish records a successful transaction under its token.
func (s *txTokenStore) finish(k txTokenKey, r *txReplay, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	en, ok := s.entries[k]
	if !ok {
		return
	}
	en.running, en.completed, en.replay = false, now, r
	s.order = append(s.order, k)
}

// abandon releases a token whose transaction failed.
func (s *txTokenStore) abandon(k txTokenKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if en, ok := s.entries[k]; ok && en.running {
		delete(s.entries, k)
	}
}

// expire drops completed entries older than txTokenTTL.
func (s *txTokenStore) expire(now time.Time) {
	for len(s.order) > 0 {
		en := s.entries[s.order[0]]
		if en != nil && now.Sub(en.completed) < txTokenTTL {
			return
		}
		s.evictOldest()
	}
}

func (s *txTokenStore) evictOldest() {
	k := s.order[0]
	s.order[0] = txTokenKey{}
	s.order = s.order[1:]
	if en := s.entries[k]; en != nil && !en.running {
		delete(s.entries, k)
	}
	if len(s.order) == 0 {
		s.order = nil
	}
}
