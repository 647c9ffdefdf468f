// Package storage is the contract between the API engine and a storage backend
// (SQLite, PostgreSQL, Cassandra).
//
// The engine owns DynamoDB semantics: validation, expressions, projections,
// filters, pagination limits. A backend owns durability and atomicity: the
// catalog, and item writes in which the condition check (run by the engine's
// MutateFunc against the locked or version-fenced pre-image), the new image,
// the index rows, the stream record and the TTL entry commit as one unit.
//
// Keys reach a backend already encoded with item.EncodeKey, so every backend
// orders and range-scans them as unsigned bytes.
package storage

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// Errors a backend returns; the engine maps them to DynamoDB errors.
var (
	ErrTableExists   = errors.New("storage: table already exists")
	ErrTableNotFound = errors.New("storage: table not found")
	ErrClosed        = errors.New("storage: backend closed")
	// ErrKeyTooLarge is returned (wrapped) by a backend that cannot store
	// keys as large as DynamoDB allows (PostgreSQL's index entries hold
	// about 2.6 KB); nothing was written.
	ErrKeyTooLarge = errors.New("storage: key too large for this storage backend")
)

// Table statuses (TableStatus / IndexStatus).
const (
	StatusCreating = "CREATING"
	StatusActive   = "ACTIVE"
	StatusUpdating = "UPDATING"
	StatusDeleting = "DELETING"
)

// KeyElement is one attribute of a key schema.
type KeyElement struct {
	AttributeName string
	KeyType       string // "HASH" or "RANGE"
}

// AttributeDefinition is one entry of AttributeDefinitions.
type AttributeDefinition struct {
	AttributeName string
	AttributeType string // "S", "N" or "B"
}

// Projection is an index projection.
type Projection struct {
	ProjectionType   string // "ALL", "KEYS_ONLY" or "INCLUDE"
	NonKeyAttributes []string
}

// Throughput is provisioned throughput with DynamoDB's bookkeeping.
type Throughput struct {
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
	LastIncreaseDateTime   time.Time
	LastDecreaseDateTime   time.Time
	NumberOfDecreasesToday int64
}

// Index is a local or global secondary index.
type Index struct {
	IndexName   string
	Global      bool
	KeySchema   []KeyElement
	Projection  Projection
	Throughput  *Throughput // GSIs on PROVISIONED tables
	Status      string      // GSIs: CREATING, ACTIVE, DELETING, UPDATING
	Backfilling bool
	ID          string // immutable; physical names derive from it
	// BackfillCursor is the durable progress of an online build (an index
	// added with Status CREATING and Backfilling set): the table key of the
	// last item copied, nil before the first page. See IndexBuilder.
	BackfillCursor *Key `json:",omitempty"`
}

// StreamSpecification is a table's stream setting.
type StreamSpecification struct {
	StreamEnabled  bool
	StreamViewType string
}

// TimeToLive is a table's TTL setting. See TTLStore for its lifecycle.
type TimeToLive struct {
	AttributeName string
	Status        string // DISABLED, ENABLING, ENABLED, DISABLING
	// Generation increases with every accepted UpdateTimeToLive; backfill
	// and drain pages are fenced on it.
	Generation int64 `json:",omitempty"`
	// BackfillCursor is the durable progress of an ENABLING backfill: the
	// table key of the last item registered, nil before the first page.
	BackfillCursor *Key `json:",omitempty"`
}

// Tag is one resource tag.
type Tag struct {
	Key   string
	Value string
}

// Table is the catalog entry of one DynamoDB table. It is a value: backends
// store and return copies.
type Table struct {
	Account              string
	Name                 string
	ID                   string // UUID, immutable: physical names derive from it
	KeySchema            []KeyElement
	AttributeDefinitions []AttributeDefinition
	Indexes              []Index // LSIs and GSIs, in creation order
	BillingMode          string  // "PROVISIONED" or "PAY_PER_REQUEST"
	Throughput           Throughput
	BillingModeUpdated   time.Time
	Stream               StreamSpecification
	LatestStreamLabel    string
	TTL                  TimeToLive
	Tags                 []Tag
	TableClass           string
	DeletionProtection   bool
	Status               string
	CreatedAt            time.Time
	// ActiveAt is when a CREATING or UPDATING table becomes ACTIVE (the
	// configurable status delay); zero means it already is.
	ActiveAt time.Time
	// Version increases on every catalog change.
	Version int64
	// LoadedAt is when this copy was read from the catalog: a backend that
	// sets it takes the time before issuing the read, so the copy reflects
	// every catalog change committed before LoadedAt. Zero if unknown. It
	// is not part of the entry (never stored) and is kept in memory only;
	// the Cassandra backend uses it to tell how stale a caller's cached
	// entry may be (docs/adr/0003, Online index builds).
	LoadedAt time.Time `json:"-"`
}

// Key is an item's primary key, encoded with item.EncodeKey. SK is nil for a
// table without a sort key.
type Key struct {
	PK []byte
	SK []byte
}

// MutateFunc receives the current image of an item (nil when absent) and
// returns the image to store: nil deletes the item, and returning old
// (the very same map) writes nothing. A returned error aborts the write
// and is passed through to the caller unchanged. It may run more than once
// (a Cassandra backend retries on a lost race) and must not have side effects
// beyond its return values and variables it resets on each call.
type MutateFunc func(old item.Item) (item.Item, error)

// Mutation is one item write of a batch or transaction.
type Mutation struct {
	Table *Table
	Key   Key
	Fn    MutateFunc
}

// KeyCondition restricts the sort key in a Query. Op is one of
// "EQ", "LT", "LE", "GT", "GE", "BETWEEN", "BEGINS_WITH"; Values hold the
// encoded operands (two for BETWEEN). An empty Op means no sort-key condition.
type KeyCondition struct {
	Op     string
	Values [][]byte
}

// QueryRequest is a range read inside one partition.
type QueryRequest struct {
	Index   string // "" for the base table
	PK      []byte // encoded partition key (of the index when Index is set)
	SK      KeyCondition
	Forward bool
	// ExclusiveStart resumes after this position: for the base table, the
	// table key; for an index, the index key plus the table key.
	ExclusiveStart *Position
	Consistent     bool
}

// ScanRequest reads a table or index in partition-hash order.
type ScanRequest struct {
	Index          string
	Segment        int
	TotalSegments  int // 0 or 1 means the whole table
	ExclusiveStart *Position
	Consistent     bool
}

// Position is where an item sits in a table or index: its table key and, on
// an index, its index key.
type Position struct {
	Key      Key
	IndexKey Key
}

// Row is one item produced by Query or Scan.
type Row struct {
	Pos  Position
	Item item.Item
	Size int // stored size, for the 1 MB page limit
}

// VisitFunc receives rows in order; returning false stops the read.
type VisitFunc func(Row) bool

// TableStats are the approximate counts DescribeTable reports.
type TableStats struct {
	ItemCount int64
	SizeBytes int64
}

// Catalog stores table definitions.
type Catalog interface {
	// CreateTable stores a new table; ErrTableExists if the account already
	// has a table of that name. The create is arbitrated by a unique insert.
	CreateTable(ctx context.Context, t *Table) error
	// GetTable returns a table or ErrTableNotFound.
	GetTable(ctx context.Context, account, name string) (*Table, error)
	// ListTables returns an account's table names in ascending order.
	ListTables(ctx context.Context, account string) ([]string, error)
	// UpdateTable applies fn to the current entry atomically and stores the
	// result; an error from fn aborts and is returned unchanged.
	UpdateTable(ctx context.Context, account, name string, fn func(t *Table) error) (*Table, error)
	// DeleteTable removes the table's entry and its data (items, index rows).
	DeleteTable(ctx context.Context, account, name string) error
}

// Items stores and reads items.
type Items interface {
	// GetItem returns the item with this key, or nil.
	GetItem(ctx context.Context, t *Table, key Key, consistent bool) (item.Item, error)
	// Mutate runs fn against the current image and commits its result
	// atomically (see MutateFunc).
	Mutate(ctx context.Context, t *Table, key Key, fn MutateFunc) error
	// TransactWrite applies every mutation or none. A failing Fn aborts all;
	// the error returned is a *TransactionError naming each mutation's fate.
	TransactWrite(ctx context.Context, ms []Mutation) error
	// Query visits the rows of one partition in sort-key order.
	Query(ctx context.Context, t *Table, q *QueryRequest, visit VisitFunc) error
	// Scan visits the rows of a table or index in scan order.
	Scan(ctx context.Context, t *Table, s *ScanRequest, visit VisitFunc) error
	// Stats returns the item count and total size of a table.
	Stats(ctx context.Context, t *Table) (TableStats, error)
}

// IndexBuilder is implemented by a backend that builds and drops global
// secondary indexes online (UpdateTable GlobalSecondaryIndexUpdates). The
// lifecycle, driven by internal/workers:
//
//  1. Catalog.UpdateTable adds an Index with Status CREATING, Backfilling
//     true and a nil BackfillCursor. The backend creates its (empty) storage
//     in that same catalog change, and from then on every item write
//     maintains the index (IndexChanges includes it).
//  2. BackfillIndex is called repeatedly until it reports done.
//  3. For a delete, Catalog.UpdateTable sets the index's Status to
//     DELETING (writes stop maintaining it, reads reject it), then DropIndex
//     removes its rows and its catalog entry.
type IndexBuilder interface {
	// BackfillIndex copies the next page of at most limit items of the
	// table (account, name) into the index with ID indexID, in table-key
	// scan order after its BackfillCursor. The page is one write
	// transaction, serialised with item writes on those items: it derives
	// each row with IndexRowFor from the item's current image (so it never
	// overwrites a newer row written by a concurrent Mutate), writes it,
	// and stores the last table key copied as the index's BackfillCursor in
	// the catalog. When the page reaches the end of the table, the same
	// transaction sets the index ACTIVE, Backfilling false and the cursor
	// nil, and done is true. Calling it for an index that is not CREATING
	// and backfilling, or not there at all, does nothing and reports done.
	// Errors: ErrTableNotFound, ErrClosed, backend failures.
	BackfillIndex(ctx context.Context, account, name, indexID string, limit int) (done bool, err error)
	// DropIndex removes every row of the index with ID indexID and then
	// its catalog entry. It is idempotent: an index that is gone already
	// (or a table that is) is not an error. Only an index whose Status is
	// DELETING is dropped; for any other it does nothing.
	DropIndex(ctx context.Context, account, name, indexID string) error
}

// Optional interfaces for Streams and Time to Live (StreamStore, TTLStore,
// Leaser) are declared in streamrecords.go and ttlrows.go.

// Lifetimes of the records of a TokenStore.
const (
	// TokenTTL is how long a completed token is remembered, counted from
	// its completion. An older record counts as absent.
	TokenTTL = 10 * time.Minute
	// TokenLease is how long a running claim holds its token. A claim
	// older than this was abandoned (its process died or lost its
	// connection) and counts as absent: the next ClaimToken takes the token
	// over.
	TokenLease = time.Minute
)

// ErrTokenLost is TransactWriteToken's error when the claim it was to
// complete is no longer the token's current claim: it outlived TokenLease
// and was taken over, released or swept. Nothing was written.
var ErrTokenLost = errors.New("storage: token claim lost")

// ErrTransactionConflict is the error of a write, and a TransactionError's
// reason for a mutation, whose item another transaction held for too long
// (a backend whose transactions mark items, like Cassandra's, waits for
// them first). The engine reports it as DynamoDB's
// TransactionConflictException, or the TransactionConflict cancellation
// reason.
var ErrTransactionConflict = errors.New("storage: transaction is ongoing for the item")

// TokenRecord is the state of one live ClientRequestToken of an account.
type TokenRecord struct {
	// RequestHash identifies the parameters of the request that claimed
	// the token.
	RequestHash []byte
	// ClaimedAt is the now of the ClaimToken that took the token; it
	// identifies the claim for completion and release.
	ClaimedAt time.Time
	// Completed is set once the claim's transaction committed; until then
	// the claim is running.
	Completed   bool
	CompletedAt time.Time
	// Result is what a replay of the completed transaction reports, as
	// stored by TransactWriteToken or SetTokenResult; opaque to the backend.
	Result []byte
}

// TokenCompletion names the claim TransactWriteToken completes and what it
// stores.
type TokenCompletion struct {
	Account   string
	Token     string
	ClaimedAt time.Time // the claim's TokenRecord.ClaimedAt
	Now       time.Time // becomes CompletedAt
	// Result returns the record's Result. It is called inside the
	// transaction once every mutation's Fn has succeeded, so it may use
	// what they recorded; like a Fn it may run more than once.
	Result func() []byte
}

// TokenStore is implemented by a backend that keeps the ClientRequestToken
// claims of TransactWriteItems durably, shared by every process using the
// same data. The lifecycle, driven by the engine:
//
//  1. ClaimToken arbitrates the token with a unique insert of (account,
//     token): exactly one of any number of concurrent claimers, in any
//     processes, gets claimed; the others get the live record.
//  2. The claimer runs its transaction with TransactWriteToken, which
//     marks the record completed, with the replay result, in the same
//     transaction as the writes: a crash can never leave the writes
//     committed with the token still claimable, nor the token completed
//     without the writes.
//  3. A transaction that was cancelled or failed releases its claim with
//     ReleaseToken (a claim that is never released lapses after
//     TokenLease).
//
// Records expire TokenTTL after completion; expired records and lapsed
// claims count as absent everywhere, and SweepTokens deletes them.
type TokenStore interface {
	// ClaimToken claims token of account for a request whose parameters
	// hash to requestHash, at now (the claim's ClaimedAt). claimed is true
	// when there was no live record (none, an expired one or a lapsed
	// claim): the caller owns the token and must complete it with
	// TransactWriteToken or release it. Otherwise existing is the live
	// record, running or completed, whatever its hash.
	ClaimToken(ctx context.Context, account, token string, requestHash []byte, now time.Time) (claimed bool, existing *TokenRecord, err error)
	// TransactWriteToken is TransactWrite that also completes the claim
	// tok in the same transaction. Errors: those of TransactWrite, and
	// ErrTokenLost, when the claim is not the token's running claim any
	// more (nothing is written then).
	TransactWriteToken(ctx context.Context, ms []Mutation, tok *TokenCompletion) error
	// ReleaseToken deletes the claim of token taken at claimedAt if it is
	// still running. A completed record, another claim and a missing one
	// are left as they are, so it is safe after any outcome.
	ReleaseToken(ctx context.Context, account, token string, claimedAt time.Time) error
	// SetTokenResult replaces the Result of the completed record of the
	// claim taken at claimedAt (for results only known after the commit);
	// anything else is left as it is.
	SetTokenResult(ctx context.Context, account, token string, claimedAt time.Time, result []byte) error
	// SweepTokens deletes the records that are dead at now (completed
	// TokenTTL or more before now, or claimed TokenLease or more before now
	// and still running) and returns how many it deleted.
	SweepTokens(ctx context.Context, now time.Time) (int64, error)
}

// IndexStatser is implemented by a backend that reports per-index counts
// for DescribeTable's ItemCount and IndexSizeBytes.
type IndexStatser interface {
	// IndexStats returns, by index ID, the number of rows of each index of
	// t and their total size (item.Size of each projected row image).
	IndexStats(ctx context.Context, t *Table) (map[string]TableStats, error)
}

// CollectionSizer is implemented by a backend that can size an item
// collection: the items of a table that share a partition key, with their
// local secondary index rows. The engine uses it for
// ReturnItemCollectionMetrics and the item collection size limit of tables
// with local secondary indexes.
type CollectionSizer interface {
	// CollectionSize returns the total stored size (item.Size) of the
	// items of t whose encoded partition key is pk plus that of their rows
	// in t's local secondary indexes.
	CollectionSize(ctx context.Context, t *Table, pk []byte) (int64, error)
}

// Backend is a complete storage backend.
type Backend interface {
	Catalog
	Items
	// Close flushes and releases everything; pending writes finish first.
	Close() error
}

// TransactionError reports why a TransactWrite was cancelled: Reasons[i] is
// the error of mutation i (nil when that mutation was fine).
type TransactionError struct {
	Reasons []error
}

func (e *TransactionError) Error() string { return "storage: transaction cancelled" }

// FeatureGaps is implemented by a backend that does not yet provide part of
// the contract. PendingFeature returns why the named feature (e.g.
// "transactions") is pending, or "" when the backend provides it. The
// contract suite reports the feature's tests as pending (skipped with a
// "pending:" reason) rather than failing or passing them.
type FeatureGaps interface {
	PendingFeature(feature string) string
}

// Pending returns why b lacks feature, or "" when b provides it.
func Pending(b any, feature string) string {
	if g, ok := b.(FeatureGaps); ok {
		return g.PendingFeature(feature)
	}
	return ""
}
