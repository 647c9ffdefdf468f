package cassandra

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Transactions whose frontend stops part-way (tx.go): a PREPARE is rolled
// back, a COMMITTING one rolled forward, by the next writer that waits for
// the item or by Recover; marks of aborted attempts are removed; a write
// held too long by a live transaction fails with ErrTransactionConflict.

// stoppingFrontend opens a second frontend on this run's keyspaces whose
// transactions stop at stage, as if its process died there.
func stoppingFrontend(t *testing.T, stage string) *Backend {
	t.Helper()
	b2, err := Open(ctxT(t, time.Minute), Options{Hosts: strings.Split(os.Getenv(hostsEnv), ","), KeyspacePrefix: prefix,
		FrontendLease: 2 * time.Second, TxTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b2.Close() })
	stop := func(s string) bool { return s == stage }
	b2.txStopAt.Store(&stop)
	return b2
}

// txPair writes two items of raceTable in every index and returns a
// transaction that moves both to new index keys.
func txPair(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table) (a0, b0, a1, b1 item.Item, ms []storage.Mutation) {
	t.Helper()
	a0, b0 = raceImage("p", "a", 1), raceImage("p", "b", 2)
	a1, b1 = raceImage("p", "a", 4), raceImage("p", "b", 5)
	for _, it := range []item.Item{a0, b0} {
		if err := b.Mutate(ctx, tb, keyOf(t, tb, it), put(it)); err != nil {
			t.Fatal(err)
		}
	}
	ms = []storage.Mutation{
		{Table: tb, Key: keyOf(t, tb, a1), Fn: put(a1)},
		{Table: tb, Key: keyOf(t, tb, b1), Fn: put(b1)},
	}
	return
}

func keyOf(t *testing.T, tb *storage.Table, it item.Item) storage.Key {
	t.Helper()
	k, err := storage.ItemKey(tb, it)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// noDivergence fails the test when an index disagrees with the table for
// the item it.
func noDivergence(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, it item.Item, images ...item.Item) {
	t.Helper()
	d, err := divergences(ctx, b, tb, keyOf(t, tb, it), images...)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) > 0 {
		t.Fatalf("indexes disagree with the table: %v", d)
	}
}

// marked returns the mark an item carries ("" when none).
func marked(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, it item.Item) string {
	t.Helper()
	c, err := b.readItem(ctx, b.phys(tb), keyOf(t, tb, it), gocql.Serial)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		return ""
	}
	return c.txn
}

func TestTxStoppedInPrepareRollsBack(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	tb := raceTable(t, b, newAccount())
	a0, b0, a1, _, ms := txPair(t, ctx, b, tb)
	b2 := stoppingFrontend(t, "prepared")
	if err := b2.TransactWrite(ctx, ms); !errors.Is(err, errTxStopped) {
		t.Fatalf("TransactWrite = %v, want the stop", err)
	}
	mark := marked(t, ctx, b, tb, a0)
	if mark == "" || marked(t, ctx, b, tb, b0) != mark {
		t.Fatal("the stopped transaction did not mark both items")
	}
	// Reads see the committed images meanwhile.
	if got, _ := b.GetItem(ctx, tb, keyOf(t, tb, a0), true); !equalItems(got, a0) {
		t.Fatalf("GetItem during PREPARE = %v, want %v", got, a0)
	}
	// A writer of a marked item waits, then rolls the old PREPARE back.
	start := time.Now()
	a2 := raceImage("p", "a", 7)
	if err := b.Mutate(ctx, tb, keyOf(t, tb, a2), put(a2)); err != nil {
		t.Fatalf("Mutate of a marked item: %v", err)
	}
	if waited := time.Since(start); waited < 500*time.Millisecond {
		t.Fatalf("the write did not wait for the transaction (%v)", waited)
	}
	if got, _ := b.GetItem(ctx, tb, keyOf(t, tb, b0), true); !equalItems(got, b0) {
		t.Fatalf("b after the rollback = %v, want %v", got, b0)
	}
	if m := marked(t, ctx, b, tb, b0); m != "" {
		t.Fatalf("b still marked by %s after the rollback", m)
	}
	noDivergence(t, ctx, b, tb, a2, a0, a1)
	noDivergence(t, ctx, b, tb, b0)
	// The ledger is gone.
	l, err := b.readLedger(ctx, mark[:strings.LastIndexByte(mark, '@')])
	if err != nil || l != nil {
		t.Fatalf("ledger after the rollback = %+v, %v; want none", l, err)
	}
}

func TestTxStoppedWhileCommittingRollsForward(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	tb := raceTable(t, b, newAccount())
	a0, b0, a1, b1, ms := txPair(t, ctx, b, tb)
	b2 := stoppingFrontend(t, "committing")
	if err := b2.TransactWrite(ctx, ms); !errors.Is(err, errTxStopped) {
		t.Fatalf("TransactWrite = %v, want the stop", err)
	}
	// Nothing is committed yet, but the transaction has passed its commit
	// point: Recover (once it is older than TxTimeout) finishes it.
	if got, _ := b.GetItem(ctx, tb, keyOf(t, tb, a0), true); !equalItems(got, a0) {
		t.Fatalf("GetItem before the roll-forward = %v, want %v", got, a0)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := b.recoverTransactions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("recoverTransactions never finished the stopped transaction")
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range []struct{ old, want item.Item }{{a0, a1}, {b0, b1}} {
		got, err := b.GetItem(ctx, tb, keyOf(t, tb, c.want), true)
		if err != nil || !equalItems(got, c.want) {
			t.Fatalf("after the roll-forward: %v, %v; want %v", got, err, c.want)
		}
		if m := marked(t, ctx, b, tb, c.want); m != "" {
			t.Fatalf("still marked by %s", m)
		}
		noDivergence(t, ctx, b, tb, c.want, c.old)
	}
}

func TestOrphanMarkIsRemoved(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	tb := raceTable(t, b, newAccount())
	a0 := raceImage("p", "a", 1)
	k := keyOf(t, tb, a0)
	if err := b.Mutate(ctx, tb, k, put(a0)); err != nil {
		t.Fatal(err)
	}
	// A mark whose attempt has no ledger: one left by an aborted attempt
	// whose mark was in doubt.
	c, err := b.readItem(ctx, b.phys(tb), k, gocql.Serial)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := b.cas(ctx, b.s.Query(`UPDATE `+b.phys(tb).items+` SET txn = ?, tx_op = ? WHERE pk = ? AND sk = ? IF version = ?`,
		"x/gone@gone", txCheck, k.PK, storage.StoredSK(k.SK), c.version), func() (bool, error) { return false, nil })
	if err != nil || !ok {
		t.Fatalf("planting a mark: %v %v", ok, err)
	}
	a1 := raceImage("p", "a", 2)
	if err := b.Mutate(ctx, tb, k, put(a1)); err != nil {
		t.Fatalf("Mutate of an orphan-marked item: %v", err)
	}
	if got, _ := b.GetItem(ctx, tb, k, true); !equalItems(got, a1) {
		t.Fatalf("after the write: %v, want %v", got, a1)
	}
	noDivergence(t, ctx, b, tb, a1, a0)
}

func TestWaitForTxGivesUp(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, time.Minute)
	tb := raceTable(t, b, newAccount())
	// A young ledger (just started): nothing to recover, and a writer that
	// has waited twice TxTimeout already gives up.
	id := "x/young"
	if err := b.s.Query(`INSERT INTO `+b.catalog+`.txns (id, attempt, status, started, items) VALUES (?, ?, ?, ?, ?)`,
		id, "a", txPrepare, time.Now().Add(time.Hour).UnixNano(), encodeRefs(nil)).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	k := storage.Key{PK: []byte("k")}
	now := time.Now()
	w := &txWait{first: now.Add(-2 * b.txTimeout), mark: id + "@a", since: now.Add(-2 * b.txTimeout)}
	err := b.waitForTx(ctx, w, b.phys(tb), k, id+"@a")
	if !errors.Is(err, storage.ErrTransactionConflict) {
		t.Fatalf("waitForTx after 2×TxTimeout on one attempt = %v, want ErrTransactionConflict", err)
	}
	// Attempts taking turns: the wait goes on, up to six times TxTimeout.
	w = &txWait{first: now.Add(-3 * b.txTimeout), mark: "x/other@b", since: now.Add(-3 * b.txTimeout)}
	if err := b.waitForTx(ctx, w, b.phys(tb), k, id+"@a"); err != nil {
		t.Fatalf("waitForTx for a new attempt = %v, want a short wait", err)
	}
	w = &txWait{first: now.Add(-6 * b.txTimeout), mark: "x/other@b", since: now}
	if err := b.waitForTx(ctx, w, b.phys(tb), k, id+"@a"); !errors.Is(err, storage.ErrTransactionConflict) {
		t.Fatalf("waitForTx after 6×TxTimeout of turns = %v, want ErrTransactionConflict", err)
	}
	w = &txWait{}
	if err := b.waitForTx(ctx, w, b.phys(tb), k, id+"@a"); err != nil {
		t.Fatalf("first waitForTx = %v, want a short wait", err)
	}
}

func TestLedgerRefsRoundTrip(t *testing.T) {
	refs := []txRef{
		{account: "000000000001", name: "t", tableID: "id1", key: storage.Key{PK: []byte{1, 2}}},
		{account: "000000000001", name: "u", tableID: "id2", key: storage.Key{PK: []byte{}, SK: []byte{0}}},
	}
	got, err := decodeRefs(encodeRefs(refs))
	if err != nil || len(got) != 2 || got[0].name != "t" || got[0].key.SK != nil || string(got[1].key.SK) != "\x00" || got[1].tableID != "id2" {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	if _, err := decodeRefs([]byte{5, 1}); err == nil {
		t.Fatal("a corrupt ledger decoded")
	}
}

// ledgerOf returns the ledger ID, attempt and row behind an item's mark.
func ledgerOf(t *testing.T, ctx context.Context, b *Backend, mark string) (string, string, *ledger) {
	t.Helper()
	at := strings.LastIndexByte(mark, '@')
	if at < 0 {
		t.Fatalf("mark %q", mark)
	}
	l, err := b.readLedger(ctx, mark[:at])
	if err != nil || l == nil {
		t.Fatalf("ledger of %s: %+v %v", mark, l, err)
	}
	return mark[:at], mark[at+1:], l
}

// An abort never undoes an attempt past its commit point, nor one that
// has shown a sign of life since its ledger was read (review findings:
// an abort whose LWT stayed in doubt must not remove a live attempt's
// marks; a commit point that lands late must be rolled forward).
func TestAbortRespectsCommitAndLife(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	tb := raceTable(t, b, newAccount())
	a0, b0, _, _, ms := txPair(t, ctx, b, tb)

	b2 := stoppingFrontend(t, "committing")
	if err := b2.TransactWrite(ctx, ms); !errors.Is(err, errTxStopped) {
		t.Fatalf("TransactWrite = %v, want the stop", err)
	}
	mark := marked(t, ctx, b, tb, a0)
	id, attempt, l := ledgerOf(t, ctx, b, mark)
	refs, _ := decodeRefs(l.items)
	if err := b.abortTx(ctx, id, attempt, refs, false, 0); !errors.Is(err, errTxCommitted) {
		t.Fatalf("abortTx of a COMMITTING attempt = %v, want errTxCommitted", err)
	}
	if marked(t, ctx, b, tb, a0) != mark || marked(t, ctx, b, tb, b0) != mark {
		t.Fatal("abortTx removed the marks of a committing attempt")
	}
	if ok, err := b.recoverLedger(ctx, id, l); err != nil || !ok {
		t.Fatalf("recoverLedger = %v, %v", ok, err)
	}

	tb2 := raceTable(t, b, newAccount())
	a0, b0, _, _, ms = txPair(t, ctx, b, tb2)
	b3 := stoppingFrontend(t, "prepared")
	if err := b3.TransactWrite(ctx, ms); !errors.Is(err, errTxStopped) {
		t.Fatalf("TransactWrite = %v, want the stop", err)
	}
	mark = marked(t, ctx, b, tb2, a0)
	id, attempt, l = ledgerOf(t, ctx, b, mark)
	refs, _ = decodeRefs(l.items)
	// A start other than the one read: the attempt renewed it, it lives.
	if err := b.abortTx(ctx, id, attempt, refs, false, l.started+1); err != nil {
		t.Fatalf("abortTx of a live attempt = %v", err)
	}
	if marked(t, ctx, b, tb2, a0) != mark || marked(t, ctx, b, tb2, b0) != mark {
		t.Fatal("abortTx removed the marks of an attempt that showed a sign of life")
	}
	if err := b.abortTx(ctx, id, attempt, refs, false, l.started); err != nil {
		t.Fatalf("abortTx of a stopped attempt = %v", err)
	}
	if marked(t, ctx, b, tb2, a0) != "" || marked(t, ctx, b, tb2, b0) != "" {
		t.Fatal("abortTx left marks behind")
	}
	if got, _ := b.GetItem(ctx, tb2, keyOf(t, tb2, a0), true); !equalItems(got, a0) {
		t.Fatalf("after the abort: %v, want %v", got, a0)
	}
}

// A repeat of a token whose transaction stopped after its commit point
// finishes the transaction before it reports the completed record, so a
// replayed success is never followed by a read of the old images.
func TestTokenReplayFinishesCommittingTransaction(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	tb := raceTable(t, b, newAccount())
	_, _, a1, b1, ms := txPair(t, ctx, b, tb)
	b2 := stoppingFrontend(t, "committing")
	now := time.Now()
	ok, _, err := b2.ClaimToken(ctx, tb.Account, "tok-committing", []byte("h"), now)
	if err != nil || !ok {
		t.Fatalf("ClaimToken = %v, %v", ok, err)
	}
	err = b2.TransactWriteToken(ctx, ms, &storage.TokenCompletion{Account: tb.Account, Token: "tok-committing", ClaimedAt: now, Now: now,
		Result: func() []byte { return []byte("r") }})
	if !errors.Is(err, errTxStopped) {
		t.Fatalf("TransactWriteToken = %v, want the stop", err)
	}
	ok, rec, err := b.ClaimToken(ctx, tb.Account, "tok-committing", []byte("h"), time.Now())
	if err != nil || ok || rec == nil || !rec.Completed || string(rec.Result) != "r" {
		t.Fatalf("repeat ClaimToken = %v, %+v, %v; want the completed record", ok, rec, err)
	}
	for _, want := range []item.Item{a1, b1} {
		if got, _ := b.GetItem(ctx, tb, keyOf(t, tb, want), true); !equalItems(got, want) {
			t.Fatalf("after the replay: %v, want %v", got, want)
		}
	}
}

// Migration 5 adds a column; a process running it after another one did
// (migrations may run in several processes at once) must not fail.
func TestAddColumnMigrationRerun(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, time.Minute)
	var stmts []string
	for _, m := range b.migrations() {
		if m.id == 5 {
			stmts = m.stmts
		}
	}
	if len(stmts) == 0 {
		t.Fatal("no migration 5")
	}
	for _, stmt := range stmts {
		if err := b.ddl(ctx, stmt); err != nil {
			t.Fatalf("re-running %q: %v", stmt, err)
		}
	}
	if err := b.ddl(ctx, `ALTER TABLE `+b.catalog+`.txns ADD no_such_type_col nosuchtype`); err == nil {
		t.Fatal("a failing ALTER TABLE was taken for a rerun")
	}
}
