package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// writer owns the only read-write connection. The goroutine leading the
// group commit (see submit) takes every queued request (up to maxBatch),
// applies them in one transaction, one savepoint each, and commits once:
// the fsync is shared by the whole batch. Only the leader touches it.
type writer struct {
	b        *Backend
	conn     *sql.Conn
	maxBatch int
	batch    []*writeReq                            // the batch being applied, reused
	onCommit func(writes int, commit time.Duration) // Options.OnCommit
	now      func() time.Time                       // Options.Now

	stmts  map[string]*sql.Stmt   // prepared on conn, by SQL text
	tables map[string]*physTable  // catalog view inside the current transaction, by table ID
	stats  map[string]*statsDelta // committed-with-the-batch stats changes, by table ID
	req    map[string]*statsDelta // stats changes of the current request
	// hseq is the last history sequence number given out, by table ID
	// (loaded from the database at first use after a reset).
	hseq map[string]int64
	// hnum is each table's number in history_tables, by table ID
	// (forgotten at every rollback: see historyNum).
	hnum map[string]int64
}

type statsDelta struct{ count, size int64 }

func (w *writer) reset() {
	w.stmts = map[string]*sql.Stmt{}
	w.tables = map[string]*physTable{}
	w.stats = map[string]*statsDelta{}
	w.req = map[string]*statsDelta{}
	w.hseq = map[string]int64{}
	w.hnum = map[string]int64{}
}

// runBatch applies batch in one transaction and answers every request.
func (w *writer) runBatch(batch []*writeReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			r.answer()
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	if err := w.txn("BEGIN IMMEDIATE"); err != nil {
		w.fail(live, err)
		return
	}
	if len(live) == 1 {
		// A request alone needs no savepoint: if it fails, the whole
		// transaction is rolled back, which saves two statements.
		r := live[0]
		if !w.apply(r) {
			w.forgetHistory()
			if err := w.txn("ROLLBACK"); err != nil {
				w.abort(live, err)
				return
			}
			r.answer()
			return
		}
	} else {
		for _, r := range live {
			if err := w.applySavepoint(r); err != nil {
				w.abort(live, err)
				return
			}
		}
	}
	if err := w.flushStats(); err != nil {
		w.abort(live, err)
		return
	}
	start := time.Now()
	if err := w.txn("COMMIT"); err != nil {
		w.abort(live, err)
		return
	}
	if w.onCommit != nil {
		w.onCommit(len(live), time.Since(start))
	}
	clear(w.stats)
	w.b.commits.Add(1)
	for _, r := range live {
		r.answer()
	}
}

// call runs r.apply, turning a panic into an error for r alone.
func (w *writer) call(r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sqlite: write function panicked: %v", p)
		}
	}()
	return mapErr(r.apply(w))
}

// abort rolls the whole batch back after a failure of the transaction
// itself: requests that had succeeded get err, failed ones keep theirs.
// apply runs r inside the open transaction and reports whether it
// succeeded; a success's item-count and size changes join the batch's.
func (w *writer) apply(r *writeReq) bool {
	if r.catalog {
		clear(w.tables)
	}
	r.err = w.call(r)
	if r.catalog {
		clear(w.tables)
	}
	defer clear(w.req)
	if r.err != nil {
		return false
	}
	for id, d := range w.req {
		s := w.stats[id]
		if s == nil {
			s = &statsDelta{}
			w.stats[id] = s
		}
		s.count += d.count
		s.size += d.size
	}
	return true
}

// applySavepoint runs r inside a savepoint of the open transaction, so
// that a failed request leaves no trace and the others of the batch
// commit. The error is the transaction's own (r's is in r.err).
func (w *writer) applySavepoint(r *writeReq) error {
	if err := w.txn("SAVEPOINT w"); err != nil {
		return err
	}
	if !w.apply(r) {
		w.forgetHistory()
		if err := w.txn("ROLLBACK TO w"); err != nil {
			return err
		}
	}
	return w.txn("RELEASE w")
}

func (w *writer) abort(live []*writeReq, err error) {
	w.execRaw("ROLLBACK")
	for _, s := range w.stmts {
		s.Close()
	}
	w.reset()
	w.fail(live, err)
}

func (w *writer) fail(live []*writeReq, err error) {
	err = fmt.Errorf("sqlite: commit: %w", mapErr(err))
	for _, r := range live {
		if r.err == nil {
			r.err = err
		}
		r.answer()
	}
}

// flushStats adds the batch's item-count and size changes to table_stats.
func (w *writer) flushStats() error {
	for id, d := range w.stats {
		if d.count == 0 && d.size == 0 {
			continue
		}
		if _, err := w.exec("UPDATE table_stats SET item_count = item_count + ?, size_bytes = size_bytes + ? WHERE id = ?", d.count, d.size, id); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) addStats(id string, count, size int64) {
	d := w.req[id]
	if d == nil {
		d = &statsDelta{}
		w.req[id] = d
	}
	d.count += count
	d.size += size
}

// execRaw runs a statement without caching it (transaction control, DDL).
func (w *writer) execRaw(query string) error {
	_, err := w.conn.ExecContext(context.Background(), query)
	return err
}

// txn runs a transaction-control statement (BEGIN IMMEDIATE, SAVEPOINT,
// RELEASE, ROLLBACK, COMMIT) prepared once on the writer's connection:
// preparing one is several times the cost of running it.
func (w *writer) txn(query string) error {
	s, err := w.stmt(query)
	if err != nil {
		return err
	}
	_, err = s.Exec()
	return err
}

// stmt returns the prepared statement for query on the writer connection.
func (w *writer) stmt(query string) (*sql.Stmt, error) {
	if s, ok := w.stmts[query]; ok {
		return s, nil
	}
	s, err := w.conn.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, mapErr(err)
	}
	w.stmts[query] = s
	return s, nil
}

func (w *writer) exec(query string, args ...any) (sql.Result, error) {
	s, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	res, err := s.Exec(args...)
	return res, mapErr(err)
}

// forgetStmts closes the writer's statements on the physical tables names.
func (w *writer) forgetStmts(names []string) {
	closeStmtsNaming(w.stmts, names)
}

// physTable is a table's catalog entry with its physical statements.
// upsertItem, like the index rows' storage.SQLIndexTable.Put, overwrites
// an existing row in place. In a rowid table, INSERT OR REPLACE deletes
// the old row from both the table and its primary key's index and inserts
// it into both again; an upsert rewrites only the row, since no indexed
// column changes. (Tables of the earlier WITHOUT ROWID layout take the same
// statement.)
const upsertItem = " ON CONFLICT (h, pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size"

type physTable struct {
	def     *storage.Table
	name    string
	get     string
	put     string
	del     string
	indexes map[string]*storage.SQLIndexTable // by index ID
}

func newPhysTable(def *storage.Table) (*physTable, error) {
	name, err := storage.ItemsTableName(def.ID)
	if err != nil {
		return nil, err
	}
	p := &physTable{
		def:  def,
		name: name,
		get:  "SELECT item, size FROM " + name + " WHERE h = ? AND pk = ? AND sk = ?",
		put:  "INSERT INTO " + name + " (h, pk, sk, item, size) VALUES (?, ?, ?, ?, ?)" + upsertItem,
		del:  "DELETE FROM " + name + " WHERE h = ? AND pk = ? AND sk = ?",
	}
	p.indexes, err = storage.SQLIndexTables(def, func(int) string { return "?" })
	if err != nil {
		return nil, err
	}
	return p, nil
}

// table returns the current catalog entry of the table with this ID, as
// seen inside the writer's transaction; storage.ErrTableNotFound if none.
func (w *writer) table(id string) (*physTable, error) {
	if p, ok := w.tables[id]; ok {
		return p, nil
	}
	s, err := w.stmt("SELECT def, version FROM catalog WHERE id = ?")
	if err != nil {
		return nil, err
	}
	var def []byte
	var version int64
	if err := s.QueryRow(id).Scan(&def, &version); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, storage.ErrTableNotFound
		}
		return nil, mapErr(err)
	}
	t, err := storage.DecodeTable(def, version)
	if err != nil {
		return nil, err
	}
	p, err := newPhysTable(t)
	if err != nil {
		return nil, err
	}
	w.tables[id] = p
	return p, nil
}
