package cassandra

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// txMigration creates the ledger of transactions, which also holds the
// ClientRequestToken records (a token's ledger row is its record).
func txMigration(k string) migration {
	return migration{4, "transactions and tokens", []string{
		`CREATE TABLE IF NOT EXISTS ` + k + `.txns (
			id text PRIMARY KEY, attempt text, status text, started bigint, items blob,
			hash blob, claimed_at bigint, completed boolean, completed_at bigint, result blob)`,
	}}
}

// tokenClaimMigration adds the ID of a token's claim to the ledger.
func tokenClaimMigration(k string) migration {
	return migration{5, "token claim IDs", []string{
		`ALTER TABLE ` + k + `.txns ADD claim text`,
	}}
}

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

// txWait tracks how long a writer has been waiting for transactions that
// hold its item.
type txWait struct {
	first  time.Time // when the wait began
	mark   string    // the mark waited for since `since`
	since  time.Time
	tries  int
	seen   string    // the ledger's sign of life (ledgerSign) last seen
	seenAt time.Time // when it was first seen
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
		nk, err := storage.ItemKey(it.m.Table, nw)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(nk.PK, it.m.Key.PK) || !bytes.Equal(nk.SK, it.m.Key.SK) {
			return nil, errors.New("cassandra: new image's key differs from the mutated key")
		}
		it.op, it.blob = txPut, item.MarshalItem(nw)
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
		var cur *current
		err := b.withTable(ctx, it.m.Table, func() error {
			return b.retry(ctx, func() (err error) {
				cur, err = b.readItem(ctx, it.p, it.m.Key, gocql.Serial)
				return err
			})
		})
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

// txRun is steps 2 to 5 of an attempt.
func (b *Backend) txRun(ctx context.Context, items, order []*txItem, tok *storage.TokenCompletion) error {
	attempt := uuid.NewString()
	id := "x/" + attempt
	if tok != nil {
		id = tokenRow(tok.Account, tok.Token)
	}
	mark := id + "@" + attempt
	started := time.Now().UnixNano()
	refs := make([]txRef, len(order))
	for i, it := range order {
		refs[i] = txRef{account: it.m.Table.Account, name: it.m.Table.Name, tableID: it.m.Table.ID, key: it.m.Key}
	}
	// 2. The ledger, then the marks.
	var q *gocql.Query
	if tok == nil {
		q = b.s.Query(`INSERT INTO `+b.catalog+`.txns (id, attempt, status, started, items) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS`,
			id, attempt, txPrepare, started, encodeRefs(refs))
	} else {
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET attempt = ?, status = ?, started = ?, items = ? WHERE id = ? IF claimed_at = ? AND status = null AND completed = false`,
			attempt, txPrepare, started, encodeRefs(refs), id, tok.ClaimedAt.UnixNano())
	}
	ok, err := b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, id)
		return err == nil && l != nil && l.attempt == attempt, err
	})
	if err != nil {
		return err
	}
	if !ok {
		if tok != nil {
			return b.tokenCause(ctx, id, tok)
		}
		return errTxRetry
	}
	// lost is what an attempt that a recovery aborted reports.
	lost := func() error {
		if tok != nil {
			return b.tokenCause(ctx, id, tok)
		}
		return errTxRetry
	}
	// abort ends the attempt before its commit point and returns cause;
	// should the commit point have applied after all (an outcome in doubt
	// that landed late), the attempt is committed instead.
	abort := func(cause error) error {
		err := b.abortTx(ctx, id, attempt, refs, false, 0)
		switch {
		case errors.Is(err, errTxCommitted):
			return b.txCommitAll(ctx, id, attempt, mark, order, tok != nil)
		case err != nil:
			return errors.Join(cause, err)
		}
		return cause
	}
	// beat keeps the ledger young while the attempt runs, so that nobody
	// takes it for the ledger of a stopped frontend (see waitForTx).
	lastBeat := time.Now()
	beat := func() (bool, error) {
		if time.Since(lastBeat) < b.txTimeout/3 {
			return true, nil
		}
		lastBeat = time.Now()
		return b.txHeartbeat(ctx, id, attempt)
	}
	// Items in order: each is marked from the image its function last ran
	// on; a lost fence reads the item again (waiting, with the earlier
	// marks held, for a transaction that holds it) and runs its function
	// again. Once every item is marked, no image can change until the
	// marks go, so the functions' results hold at that instant.
	reasons := make([]error, len(items))
	for _, it := range order {
		var held txWait
	markItem:
		for races := 0; ; {
			alive, err := beat()
			if err != nil {
				return abort(err)
			}
			if !alive {
				return abort(lost())
			}
			switch {
			case it.cur != nil && it.cur.txn == mark:
				// A mark of this attempt whose outcome was in doubt landed
				// after all. It was fenced on the version of the image the
				// row still holds: keep it if the function, run again on
				// that image, gives what it stores.
				fnErr, err := b.txEval(it)
				if err != nil {
					return abort(err)
				}
				if it.op == it.cur.txOp && bytes.Equal(it.blob, it.cur.txNew) {
					reasons[it.idx], it.ver = fnErr, it.cur.txVer
					break markItem
				}
				if err := b.unmarkPhys(ctx, it.p, it.m.Key, mark); err != nil {
					return abort(err)
				}
			case it.cur != nil && it.cur.txn != "":
				if err := b.waitForTx(ctx, &held, it.p, it.m.Key, it.cur.txn); err != nil {
					if errors.Is(err, storage.ErrTransactionConflict) {
						reasons := make([]error, len(items))
						reasons[it.idx] = err
						return abort(&storage.TransactionError{Reasons: reasons})
					}
					return abort(err)
				}
			default:
				fnErr, err := b.txEval(it)
				if err != nil {
					return abort(err)
				}
				reasons[it.idx] = fnErr
				err = b.txMark(ctx, it, mark)
				if err == nil {
					break markItem
				}
				if !errors.Is(err, errTxRetry) {
					return abort(err)
				}
				if races++; races >= b.maxAttempts {
					reasons := make([]error, len(items))
					reasons[it.idx] = storage.ErrTransactionConflict
					return abort(&storage.TransactionError{Reasons: reasons})
				}
			}
			if it.cur, err = b.readTxItem(ctx, it); err != nil {
				return abort(err)
			}
		}
	}
	for _, r := range reasons {
		if r != nil {
			return abort(&storage.TransactionError{Reasons: reasons})
		}
	}
	writes := false
	for _, it := range order {
		writes = writes || it.op != txCheck
	}
	if !writes && tok == nil {
		// A snapshot (TransactGetItems under contention): it holds; a
		// failure to release it is left to recovery.
		_ = abort(nil)
		return nil
	}
	// Intents first (intents.go): a crash after the commit point leaves
	// them for the recovery of this frontend's writes.
	for i, it := range order {
		if it.op == txCheck {
			continue
		}
		if err := b.writeIntent(ctx, it.m.Table, it.m.Key, it.old, it.nw, it.ver, txWriteID(mark, i)); err != nil {
			return abort(err)
		}
	}
	if alive, err := b.txHeartbeat(ctx, id, attempt); err != nil || !alive {
		if err == nil {
			err = lost()
		}
		return abort(err)
	}
	if b.txStop("prepared") {
		return errTxStopped
	}
	// 3. The commit point.
	if tok == nil {
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET status = ? WHERE id = ? IF status = ? AND attempt = ?`,
			txCommitting, id, txPrepare, attempt)
	} else {
		var result []byte
		if tok.Result != nil {
			result = tok.Result()
		}
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET status = ?, completed = true, completed_at = ?, result = ? WHERE id = ? IF status = ? AND attempt = ? AND claimed_at = ?`,
			txCommitting, tok.Now.UnixNano(), result, id, txPrepare, attempt, tok.ClaimedAt.UnixNano())
	}
	ok, err = b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, id)
		return err == nil && l != nil && l.attempt == attempt && l.status == txCommitting, err
	})
	if err != nil {
		return abort(err)
	}
	if !ok {
		// Aborted by a recovery that took this attempt for a stopped
		// one, or the token's claim was taken over: nothing was applied.
		return abort(lost())
	}
	if b.txStop("committing") {
		return errTxStopped
	}
	return b.txCommitAll(ctx, id, attempt, mark, order, tok != nil)
}

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

// errTxStopped is what a transaction returns when a test stopped it
// (Backend.txStopAt) as if its process had died.
var errTxStopped = errors.New("cassandra: transaction stopped by a test")

// txStop reports whether a test asked transactions to stop at stage, as if
// the process died there.
func (b *Backend) txStop(stage string) bool {
	f := b.txStopAt.Load()
	return f != nil && (*f)(stage)
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
			key.PK, nz(key.SK), mark, it.blob, it.ver, it.op)
	} else {
		if it.op == txPut && it.old == nil {
			if err := b.writeDir(ctx, it.p, "", key.PK); err != nil {
				return err
			}
		}
		q = b.s.Query(`UPDATE `+it.p.items+` SET txn = ?, tx_new = ?, tx_ver = ?, tx_op = ? WHERE pk = ? AND sk = ? IF version = ? AND txn = null`,
			mark, it.blob, it.ver, it.op, key.PK, nz(key.SK), it.cur.version)
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
				return b.writeEffects(ctx, t, p, key, old, nw, seen.txVer)
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
				row.txNew, row.txVer, size, writes, key.PK, nz(key.SK), mark)
		default:
			q = b.s.Query(`UPDATE `+p.items+` SET txn = null, tx_new = null, tx_ver = null, tx_op = null WHERE pk = ? AND sk = ? IF txn = ?`,
				key.PK, nz(key.SK), mark)
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
			return b.writeEffects(ctx, t, p, key, old, nw, row.txVer)
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

// abortTx ends the attempt of ledger id: it moves the ledger from PREPARE
// to ABORTED (unless aborted says it is so already; with started non-zero,
// only if the attempt has not shown a sign of life since the ledger was
// read), removes the attempt's marks and clears the ledger. It returns
// errTxCommitted when the attempt has passed its commit point, and nil
// without touching anything when the attempt is still in PREPARE (a live
// one that sent a heartbeat, or an abort whose outcome stays in doubt).
// When the ledger names another attempt or none, the marks are removed
// all the same: an attempt that is over has no marks left but the
// orphans of marks that were in doubt.
func (b *Backend) abortTx(ctx context.Context, id, attempt string, refs []txRef, aborted bool, started int64) error {
	for try := 1; !aborted; try++ {
		cond, args := ` IF status = ? AND attempt = ?`, []any{txAborted, id, txPrepare, attempt}
		if started != 0 {
			cond += ` AND started = ?`
			args = append(args, started)
		}
		q := b.s.Query(`UPDATE `+b.catalog+`.txns SET status = ? WHERE id = ?`+cond, args...)
		ok, err := b.cas(ctx, q, func() (bool, error) {
			l, err := b.readLedger(ctx, id)
			return err == nil && l != nil && l.attempt == attempt && l.status == txAborted, err
		})
		if err != nil {
			return err
		}
		if ok {
			break
		}
		l, err := b.readLedger(ctx, id)
		if err != nil {
			return err
		}
		switch {
		case l == nil || l.attempt != attempt || l.status == "" || l.status == txAborted:
			aborted = true // over, or aborted by someone else: clean up
		case l.status == txCommitting:
			return errTxCommitted
		case started != 0 && l.started != started:
			return nil // alive
		case try >= 5:
			return fmt.Errorf("cassandra: abort of transaction %s stays in doubt", id)
		}
	}
	mark := id + "@" + attempt
	for _, r := range refs {
		if err := b.unmark(ctx, r, mark); err != nil {
			return err
		}
	}
	return b.finishLedger(ctx, id, attempt, isTokenRow(id))
}

// unmark removes the mark from the item r if it still carries it.
func (b *Backend) unmark(ctx context.Context, r txRef, mark string) error {
	return b.unmarkPhys(ctx, b.phys(&storage.Table{Account: r.account, Name: r.name, ID: r.tableID}), r.key, mark)
}

// unmarkPhys removes the mark from the item key of p if it still carries it.
func (b *Backend) unmarkPhys(ctx context.Context, p phys, key storage.Key, mark string) error {
	q := b.s.Query(`UPDATE `+p.items+` SET txn = null, tx_new = null, tx_ver = null, tx_op = null WHERE pk = ? AND sk = ? IF txn = ?`,
		key.PK, nz(key.SK), mark)
	_, err := b.cas(ctx, q, func() (bool, error) {
		got, err := b.readItem(ctx, p, key, gocql.Serial)
		return err == nil && (got == nil || got.txn != mark), err
	})
	if isUnconfigured(err) {
		return nil // the table is gone
	}
	return err
}

// finishLedger clears the ledger of the attempt: a plain transaction's row
// is deleted, a token's row keeps its record.
func (b *Backend) finishLedger(ctx context.Context, id, attempt string, token bool) error {
	var q *gocql.Query
	if token {
		q = b.s.Query(`UPDATE `+b.catalog+`.txns SET status = null, attempt = null, items = null, started = null WHERE id = ? IF attempt = ?`, id, attempt)
	} else {
		q = b.s.Query(`DELETE FROM `+b.catalog+`.txns WHERE id = ? IF attempt = ?`, id, attempt)
	}
	_, err := b.cas(ctx, q, func() (bool, error) {
		l, err := b.readLedger(ctx, id)
		return err == nil && (l == nil || l.attempt != attempt), err
	})
	return err
}

// ledger is one row of txns.
type ledger struct {
	attempt, status string
	claim           string // a token claim's own ID
	started         int64
	items           []byte
	// token record
	hash        []byte
	claimedAt   int64
	completed   bool
	completedAt int64
	result      []byte
}

// readLedger reads ledger row id at SERIAL; nil when absent.
func (b *Backend) readLedger(ctx context.Context, id string) (*ledger, error) {
	var l ledger
	var attempt, status, claim *string
	var started, claimedAt, completedAt *int64
	var completed *bool
	err := b.retry(ctx, func() error {
		return b.s.Query(`SELECT attempt, status, started, items, hash, claim, claimed_at, completed, completed_at, result FROM `+b.catalog+`.txns WHERE id = ?`, id).
			WithContext(ctx).Consistency(gocql.Serial).Scan(&attempt, &status, &started, &l.items, &l.hash, &claim, &claimedAt, &completed, &completedAt, &l.result)
	})
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l.attempt = deref(attempt)
	l.claim = deref(claim)
	l.status = deref(status)
	l.started = deref(started)
	l.claimedAt = deref(claimedAt)
	l.completed = deref(completed)
	l.completedAt = deref(completedAt)
	return &l, nil
}

// waitForTx is called when a write finds its item (key of p) marked by the
// attempt mark: it sleeps a little and, once the wait for that attempt has
// lasted a quarter of Options.TxTimeout, looks at its ledger. A mark whose
// attempt is over is an orphan and is removed. An attempt whose ledger has
// shown no sign of life (its start time, which a running attempt renews
// every third of TxTimeout, and its status unchanged) for TxTimeout on
// this process's clock is finished on its behalf (recoverLedger): rolled
// back before its commit point, forward after it. It gives up with
// storage.ErrTransactionConflict when one attempt has held the item for
// twice TxTimeout, or attempts have held it in turn for six times
// TxTimeout.
func (b *Backend) waitForTx(ctx context.Context, w *txWait, p phys, key storage.Key, mark string) error {
	now := time.Now()
	if w.first.IsZero() {
		w.first = now
	}
	if w.mark != mark {
		// Another transaction than before: transactions taking turns on
		// a busy item are no reason to give up.
		w.mark, w.since, w.tries, w.seen = mark, now, 0, ""
	}
	w.tries++
	if now.Sub(w.since) >= b.txTimeout/4 {
		at := strings.LastIndexByte(mark, '@')
		if at < 0 {
			return fmt.Errorf("cassandra: malformed transaction mark %q", mark)
		}
		id, attempt := mark[:at], mark[at+1:]
		l, err := b.readLedger(ctx, id)
		if err != nil {
			return err
		}
		switch sign := ledgerSign(l); {
		case l == nil || l.attempt != attempt || l.status == "":
			// The attempt is over: it wrote its ledger before its first
			// mark and clears the ledger only after removing (or
			// committing) every mark, so this one is a mark whose outcome
			// was in doubt when the attempt aborted.
			return b.unmarkPhys(ctx, p, key, mark)
		case sign != w.seen:
			w.seen, w.seenAt = sign, now
		case now.Sub(w.seenAt) >= b.txTimeout:
			if _, err := b.recoverLedger(ctx, id, l); err != nil {
				return err
			}
			return nil
		}
	}
	if now.Sub(w.since) >= 2*b.txTimeout || now.Sub(w.first) >= 6*b.txTimeout {
		return storage.ErrTransactionConflict
	}
	d := time.Duration(min(w.tries, 8)) * 5 * time.Millisecond
	d += rand.N(d + 1)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// ledgerSign is what changes while a ledger's attempt makes progress.
func ledgerSign(l *ledger) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("%s/%s/%d", l.attempt, l.status, l.started)
}

// recoverLedger finishes the attempt of ledger l (row id), which its
// caller judged stopped: PREPARE is aborted (fenced on the start time
// read, so an attempt that has renewed it since is left alone), ABORTED
// cleaned up, COMMITTING committed. It reports whether it finished it.
func (b *Backend) recoverLedger(ctx context.Context, id string, l *ledger) (bool, error) {
	refs, err := decodeRefs(l.items)
	if err != nil {
		return false, err
	}
	mark := id + "@" + l.attempt
	switch l.status {
	case txPrepare, txAborted:
		err := b.abortTx(ctx, id, l.attempt, refs, l.status == txAborted, l.started)
		if errors.Is(err, errTxCommitted) {
			l, err := b.readLedger(ctx, id)
			if err != nil || l == nil || l.status != txCommitting {
				return false, err
			}
			return b.recoverLedger(ctx, id, l)
		}
		return err == nil, err
	case txCommitting:
		for i, r := range refs {
			t, err := b.readTable(ctx, r.account, r.name, gocql.Serial)
			if err != nil {
				return false, err
			}
			if t == nil || t.ID != r.tableID {
				continue // the table is gone
			}
			if err := b.txCommitRecovered(ctx, t, r.key, mark, i); err != nil {
				return false, err
			}
		}
		return true, b.finishLedger(ctx, id, l.attempt, isTokenRow(id))
	}
	return false, nil
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

// recoverTransactions finishes every ledger whose start is older than
// twice Options.TxTimeout (part of Recover) and returns how many it
// finished.
func (b *Backend) recoverTransactions(ctx context.Context) (int, error) {
	iter := b.s.Query(`SELECT id, status, started FROM ` + b.catalog + `.txns`).WithContext(ctx).PageSize(pageSize).Iter()
	var ids []string
	var id string
	var status *string
	var started *int64
	// A running attempt renews its start every third of TxTimeout; twice
	// TxTimeout leaves room for frontends' clocks to differ, and the
	// abort is fenced on the start read anyway.
	cutoff := time.Now().Add(-2 * b.txTimeout).UnixNano()
	for iter.Scan(&id, &status, &started) {
		if status != nil && *status != "" && started != nil && *started < cutoff {
			ids = append(ids, id)
		}
		status, started = nil, nil
	}
	if err := iter.Close(); err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		l, err := b.readLedger(ctx, id)
		if err != nil {
			return n, err
		}
		if l == nil || l.status == "" {
			continue
		}
		if l.started >= cutoff {
			continue
		}
		done, err := b.recoverLedger(ctx, id, l)
		if err != nil {
			return n, err
		}
		if done {
			n++
		}
	}
	return n, nil
}

// encodeRefs and decodeRefs store a ledger's item list.
func encodeRefs(refs []txRef) []byte {
	var out []byte
	put := func(b []byte) {
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	for _, r := range refs {
		put([]byte(r.account))
		put([]byte(r.name))
		put([]byte(r.tableID))
		put(r.key.PK)
		if r.key.SK == nil {
			out = append(out, 0)
		} else {
			out = append(out, 1)
			put(r.key.SK)
		}
	}
	return out
}

func decodeRefs(b []byte) ([]txRef, error) {
	var refs []txRef
	bad := errors.New("cassandra: corrupt transaction ledger")
	get := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, bad
		}
		v := b[k : k+int(n)]
		b = b[k+int(n):]
		return v, nil
	}
	for len(b) > 0 {
		var r txRef
		var f [4][]byte
		for i := range f {
			v, err := get()
			if err != nil {
				return nil, err
			}
			f[i] = v
		}
		r.account, r.name, r.tableID, r.key.PK = string(f[0]), string(f[1]), string(f[2]), bytes.Clone(f[3])
		if len(b) == 0 {
			return nil, bad
		}
		hasSK := b[0] == 1
		b = b[1:]
		if hasSK {
			v, err := get()
			if err != nil {
				return nil, err
			}
			r.key.SK = bytes.Clone(v)
		}
		refs = append(refs, r)
	}
	return refs, nil
}
