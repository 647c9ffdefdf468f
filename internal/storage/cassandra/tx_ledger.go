package cassandra

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// The ledger of transactions (txns), and the recovery of attempts whose
// frontend stopped: by a writer that waits for a marked item, or by
// Recover.

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
		key.PK, storage.StoredSK(key.SK), mark)
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
	// A null column scans as its zero value ("", 0, false).
	var l ledger
	err := b.retry(ctx, func() error {
		return b.s.Query(`SELECT attempt, status, started, items, hash, claim, claimed_at, completed, completed_at, result FROM `+b.catalog+`.txns WHERE id = ?`, id).
			WithContext(ctx).Consistency(gocql.Serial).Scan(&l.attempt, &l.status, &l.started, &l.items, &l.hash, &l.claim, &l.claimedAt, &l.completed, &l.completedAt, &l.result)
	})
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
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
