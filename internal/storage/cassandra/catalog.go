package cassandra

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// phys names the Cassandra tables of one DynamoDB table.
type phys struct {
	ks    string
	items string            // keyspace-qualified items table
	dir   string            // keyspace-qualified hash directory
	index map[string]string // index name -> keyspace-qualified index table
}

var hexIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// physID turns an immutable ID (a UUID) into a table-name fragment.
func physID(id string) string {
	s := strings.ToLower(strings.ReplaceAll(id, "-", ""))
	if hexIDRE.MatchString(s) {
		return s
	}
	return hashedName(id, 16)
}

func (b *Backend) phys(t *storage.Table) phys {
	ks := b.dataKeyspace(t.Account)
	id := physID(t.ID)
	p := phys{ks: ks, items: ks + ".i_" + id, dir: ks + ".d_" + id, index: make(map[string]string, len(t.Indexes))}
	for _, ix := range t.Indexes {
		p.index[ix.IndexName] = ks + ".x_" + physID(ix.ID)
	}
	return p
}

// ensurePhysical creates the keyspace and tables of t that do not exist.
func (b *Backend) ensurePhysical(ctx context.Context, t *storage.Table) error {
	p := b.phys(t)
	if err := b.ensureKeyspace(ctx, p.ks); err != nil {
		return err
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS ` + p.items + ` (pk blob, sk blob, item blob, version bigint, size int, writes blob,
			txn text, tx_new blob, tx_ver bigint, tx_op int,
			PRIMARY KEY ((pk), sk))`,
		`CREATE TABLE IF NOT EXISTS ` + p.dir + ` (ix text, b int, h bigint, pk blob,
			PRIMARY KEY ((ix, b), h, pk))`,
	}
	for _, ix := range t.Indexes {
		stmts = append(stmts, `CREATE TABLE IF NOT EXISTS `+p.index[ix.IndexName]+` (ipk blob, isk blob, pk blob, sk blob, item blob, size int,
			PRIMARY KEY ((ipk), isk, pk, sk))`)
	}
	for _, s := range stmts {
		if err := b.ddl(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// dropPhysical drops the given tables.
func (b *Backend) dropPhysical(ctx context.Context, tables []string) error {
	for _, name := range tables {
		if err := b.ddl(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
			return err
		}
	}
	return nil
}

// copyTable returns a deep copy of t, loaded when t was.
func copyTable(t *storage.Table) (*storage.Table, error) {
	def, err := storage.EncodeTable(t)
	if err != nil {
		return nil, err
	}
	cp, err := storage.DecodeTable(def, t.Version)
	if err != nil {
		return nil, err
	}
	cp.LoadedAt = t.LoadedAt
	return cp, nil
}

// CreateTable stores t (version 1) with an INSERT IF NOT EXISTS, which
// arbitrates racing creates, then creates its Cassandra tables.
func (b *Backend) CreateTable(ctx context.Context, t *storage.Table) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	cp, err := copyTable(t)
	if err != nil {
		return err
	}
	cp.Version = 1
	def, err := storage.EncodeTable(cp)
	if err != nil {
		return err
	}
	// The keyspace first, so that a winner's tables can be created at once.
	if err := b.ensureKeyspace(ctx, b.dataKeyspace(t.Account)); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		applied, err := b.cas(ctx, b.s.Query(`INSERT INTO `+b.catalog+`.tables (account, name, id, def, version)
		VALUES (?, ?, ?, ?, ?) IF NOT EXISTS`, t.Account, t.Name, t.ID, def, cp.Version),
			func() (bool, error) { // after an uncertain outcome: is the stored entry ours?
				cur, err := b.readTable(ctx, t.Account, t.Name, gocql.Serial)
				if err != nil {
					return false, err
				}
				return cur != nil && cur.ID == t.ID, nil
			})
		if err != nil {
			return fmt.Errorf("cassandra: create table %s: %w", t.Name, err)
		}
		if applied {
			return b.ensurePhysical(ctx, cp)
		}
		// Not applied: another create won, unless an uncertain outcome
		// turned out to have written nothing at all.
		cur, err := b.readTable(ctx, t.Account, t.Name, gocql.Serial)
		if err != nil {
			return err
		}
		if cur != nil {
			return storage.ErrTableExists
		}
		if attempt >= b.maxAttempts {
			return fmt.Errorf("cassandra: create table %s: no outcome after %d attempts", t.Name, attempt)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// readTable returns the catalog entry of (account, name), or nil. The
// entry's LoadedAt is the time before the read was issued (see freshEntry).
func (b *Backend) readTable(ctx context.Context, account, name string, cl gocql.Consistency) (*storage.Table, error) {
	var def []byte
	var version int64
	loadedAt := time.Now()
	err := b.retry(ctx, func() error {
		return b.s.Query(`SELECT def, version FROM `+b.catalog+`.tables WHERE account = ? AND name = ?`, account, name).
			WithContext(ctx).Consistency(cl).Scan(&def, &version)
	})
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cassandra: read table %s: %w", name, err)
	}
	t, err := storage.DecodeTable(def, version)
	if err != nil {
		return nil, err
	}
	t.LoadedAt = loadedAt
	return t, nil
}

// GetTable returns a copy of the table's entry or storage.ErrTableNotFound.
func (b *Backend) GetTable(ctx context.Context, account, name string) (*storage.Table, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	t, err := b.readTable(ctx, account, name, gocql.Quorum)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, storage.ErrTableNotFound
	}
	return t, nil
}

// ListTables returns the account's table names in ascending (UTF-8 byte)
// order: the clustering order of the catalog partition.
func (b *Backend) ListTables(ctx context.Context, account string) ([]string, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	iter := b.s.Query(`SELECT name FROM `+b.catalog+`.tables WHERE account = ?`, account).WithContext(ctx).Iter()
	names, err := scanColumn[string](iter)
	if err != nil {
		return nil, fmt.Errorf("cassandra: list tables: %w", err)
	}
	return names, nil
}

// scanColumn returns the values of the one column of iter's rows, and
// iter's error.
func scanColumn[T any](iter *gocql.Iter) ([]T, error) {
	var out []T
	var v T
	for iter.Scan(&v) {
		out = append(out, v)
	}
	return out, iter.Close()
}

// currentTable reads the catalog entry of (account, name) at SERIAL.
// Errors: storage.ErrTableNotFound, cluster failures.
func (b *Backend) currentTable(ctx context.Context, account, name string) (*storage.Table, error) {
	t, err := b.readTable(ctx, account, name, gocql.Serial)
	if err == nil && t == nil {
		err = storage.ErrTableNotFound
	}
	return t, err
}

// storeEntry stores nw as the next version of the catalog entry of
// (account, name), read as cur, fenced on cur's version (IF version = ?).
// It reports false when another change came first (or the entry is gone);
// an unknown outcome is settled by a SERIAL read.
func (b *Backend) storeEntry(ctx context.Context, account, name string, cur, nw *storage.Table) (bool, error) {
	nw.Version = cur.Version + 1
	def, err := storage.EncodeTable(nw)
	if err != nil {
		return false, err
	}
	applied, err := b.cas(ctx, b.s.Query(`UPDATE `+b.catalog+`.tables SET def = ?, version = ?
		WHERE account = ? AND name = ? IF version = ?`, def, nw.Version, account, name, cur.Version),
		func() (bool, error) {
			got, err := b.readTable(ctx, account, name, gocql.Serial)
			if err != nil {
				return false, err
			}
			return got != nil && got.Version == nw.Version && bytes.Equal(mustDef(got), mustDef(nw)), nil
		})
	if err != nil {
		return false, fmt.Errorf("cassandra: update table %s: %w", name, err)
	}
	return applied, nil
}

// UpdateTable reads the entry at SERIAL, applies fn to a copy and stores it
// with an update fenced on the catalog version (IF version = ?); a lost
// race retries from a fresh read. Indexes fn added get their tables;
// indexes it removed lose theirs.
func (b *Backend) UpdateTable(ctx context.Context, account, name string, fn func(t *storage.Table) error) (*storage.Table, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	cur, nw, err := b.changeEntry(ctx, account, name, func(nw *storage.Table) (bool, error) {
		return true, fn(nw)
	})
	if err != nil {
		return nil, err
	}
	if err := b.ensurePhysical(ctx, nw); err != nil {
		return nil, err
	}
	if err := b.dropPhysical(ctx, removedIndexTables(b.phys(cur), b.phys(nw))); err != nil {
		return nil, err
	}
	return copyTable(nw)
}

// changeEntry reads the catalog entry of (account, name) at SERIAL,
// applies change to a copy and stores it with an update fenced on the
// entry's version (IF version = ?), keeping its account, name and ID: a
// deleted table (the row is gone, so the condition fails) or a concurrent
// change is never overwritten, and a catalog row is never recreated. A
// lost race runs change again on a fresh read, up to maxAttempts times.
// It returns the entry read and the one stored; nw is nil when change
// returned false or an error (returned unchanged).
func (b *Backend) changeEntry(ctx context.Context, account, name string, change func(nw *storage.Table) (bool, error)) (*storage.Table, *storage.Table, error) {
	for attempt := 1; ; attempt++ {
		cur, err := b.currentTable(ctx, account, name)
		if err != nil {
			return nil, nil, err
		}
		nw, err := copyTable(cur)
		if err != nil {
			return nil, nil, err
		}
		if ok, err := change(nw); err != nil || !ok {
			return cur, nil, err
		}
		nw.Account, nw.Name, nw.ID = cur.Account, cur.Name, cur.ID
		applied, err := b.storeEntry(ctx, account, name, cur, nw)
		if err != nil {
			return nil, nil, err
		}
		if applied {
			return cur, nw, nil
		}
		if attempt >= b.maxAttempts {
			return nil, nil, fmt.Errorf("cassandra: update table %s: lost %d races in a row", name, attempt)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, nil, err
		}
	}
}

func mustDef(t *storage.Table) []byte {
	def, _ := storage.EncodeTable(t)
	return def
}

// removedIndexTables lists the index tables of before that after lacks.
func removedIndexTables(before, after phys) []string {
	keep := map[string]bool{}
	for _, tb := range after.index {
		keep[tb] = true
	}
	var out []string
	for _, tb := range before.index {
		if !keep[tb] {
			out = append(out, tb)
		}
	}
	return out
}

// DeleteTable removes the entry (a delete fenced on the table ID) and then
// drops its Cassandra tables.
func (b *Backend) DeleteTable(ctx context.Context, account, name string) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	for attempt := 1; ; attempt++ {
		cur, err := b.currentTable(ctx, account, name)
		if err != nil {
			return err
		}
		applied, err := b.cas(ctx, b.s.Query(`DELETE FROM `+b.catalog+`.tables WHERE account = ? AND name = ? IF id = ?`,
			account, name, cur.ID),
			func() (bool, error) {
				got, err := b.readTable(ctx, account, name, gocql.Serial)
				return err == nil && (got == nil || got.ID != cur.ID), err
			})
		if err != nil {
			return fmt.Errorf("cassandra: delete table %s: %w", name, err)
		}
		if applied {
			p := b.phys(cur)
			tables := []string{p.items, p.dir}
			for _, ix := range cur.Indexes {
				tables = append(tables, p.index[ix.IndexName])
			}
			if err := b.dropPhysical(ctx, tables); err != nil {
				return err
			}
			return b.dropDerived(ctx, cur.ID) // streams.go: stream records, expiry rows
		}
		if attempt >= b.maxAttempts {
			return fmt.Errorf("cassandra: delete table %s: lost %d races in a row", name, attempt)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// cas runs a conditional statement and reports whether it applied. When
// the outcome is uncertain (a timeout, or a Paxos round that a competing
// proposer interrupted), mine decides from a fresh SERIAL read, which also
// finishes or discards the round, whether the write is there; if it is not,
// cas reports that the statement did not apply, and the caller starts again
// from a fresh read as after a lost race. Unavailable and overloaded
// coordinators get the statement again (bounded, jittered).
func (b *Backend) cas(ctx context.Context, q *gocql.Query, mine func() (bool, error)) (bool, error) {
	for try := 1; ; try++ {
		applied, err := q.WithContext(ctx).SerialConsistency(gocql.Serial).MapScanCAS(map[string]any{})
		switch {
		case err == nil:
			return applied, nil
		case isUncertain(err):
			ok, rerr := mine()
			for r := 1; rerr != nil && retryable(rerr) && r <= 5; r++ {
				if berr := backoff(ctx, r); berr != nil {
					return false, berr
				}
				ok, rerr = mine()
			}
			if rerr != nil {
				return false, fmt.Errorf("%w (then reading the outcome: %v)", err, rerr)
			}
			return ok, nil
		case !retryable(err) || try >= 5:
			return false, err
		}
		if berr := backoff(ctx, try); berr != nil {
			return false, berr
		}
	}
}

// checkTable is called when a statement on t's tables found no table: it
// returns storage.ErrTableNotFound when the catalog no longer has t, and
// otherwise creates the missing tables (a create interrupted between its
// catalog insert and its tables) and returns nil so the caller retries.
func (b *Backend) checkTable(ctx context.Context, t *storage.Table) error {
	cur, err := b.readTable(ctx, t.Account, t.Name, gocql.Serial)
	if err != nil {
		return err
	}
	if cur == nil || cur.ID != t.ID {
		return storage.ErrTableNotFound
	}
	return b.ensurePhysical(ctx, cur)
}

// ListNamespaces returns the distinct accounts (namespaces) of the catalog:
// the partition keys of the catalog table.
func (b *Backend) ListNamespaces(ctx context.Context) ([]string, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	iter := b.s.Query(`SELECT DISTINCT account FROM ` + b.catalog + `.tables`).WithContext(ctx).Iter()
	out, err := scanColumn[string](iter)
	if err != nil {
		return nil, fmt.Errorf("cassandra: list namespaces: %w", err)
	}
	return out, nil
}
