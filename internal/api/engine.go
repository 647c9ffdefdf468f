// Package api implements DynamoDB's operations on top of a storage backend:
// request decoding and validation in DynamoDB's order and words, expressions,
// projections, pagination and capacity accounting. One file per operation
// family. See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB.html
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/importer"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/realism"
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
	// ItemCollectionLimit is the size limit in bytes of one item collection
	// of a table with local secondary indexes; zero means DynamoDB's 10 GB
	// (DefaultItemCollectionLimit). Tests lower it, since they cannot write 10 GB.
	ItemCollectionLimit int64
	Log                 *slog.Logger
	// OnTableUse, when set, is called after every metered read and write
	// (metering.go) with the table's name, "read" or "write", the capacity
	// units DynamoDB would charge, and the items and item bytes read or
	// written. It must not block.
	OnTableUse func(table, kind string, units float64, items int, bytes int64)
	// OnStreamRecords, when set, is called with the number of DynamoDB
	// Streams records the item writes of a request appended (a write that
	// changes nothing, or to a table without a stream, appends none). It
	// must not block.
	OnStreamRecords func(n int)
	// OnTableDeleted, when set, is called with the name of each table
	// DeleteTable removed, once it is gone. It must not block.
	OnTableDeleted func(table string)
	// Now is the clock (internal/clock): CreationDateTime, backup and
	// point in time recovery timestamps, stream iterator expiry and
	// transient statuses follow it. Default time.Now.
	Now func() time.Time
	// Realism, when set, applies the realism effects to item requests
	// (realism.go); nil leaves every request as it is.
	Realism *realism.Realism
}

// Engine serves DynamoDB operations. It is safe for concurrent use.
type Engine struct {
	store storage.Backend
	cfg   Config
	now   func() time.Time
	ops   map[string]opFunc

	tables tableCache
	exprs  *expr.Cache // parsed expressions, by kind and text

	// Wake-ups of the background workers (SetIndexWorker, SetTTLWorker).
	indexKick, ttlKick atomic.Pointer[func()]
	// The inline TTL transition (SetTTLSettler).
	ttlSettle atomic.Pointer[func(context.Context, *storage.Table) bool]
	// backups serves the backup operations (SetBackups, backups.go).
	backups *backup.Service
	// exports serves the export operations (SetExports, exports.go).
	exports *export.Service
	// imports serves the import operations (SetImports, imports.go).
	imports *importer.Service
	// realism is Config.Realism (realism.go).
	realism *realism.Realism
	// decodeReads makes Query and Scan decode every row (query_raw.go);
	// tests set it to compare the two ways of reading.
	decodeReads bool
}

type opFunc func(e *Engine, ctx context.Context, r *protocol.Request) (any, error)

// New returns an Engine over store.
func New(store storage.Backend, cfg Config) *Engine {
	if cfg.AccountID == "" {
		cfg.AccountID = storage.DefaultAccount
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.ItemCollectionLimit <= 0 {
		cfg.ItemCollectionLimit = DefaultItemCollectionLimit
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Realism != nil {
		// Capacity buckets are charged what the metering counts.
		cfg.OnTableUse = chargeRealism(cfg.Realism, cfg.OnTableUse)
	}
	e := &Engine{store: store, cfg: cfg, now: cfg.Now, realism: cfg.Realism}
	e.tables.m = map[tableKey]cachedTable{}
	e.exprs = expr.NewCache(0)
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
	if e.realism != nil {
		ctx = context.WithValue(ctx, regionKey{}, r.Caller.Region)
		if err := e.injectFault(r); err != nil {
			return nil, err
		}
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
		return ddberr.Serialization("%s", serializationMessage(te, body))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Text that is not JSON: a bare SerializationException, as for an
		// empty body (see internal/protocol's checkJSONBody).
		return ddberr.Serialization("")
	}
	return ddberr.Serialization("Start of structure or map found where not expected.")
}

// serializationMessage words a JSON type mismatch the way DynamoDB's
// deserializer does: "<TOKEN> cannot be converted to <Type>", the token
// being STRING_VALUE, NUMBER_VALUE, TRUE_VALUE or FALSE_VALUE, as for
// AttributeValue members (internal/item). body is the request, used to
// tell true from false (te.Offset is just past the offending value).
func serializationMessage(te *json.UnmarshalTypeError, body []byte) string {
	switch te.Value {
	case "object":
		return "Start of structure or map found where not expected."
	case "array":
		return "Start of list found where not expected"
	}
	got := map[string]string{"string": "STRING_VALUE", "number": "NUMBER_VALUE"}[te.Value]
	if te.Value == "bool" {
		got = "FALSE_VALUE"
		if off := int(te.Offset); off <= len(body) && bytes.HasSuffix(body[:off], []byte("true")) {
			got = "TRUE_VALUE"
		}
	}
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
	return got + " cannot be converted to " + want
}

func (e *Engine) sleep(d time.Duration) { time.Sleep(d) }

func itoa(i int) string { return strconv.Itoa(i) }
