package cassandra

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Transactions (TransactWrite) on Cassandra, whose only atomic conditional
// write is a lightweight transaction on one partition. See
// docs/adr/0006-cassandra-transactions.md for the argument; in short:
//
//  1. Read every item at SERIAL and run the mutations' functions. A
//     transaction that writes nothing (TransactGetItems, or only failed
//     conditions) reads every item again and succeeds when no version
//     moved and no transaction held any of them: the two reads bracket an
//     instant at which every image was current, so the images form one
//     snapshot. Otherwise it goes on like a transaction that writes.
//  2. PREPARE: a ledger row in the catalog's txns table names the attempt
//     and its items; then the items are marked one by one in a global key
//     order, each with an LWT fenced on the version its function last ran
//     on and on no other mark (txn = null). The mark carries the image to
//     store, its version and the operation. A lost fence reads the item
//     again and runs its function again; an item another transaction
//     holds is waited for with the earlier marks held (the order rules out
//     cycles). While it runs, the attempt renews its ledger's start every
//     third of Options.TxTimeout.
//  3. The commit point: one LWT moves the ledger from PREPARE to
//     COMMITTING (for a ClientRequestToken, completing the token's record
//     in the same row, so the claim and the writes commit together).
//  4. Every item is committed from its mark (IF txn = <mark>), with a write
//     ID derived from the mark so that anyone may commit it, and its index
//     rows, stream record and expiry rows follow as for a single write.
//     Write intents (intents.go) cover a crash in between.
//  5. The ledger is cleared.
//
// Single-item writes never write a marked item (their fence includes txn =
// null): they wait for the transaction, and when its ledger shows no sign
// of life for TxTimeout they finish it themselves (recoverLedger): a
// PREPARE is aborted, a COMMITTING one committed. Recover does the same for
// every ledger older than twice TxTimeout.
//
// The steps live in files named for them: step 1 and the attempt's outline
// (txRun) here, step 2 in tx_prepare.go, step 3 in tx_commitpoint.go,
// steps 4 and 5 in tx_commit.go, and the ledger with the recovery of
// stopped attempts in tx_ledger.go.

// Ledger states (txns.status); null is "no transaction in flight".
const (
	txPrepare    = "PREPARE"
	txCommitting = "COMMITTING"
	txAborted    = "ABORTED"
)

// What a mark will do to its item (items.tx_op).
const (
	txCheck  = 1 // nothing: a condition check or an unchanged image
	txPut    = 2 // store tx_new at tx_ver
	txDelete = 3 // delete (leave a tombstone at tx_ver)
)

// txItem is one mutation of a transaction attempt.
type txItem struct {
	m       storage.Mutation
	p       phys
	cur     *current // as read at SERIAL (nil: never written)
	old, nw item.Item
	op      int
	blob    []byte
	ver     int64
	idx     int // its position in the request
}

// txRef names an item of a ledger: enough to find its table again.
type txRef struct {
	account, name, tableID string
	key                    storage.Key
}

// errTxRetry asks transact to run the attempt again from fresh reads:
// nothing was applied.
var errTxRetry = errors.New("cassandra: transaction attempt lost a race")

// TransactWrite applies every mutation or none (see the package comment of
// tx.go). A failing function cancels the transaction with a
// *storage.TransactionError; an item another transaction keeps holding
// beyond twice Options.TxTimeout gives storage.ErrTransactionConflict as
// its reason.
func (b *Backend) TransactWrite(ctx context.Context, ms []storage.Mutation) error {
	return b.transact(ctx, ms, nil)
}

func (b *Backend) transact(ctx context.Context, ms []storage.Mutation, tok *storage.TokenCompletion) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	items := make([]*txItem, len(ms))
	for i, m := range ms {
		items[i] = &txItem{m: m, p: b.phys(m.Table), idx: i}
	}
	// Marks are taken in one global order, so two transactions never wait
	// on each other's marks in a cycle.
	order := slices.Clone(items)
	slices.SortFunc(order, func(a, c *txItem) int {
		if x := cmpStr(a.m.Table.ID, c.m.Table.ID); x != 0 {
			return x
		}
		if x := bytes.Compare(a.m.Key.PK, c.m.Key.PK); x != 0 {
			return x
		}
		return bytes.Compare(a.m.Key.SK, c.m.Key.SK)
	})
	for attempt := 1; ; attempt++ {
		err := b.txAttempt(ctx, items, order, tok, attempt == 1)
		if !errors.Is(err, errTxRetry) {
			return wrap("transact write", err)
		}
		if attempt >= b.maxAttempts {
			return conflictAll(len(items))
		}
		if err := backoff(ctx, min(attempt, 6)); err != nil {
			return err
		}
	}
}

// conflictAll cancels a transaction of n items that kept losing races
// with others: DynamoDB's TransactionConflict.
func conflictAll(n int) error {
	reasons := make([]error, n)
	for i := range reasons {
		reasons[i] = storage.ErrTransactionConflict
	}
	return &storage.TransactionError{Reasons: reasons}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// txEval runs the item's function on its row it.cur and records what the
// mark will do; it returns the function's error.
func (b *Backend) txEval(it *txItem) (fnErr, err error) {
	var old item.Item
	var prev int64
	if it.cur != nil {
		old, prev = it.cur.item, it.cur.version
	}
	nw, fnErr := storage.CallMutateFunc(it.m.Fn, old)
	it.old, it.nw, it.op, it.blob, it.ver = old, nw, txCheck, nil, 0
	switch {
	case fnErr != nil:
		return fnErr, nil
	case (old == nil && nw == nil) || storage.SameImage(old, nw):
		return nil, nil
	case nw == nil:
		it.op = txDelete
	default:
		blob, err := encodeNewImage(it.m.Table, it.m.Key, nw)
		if err != nil {
			return nil, err
		}
		it.op, it.blob = txPut, blob
	}
	it.ver = b.nextVersion(prev)
	return nil, nil
}

// readTxItem reads the item's row at SERIAL.
func (b *Backend) readTxItem(ctx context.Context, it *txItem) (*current, error) {
	var cur *current
	err := b.withTable(ctx, it.m.Table, func() error {
		return b.retry(ctx, func() (err error) {
			cur, err = b.readItem(ctx, it.p, it.m.Key, gocql.Serial)
			return err
		})
	})
	return cur, err
}

// txAttempt runs one attempt; errTxRetry means nothing was applied and the
// transaction should run again. With optimistic set, a transaction that
// writes nothing first tries to prove its reads one snapshot without
// marking anything (txSameAgain); otherwise, and for every transaction
// that writes, the items are marked (txRun).
func (b *Backend) txAttempt(ctx context.Context, items, order []*txItem, tok *storage.TokenCompletion, optimistic bool) error {
	// 1. Read and decide.
	busy := false
	for _, it := range order {
		cur, err := b.readTxItem(ctx, it)
		if err != nil {
			return err
		}
		it.cur = cur
		busy = busy || (cur != nil && cur.txn != "")
	}
	if busy {
		// Another transaction holds an item: wait for it while marking.
		return b.txRun(ctx, items, order, tok)
	}
	reasons := make([]error, len(items))
	failed, writes := false, false
	for i, it := range items {
		fnErr, err := b.txEval(it)
		if err != nil {
			return err
		}
		reasons[i] = fnErr
		failed = failed || fnErr != nil
		writes = writes || it.op != txCheck
	}
	if (failed || !writes) && optimistic {
		// Nothing to write: the reads must form one snapshot.
		same, err := b.txSameAgain(ctx, order)
		if err != nil {
			return err
		}
		if same {
			if failed {
				return &storage.TransactionError{Reasons: reasons}
			}
			if tok == nil {
				return nil
			}
			// A token completes even when nothing changed.
		}
	}
	return b.txRun(ctx, items, order, tok)
}

// txSameAgain reads every item again at SERIAL and reports whether none
// changed version or is held by a transaction.
func (b *Backend) txSameAgain(ctx context.Context, order []*txItem) (bool, error) {
	for _, it := range order {
		cur, err := b.readTxItem(ctx, it)
		if err != nil {
			return false, err
		}
		switch {
		case (cur == nil) != (it.cur == nil):
			return false, nil
		case cur != nil && (cur.version != it.cur.version || cur.txn != ""):
			return false, nil
		}
	}
	return true, nil
}

// txRunning is an attempt past its reads, in steps 2 to 5: its ledger
// row, the mark its items carry, and what their functions reported.
type txRunning struct {
	b            *Backend
	items, order []*txItem
	tok          *storage.TokenCompletion
	id, attempt  string
	mark         string // id@attempt
	refs         []txRef
	lastBeat     time.Time
	reasons      []error // by request position
}

// txRun is steps 2 to 5 of an attempt.
func (b *Backend) txRun(ctx context.Context, items, order []*txItem, tok *storage.TokenCompletion) error {
	r := b.newTxRunning(items, order, tok)
	// 2. The ledger, then the marks and the intents.
	if err := r.openLedger(ctx); err != nil {
		return err
	}
	if err := r.markAll(ctx); err != nil {
		return r.abort(ctx, err)
	}
	if slices.ContainsFunc(r.reasons, func(err error) bool { return err != nil }) {
		return r.abort(ctx, &storage.TransactionError{Reasons: r.reasons})
	}
	if !r.writes() && tok == nil {
		// A snapshot (TransactGetItems under contention): it holds; a
		// failure to release it is left to recovery.
		_ = r.abort(ctx, nil)
		return nil
	}
	if err := r.writeIntents(ctx); err != nil {
		return r.abort(ctx, err)
	}
	if b.txStop("prepared") {
		return errTxStopped
	}
	// 3. The commit point.
	if err := r.commitPoint(ctx); err != nil {
		return r.abort(ctx, err)
	}
	if b.txStop("committing") {
		return errTxStopped
	}
	// 4 and 5.
	return b.txCommitAll(ctx, r.id, r.attempt, r.mark, order, tok != nil)
}

func (b *Backend) newTxRunning(items, order []*txItem, tok *storage.TokenCompletion) *txRunning {
	r := &txRunning{b: b, items: items, order: order, tok: tok, attempt: uuid.NewString(),
		reasons: make([]error, len(items))}
	r.id = "x/" + r.attempt
	if tok != nil {
		r.id = tokenRow(tok.Account, tok.Token)
	}
	r.mark = r.id + "@" + r.attempt
	r.refs = make([]txRef, len(order))
	for i, it := range order {
		r.refs[i] = txRef{account: it.m.Table.Account, name: it.m.Table.Name, tableID: it.m.Table.ID, key: it.m.Key}
	}
	return r
}

// writes reports whether the attempt changes any item.
func (r *txRunning) writes() bool {
	return slices.ContainsFunc(r.order, func(it *txItem) bool { return it.op != txCheck })
}

// lost is what an attempt that a recovery aborted reports.
func (r *txRunning) lost(ctx context.Context) error {
	if r.tok != nil {
		return r.b.tokenCause(ctx, r.id, r.tok)
	}
	return errTxRetry
}

// abort ends the attempt before its commit point and returns cause;
// should the commit point have applied after all (an outcome in doubt
// that landed late), the attempt is committed instead.
func (r *txRunning) abort(ctx context.Context, cause error) error {
	err := r.b.abortTx(ctx, r.id, r.attempt, r.refs, false, 0)
	switch {
	case errors.Is(err, errTxCommitted):
		return r.b.txCommitAll(ctx, r.id, r.attempt, r.mark, r.order, r.tok != nil)
	case err != nil:
		return errors.Join(cause, err)
	}
	return cause
}
