// Package storagetest is the contract test suite of storage.Backend. Every
// backend runs it unchanged from its own tests:
//
//	func TestContract(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Backend { ... })
//	}
//
// The suite uses only the storage.Backend interface and real data: racing
// writers, conditional creates, key ordering, pagination, parallel scan,
// transactions and an audit of every secondary index against its table.
package storagetest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Run runs the contract suite. open must return a working backend for one
// subtest and arrange its Close (t.Cleanup). Subtests run in parallel and
// each uses its own account, so open may return a fresh backend every time
// or share one.
func Run(t *testing.T, open func(t *testing.T) storage.Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"CatalogLifecycle", testCatalogLifecycle},
		{"CatalogUpdateErrors", testCatalogUpdateErrors},
		{"DuplicateCreate", testDuplicateCreate},
		{"ConcurrentCreateOneWins", testConcurrentCreate},
		{"RecreateSeesNoOldData", testRecreate},
		{"DeletedTable", testDeletedTable},
		{"PutGetDelete", testPutGetDelete},
		{"MutateReturningOldWritesNothing", testMutateReturningOld},
		{"FailingMutateWritesNothing", testFailingMutate},
		{"RacingCounter", testRacingCounter},
		{"ConditionalCreateRace", testConditionalCreateRace},
		{"QueryOrderString", testQueryOrderS},
		{"QueryOrderNumber", testQueryOrderN},
		{"QueryOrderBinary", testQueryOrderB},
		{"QueryConditions", testQueryConditions},
		{"BeginsWith", testBeginsWith},
		{"QueryPagination", testQueryPagination},
		{"ScanSegments", testScanSegments},
		{"ScanPagination", testScanPagination},
		{"RawRows", testRawRows},
		{"Stats", testStats},
		{"TransactAllOrNothing", testTransact},
		{"IndexQueries", testIndexQueries},
		{"IndexProjectionsAndSparse", testIndexProjections},
		{"IndexAgreementAudit", testIndexAudit},
		{"IndexRaceAudit", testIndexRace},
		{"IndexBackfillWithWriters", testIndexBackfill},
		{"IndexBackfillResume", testIndexBackfillResume},
		{"IndexDrop", testIndexDrop},
	}
	tests = append(tests, streamTTLTests...) // streams_ttl.go
	tests = append(tests, tokenTests...)     // tokens.go
	tests = append(tests, jobTests...)       // jobs.go
	tests = append(tests, historyTests...)   // history.go
	tests = append(tests, snapshotTests...)  // snapshot.go
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			tc.fn(t, &env{t: t, b: open(t), ctx: ctx, account: newAccount()})
		})
	}
}

// newAccount returns a random 12-digit account ID.
func newAccount() string { return fmt.Sprintf("%012d", rand.Int64N(1e12)) }

// env is one subtest's backend, context and account.
type env struct {
	t       *testing.T
	b       storage.Backend
	ctx     context.Context
	account string
}

// table describes a test table: hash key "pk" (S) and, when skType is
// set, range key "sk" of that type.
func (e *env) table(name, skType string, indexes ...storage.Index) *storage.Table {
	tb := &storage.Table{
		Account:              e.account,
		Name:                 name,
		ID:                   uuid.NewString(),
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST",
		Status:               storage.StatusActive,
		CreatedAt:            time.Now().UTC().Truncate(time.Millisecond),
	}
	if skType != "" {
		tb.KeySchema = append(tb.KeySchema, storage.KeyElement{AttributeName: "sk", KeyType: "RANGE"})
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "sk", AttributeType: skType})
	}
	for _, ix := range indexes {
		if ix.ID == "" {
			ix.ID = uuid.NewString()
		}
		if ix.Status == "" {
			ix.Status = storage.StatusActive
		}
		tb.Indexes = append(tb.Indexes, ix)
	}
	return tb
}

// create stores tb and returns the stored entry.
func (e *env) create(tb *storage.Table) *storage.Table {
	e.t.Helper()
	if err := e.b.CreateTable(e.ctx, tb); err != nil {
		e.t.Fatalf("CreateTable(%s): %v", tb.Name, err)
	}
	got, err := e.b.GetTable(e.ctx, tb.Account, tb.Name)
	if err != nil {
		e.t.Fatalf("GetTable(%s): %v", tb.Name, err)
	}
	return got
}

func (e *env) key(tb *storage.Table, it item.Item) storage.Key {
	e.t.Helper()
	k, err := storage.ItemKey(tb, it)
	if err != nil {
		e.t.Fatalf("ItemKey: %v", err)
	}
	return k
}

func (e *env) put(tb *storage.Table, it item.Item) {
	e.t.Helper()
	if err := e.b.Mutate(e.ctx, tb, e.key(tb, it), func(item.Item) (item.Item, error) { return it, nil }); err != nil {
		e.t.Fatalf("put: %v", err)
	}
}

func (e *env) del(tb *storage.Table, k storage.Key) {
	e.t.Helper()
	if err := e.b.Mutate(e.ctx, tb, k, func(item.Item) (item.Item, error) { return nil, nil }); err != nil {
		e.t.Fatalf("delete: %v", err)
	}
}

func (e *env) get(tb *storage.Table, k storage.Key) item.Item {
	e.t.Helper()
	it, err := e.b.GetItem(e.ctx, tb, k, true)
	if err != nil {
		e.t.Fatalf("GetItem: %v", err)
	}
	return it
}

// query returns every row of a query.
func (e *env) query(tb *storage.Table, q storage.QueryRequest) []storage.Row {
	e.t.Helper()
	var rows []storage.Row
	if err := e.b.Query(e.ctx, tb, &q, func(r storage.Row) bool { rows = append(rows, r); return true }); err != nil {
		e.t.Fatalf("Query: %v", err)
	}
	return rows
}

// scan returns every row of a scan.
func (e *env) scan(tb *storage.Table, s storage.ScanRequest) []storage.Row {
	e.t.Helper()
	var rows []storage.Row
	if err := e.b.Scan(e.ctx, tb, &s, func(r storage.Row) bool { rows = append(rows, r); return true }); err != nil {
		e.t.Fatalf("Scan: %v", err)
	}
	return rows
}

func s(v string) item.AttributeValue { return item.S(v) }
func n(v string) item.AttributeValue { return item.N(v) }
func b(v ...byte) item.AttributeValue {
	return item.B(v)
}

func enc(v item.AttributeValue) []byte { return item.EncodeKey(v) }

// equalItems reports whether a and b hold the same attributes with equal
// values.
func equalItems(a, b item.Item) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !item.Equal(av, bv) {
			return false
		}
	}
	return true
}

func (e *env) wantItem(what string, got, want item.Item) {
	e.t.Helper()
	if !equalItems(got, want) {
		e.t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// sortKeys returns the sort keys of rows, encoded.
func sortKeys(rows []storage.Row) [][]byte {
	out := make([][]byte, len(rows))
	for i, r := range rows {
		out[i] = r.Pos.Key.SK
	}
	return out
}

func equalBytesList(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, bytes.Equal)
}

// posKey is a printable identity of a row position.
func posKey(p storage.Position) string {
	return fmt.Sprintf("%x|%x|%x|%x", p.IndexKey.PK, p.IndexKey.SK, p.Key.PK, p.Key.SK)
}
