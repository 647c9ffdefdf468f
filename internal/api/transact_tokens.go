package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
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
// Every backend (SQLite, PostgreSQL, Cassandra) implements
// storage.TokenStore, so the tokens are stored with the data: a claim is a
// unique insert of (account, token) (on Cassandra an INSERT ... IF NOT
// EXISTS), and the token is completed together with the writes (in the
// same database transaction; on Cassandra in the lightweight transaction
// that is the transaction's commit point), so a token survives restarts
// and is shared by every process using the same data (transactWriteToken).

// txReplay is what a repeat of a completed transaction reports: the
// per-table read units of reading its items (DynamoDB reports the capacity
// of reading the items for a repeated token) and the first response's
// ItemCollectionMetrics.
type txReplay struct {
	tables  []string
	units   map[string]float64
	metrics *txMetrics
	// unsized: the sizes of metrics were not recorded (see
	// transactWriteToken); a replay reads them.
	unsized bool
}

func errTokenMismatch() error {
	// The message is not documented; DynamoDB Local sends none.
	return ddberr.IdempotentParameterMismatch("Request parameters do not match the previous request with the same idempotency token")
}

func errTokenInProgress() error {
	// https://github.com/aws/aws-sdk-java-v2/issues/2518 (message seen from DynamoDB)
	return ddberr.TransactionInProgress("Transaction from previous request is still in progress")
}

// transactWriteToken runs a TransactWriteItems with a ClientRequestToken
// through the backend's storage.TokenStore:
//
//  1. ClaimToken. A live record with other parameters is
//     IdempotentParameterMismatchException; a running one is
//     TransactionInProgressException; a completed one is replayed.
//  2. TransactWriteToken applies the actions and completes the token, with
//     what a replay reports, in one transaction. The ItemCollectionMetrics
//     sizes are read after the commit, so the completion records the
//     collections only and SetTokenResult adds the sizes afterwards (a
//     replay of a record that lacks them reads them then).
//  3. A transaction that did not commit releases the claim. Releasing
//     leaves a completed record alone, so it is safe whatever the outcome
//     of a commit that failed ambiguously.
func (e *Engine) transactWriteToken(ctx context.Context, account string, in *transactWriteItemsInput, writes []*txWrite) (any, error) {
	token := *in.ClientRequestToken
	h := txRequestHash(in)
	claimedAt := e.now()
	claimed, rec, err := e.store.ClaimToken(ctx, account, token, h[:], claimedAt)
	if err != nil {
		return nil, err
	}
	if !claimed {
		if !bytes.Equal(rec.RequestHash, h[:]) {
			return nil, errTokenMismatch()
		}
		if !rec.Completed {
			return nil, errTokenInProgress()
		}
		rp, err := decodeTxReplay(rec.Result)
		if err != nil {
			return nil, err
		}
		if rp.unsized {
			if err := e.sizeReplay(ctx, rp, writes); err != nil {
				return nil, err
			}
		}
		return replayOutput(in, rp), nil
	}
	tok := &storage.TokenCompletion{Account: account, Token: token, ClaimedAt: claimedAt, Result: func() []byte {
		tables, cols := txCollections(in, writes)
		var m *txMetrics
		for i, c := range cols {
			m = m.add(tables[i].Name, c)
		}
		rp := newTxReplay(writes, m)
		rp.unsized = m != nil
		return encodeTxReplay(rp)
	}}
	out, err := e.runTransactWrite(ctx, in, writes, func(ctx context.Context, ms []storage.Mutation) error {
		tok.Now = e.now()
		return e.store.TransactWriteToken(ctx, ms, tok)
	})
	if errors.Is(err, storage.ErrTokenLost) {
		// The claim outlived storage.TokenLease and another request took
		// the token over: that one is running (or ran) it.
		return nil, errTokenInProgress()
	}
	if err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if rerr := e.store.ReleaseToken(rctx, account, token, claimedAt); rerr != nil {
			e.cfg.Log.Warn("releasing a ClientRequestToken", "error", rerr)
		}
		cancel()
		return nil, err
	}
	if out.metrics != nil {
		if err := e.store.SetTokenResult(context.WithoutCancel(ctx), account, token, claimedAt, encodeTxReplay(newTxReplay(writes, out.metrics))); err != nil {
			e.cfg.Log.Warn("recording the ItemCollectionMetrics of a ClientRequestToken", "error", err)
		}
	}
	return out, nil
}

// sizeReplay reads the sizes of the item collections of rp, whose tables
// are those of writes (the request's parameters equal the first one's).
func (e *Engine) sizeReplay(ctx context.Context, rp *txReplay, writes []*txWrite) error {
	tables := map[string]*storage.Table{}
	for _, w := range writes {
		tables[w.t.Name] = w.t
	}
	for _, name := range rp.metrics.tables {
		t := tables[name]
		if t == nil {
			continue
		}
		for _, m := range rp.metrics.m[name] {
			if err := e.sizeCollection(ctx, t, m); err != nil {
				return err
			}
		}
	}
	rp.unsized = false
	return nil
}

// replayJSON is the stored form of a txReplay (storage.TokenRecord.Result).
type replayJSON struct {
	Tables  []string            `json:"tables"`
	Units   []float64           `json:"units"` // per table, in order
	Metrics []replayMetricsJSON `json:"metrics,omitempty"`
	Unsized bool                `json:"unsized,omitempty"`
}

type replayMetricsJSON struct {
	Table string `json:"table"`
	Key   []byte `json:"key"` // item.MarshalItem
	Size  int64  `json:"size"`
}

func encodeTxReplay(r *txReplay) []byte {
	j := replayJSON{Tables: r.tables, Units: make([]float64, len(r.tables)), Unsized: r.unsized}
	for i, name := range r.tables {
		j.Units[i] = r.units[name]
	}
	if r.metrics != nil {
		for _, name := range r.metrics.tables {
			for _, m := range r.metrics.m[name] {
				j.Metrics = append(j.Metrics, replayMetricsJSON{Table: name, Key: item.MarshalItem(m.key), Size: m.size})
			}
		}
	}
	b, _ := json.Marshal(&j)
	return b
}

func decodeTxReplay(b []byte) (*txReplay, error) {
	var j replayJSON
	if err := json.Unmarshal(b, &j); err != nil || len(j.Units) != len(j.Tables) {
		return nil, fmt.Errorf("api: corrupt ClientRequestToken record: %v", err)
	}
	r := &txReplay{tables: j.Tables, units: make(map[string]float64, len(j.Tables)), unsized: j.Unsized}
	for i, name := range j.Tables {
		r.units[name] = j.Units[i]
	}
	for _, m := range j.Metrics {
		key, err := item.UnmarshalItem(m.Key)
		if err != nil {
			return nil, fmt.Errorf("api: corrupt ClientRequestToken record: %w", err)
		}
		r.metrics = r.metrics.add(m.Table, &itemCollectionMetrics{key: key, size: m.Size})
	}
	return r, nil
}
