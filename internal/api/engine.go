// Package api implements DynamoDB's operations on top of a storage backend:
// request decoding and validation in DynamoDB's order and words, expressions,
// projections, pagination and capacity accounting. One file per operation
// family. See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB.html
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// Config holds the engine's settings.
type Config struct {
	// AccountID is the 12-digit account that owns every table (used in ARNs).
	AccountID string
	// StatusDelay is how long a created or updated table stays CREATING or
	// UPDATING (and a deleted one DELETING) before the change completes.
	// Zero makes every change immediate.
	StatusDelay time.Duration
	Log         *slog.Logger
}

// Engine serves DynamoDB operations. It is safe for concurrent use.
type Engine struct {
	store storage.Backend
	cfg   Config
	now   func() time.Time
	ops   map[string]opFunc

	mu     sync.Mutex
	tables map[tableKey]cachedTable

	// Wake-ups of the background workers (SetIndexWorker, SetTTLWorker).
	indexKick, ttlKick atomic.Pointer[func()]
	// The inline TTL transition (SetTTLSettler).
	ttlSettle atomic.Pointer[func(context.Context, *storage.Table) bool]
	// backups serves the backup operations (SetBackups, backups.go).
	backups *backup.Service
}

type opFunc func(e *Engine, ctx context.Context, r *protocol.Request) (any, error)

type tableKey struct{ account, name string }

type cachedTable struct {
	t       *storage.Table
	fetched time.Time
}

// tableCacheTTL bounds how long a catalog entry read by this process is reused
// before it is read again (other processes may change the catalog).
const tableCacheTTL = time.Second

// New returns an Engine over store.
func New(store storage.Backend, cfg Config) *Engine {
	if cfg.AccountID == "" {
		cfg.AccountID = storage.DefaultAccount
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	e := &Engine{store: store, cfg: cfg, now: time.Now, tables: map[tableKey]cachedTable{}}
	e.ops = operations()
	return e
}

// Known implements protocol.Handler.
func (e *Engine) Known(service, op string) bool {
	var ok bool
	switch service {
	case "DynamoDB":
		_, ok = e.ops[op]
	case "DynamoDBStreams":
		_, ok = streamOps[op]
	}
	return ok
}

// Serve implements protocol.Handler. Operations of DynamoDB Streams
// (Service "DynamoDBStreams") are in streams.go.
func (e *Engine) Serve(ctx context.Context, r *protocol.Request) (any, error) {
	ops := e.ops
	if r.Service == "DynamoDBStreams" {
		ops = streamOps
	}
	f, ok := ops[r.Operation]
	if !ok {
		return nil, ddberr.UnknownOperation()
	}
	out, err := f(e, ctx, r)
	if err != nil && errors.Is(err, storage.ErrTransactionConflict) {
		// A single write whose item a transaction held for too long (the
		// Cassandra backend waits for transactions first).
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#API_PutItem_Errors
		return nil, ddberr.TransactionConflict(txConflictMessage)
	}
	if err != nil && errors.Is(err, storage.ErrKeyTooLarge) {
		// Not a DynamoDB limit but this backend's: refuse it as a client
		// error (nothing was written) rather than a retryable 500. See
		// docs/differences-from-dynamodb.md.
		return nil, ddberr.Validation("One or more parameter values were invalid: Key is too large for this server's storage backend (PostgreSQL stores keys of up to about 2,650 bytes)")
	}
	return out, storageFault(e.cfg.Log, r.Operation, err)
}

// account returns the storage namespace of a caller (storage.Namespace: its
// account and region), or the configured account when the protocol layer
// named none.
func (e *Engine) account(r *protocol.Request) string {
	if r.Caller.Namespace != "" {
		return r.Caller.Namespace
	}
	return e.cfg.AccountID
}

// table returns the catalog entry of an account's table, from the cache when fresh.
// A missing table is ResourceNotFoundException.
func (e *Engine) table(ctx context.Context, account, name string) (*storage.Table, error) {
	k := tableKey{account, name}
	now := e.now()
	e.mu.Lock()
	c, ok := e.tables[k]
	e.mu.Unlock()
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

// activeTable is table() for data-plane operations: a table still being
// created or being deleted is not found, as in DynamoDB.
func (e *Engine) activeTable(ctx context.Context, account, name string) (*storage.Table, error) {
	t, err := e.table(ctx, account, name)
	if err != nil {
		return nil, err
	}
	switch e.status(t) {
	case storage.StatusCreating, storage.StatusDeleting:
		return nil, errTableNotFound(name)
	}
	return t, nil
}

// currentTable is table() read from the catalog rather than the cache (and
// refreshing it): control-plane operations act on the current entry.
func (e *Engine) currentTable(ctx context.Context, account, name string) (*storage.Table, error) {
	e.forget(account, name)
	return e.table(ctx, account, name)
}

func (e *Engine) remember(t *storage.Table) {
	e.mu.Lock()
	e.tables[tableKey{t.Account, t.Name}] = cachedTable{t: t, fetched: e.now()}
	e.mu.Unlock()
}

func (e *Engine) forget(account, name string) {
	e.mu.Lock()
	delete(e.tables, tableKey{account, name})
	e.mu.Unlock()
}

// status is a table's TableStatus now, completing CREATING/UPDATING once its
// StatusDelay has passed.
func (e *Engine) status(t *storage.Table) string {
	if (t.Status == storage.StatusCreating || t.Status == storage.StatusUpdating) && !e.now().Before(t.ActiveAt) {
		return storage.StatusActive
	}
	return t.Status
}

func errTableNotFound(name string) error {
	return ddberr.ResourceNotFound("Requested resource not found: Table: %s not found", name)
}

// decode unmarshals a request body into v, mapping JSON errors to
// SerializationException as DynamoDB does.
func decode(body []byte, v any) error {
	if len(body) == 0 {
		// DynamoDB answers an empty body with a bare SerializationException.
		return ddberr.Serialization("")
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var de *ddberr.Error
	if errors.As(err, &de) {
		return de
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return ddberr.Serialization("%s", serializationMessage(te))
	}
	return ddberr.Serialization("Start of structure or map found where not expected.")
}

// serializationMessage words a JSON type mismatch the way DynamoDB's
// deserializer does.
func serializationMessage(te *json.UnmarshalTypeError) string {
	switch te.Value {
	case "object":
		return "Start of structure or map found where not expected."
	case "array":
		return "Start of list found where not expected"
	}
	got := map[string]string{"string": "STRING_VALUE", "number": "NUMBER_VALUE", "bool": "VALUE_BOOLEAN"}[te.Value]
	if got == "" {
		got = "VALUE"
	}
	want := "String"
	if te.Type != nil {
		switch te.Type.Kind().String() {
		case "int", "int64", "int32":
			want = "Integer"
		case "bool":
			want = "Boolean"
		case "slice":
			return "Unexpected value type in payload"
		case "map", "struct":
			return "Unexpected value type in payload"
		}
	}
	return got + " can not be converted to " + want
}

func (e *Engine) sleep(d time.Duration) { time.Sleep(d) }

func itoa(i int) string { return strconv.Itoa(i) }
