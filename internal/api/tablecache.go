package api

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// tableCacheTTL bounds how long a catalog entry read by this process is reused
// before it is read again (other processes may change the catalog).
const tableCacheTTL = time.Second

// tableCache holds the catalog entries this engine read recently, per
// account and table name. It is safe for concurrent use.
type tableCache struct {
	mu sync.Mutex
	m  map[tableKey]cachedTable
}

type tableKey struct{ account, name string }

type cachedTable struct {
	t       *storage.Table
	fetched time.Time
}

// lookupMode says how a request resolves its table.
type lookupMode int

const (
	// lookupControl reads the entry from the catalog (refreshing the cache):
	// control-plane operations act on the current entry, in any status.
	// A missing table is "Requested resource not found: Table: NAME not found".
	lookupControl lookupMode = iota
	// lookupActive is lookupControl for an operation that needs the table
	// usable: a table being created or deleted is not found, with the
	// control plane's message.
	lookupActive
	// lookupData is for item operations: it reads through the cache, and a
	// table being created or deleted is not found, reported as a missing
	// one without naming it: "Requested resource not found".
	// https://github.com/mhart/dynalite/blob/master/db/index.js (getTable with checkStatus)
	lookupData
)

// lookup resolves the table a request names, by name or by table ARN
// (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME, accepted wherever a TableName
// is since 2024; the name resolves within the caller's account). See
// lookupMode for the three ways of resolving.
func (e *Engine) lookup(ctx context.Context, account, name string, mode lookupMode) (*storage.Table, error) {
	if n, ok := tableNameOfArn(name); ok {
		name = n
	}
	if mode != lookupData {
		e.forget(account, name)
	}
	t, err := e.cachedTable(ctx, account, name)
	if err != nil {
		if mode == lookupData && ddberr.Is(err, "ResourceNotFoundException") {
			return nil, errItemTableNotFound()
		}
		return nil, err
	}
	if mode != lookupControl {
		switch e.status(t) {
		case storage.StatusCreating, storage.StatusDeleting:
			if mode == lookupData {
				return nil, errItemTableNotFound()
			}
			return nil, errTableNotFound(name)
		}
	}
	return t, nil
}

// cachedTable returns the catalog entry of an account's table, from the
// cache when fresh. A missing table is ResourceNotFoundException.
func (e *Engine) cachedTable(ctx context.Context, account, name string) (*storage.Table, error) {
	k := tableKey{account, name}
	now := time.Now() // the wall clock: the manual clock may stand still
	e.tables.mu.Lock()
	c, ok := e.tables.m[k]
	e.tables.mu.Unlock()
	if ok && now.Sub(c.fetched) < tableCacheTTL {
		return c.t, nil
	}
	t, err := e.store.GetTable(ctx, account, name)
	if errors.Is(err, storage.ErrTableNotFound) {
		e.forget(account, name)
		return nil, errTableNotFound(name)
	}
	if err != nil {
		return nil, err
	}
	e.remember(t)
	return t, nil
}

// remember caches t as the current entry of its table.
func (e *Engine) remember(t *storage.Table) {
	e.tables.mu.Lock()
	e.tables.m[tableKey{t.Account, t.Name}] = cachedTable{t: t, fetched: time.Now()}
	e.tables.mu.Unlock()
}

// forget drops a table from the cache, so the next lookup reads the catalog.
func (e *Engine) forget(account, name string) {
	e.tables.mu.Lock()
	delete(e.tables.m, tableKey{account, name})
	e.tables.mu.Unlock()
}

// ForgetTable drops the cached catalog entry of a table of namespace ns,
// so that the next request reads the catalog: for changes made to the
// catalog beside the engine (internal/admin's snapshot restores and
// truncates).
func (e *Engine) ForgetTable(ns, name string) { e.forget(ns, name) }

// status is a table's TableStatus now, completing CREATING/UPDATING once its
// StatusDelay has passed. A table a job is filling (storage.Table.Filling)
// stays CREATING until the job sets it ACTIVE, whatever the clock says
// (a manual clock can be set past storage.FillingUntil).
func (e *Engine) status(t *storage.Table) string {
	if t.Filling() {
		return storage.StatusCreating
	}
	if (t.Status == storage.StatusCreating || t.Status == storage.StatusUpdating) && !e.now().Before(t.ActiveAt) {
		return storage.StatusActive
	}
	return t.Status
}

func errTableNotFound(name string) error {
	return ddberr.ResourceNotFound("Requested resource not found: Table: %s not found", name)
}

func errItemTableNotFound() error {
	return ddberr.ResourceNotFound("Requested resource not found")
}

// tableNameOfArn returns NAME when s is a table ARN,
// arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME, whose NAME is a valid
// table name. An index or stream ARN (table/NAME/index/...) is not a table ARN.
func tableNameOfArn(s string) (string, bool) {
	if !strings.HasPrefix(s, "arn:") {
		return "", false
	}
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[1] == "" || parts[2] != "dynamodb" || parts[3] == "" || parts[4] == "" {
		return "", false
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || !validTableName(name) {
		return "", false
	}
	return name, true
}

// validTableName reports whether s is 3 to 255 characters of [a-zA-Z0-9_.-].
func validTableName(s string) bool {
	return len(s) >= 3 && len(s) <= 255 && namePattern.MatchString(s)
}
