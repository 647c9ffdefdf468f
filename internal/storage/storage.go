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
	"errors"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// DefaultAccount is the 12-digit account ID of requests that name no
// account (the account DynamoDB Local and unsigned requests use).
const DefaultAccount = "000000000000"

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

// FillingUntil is the ActiveAt of a table a job fills (a restore from a
// backup or to a point in time, an import: internal/jobs): it stays
// CREATING until the job sets it ACTIVE.
var FillingUntil = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// Filling reports whether t is a table a job is filling: Status CREATING
// with ActiveAt FillingUntil. Only that job writes its items: the API
// answers every item read and write of a table CREATING before its
// ActiveAt with ResourceNotFoundException (internal/api, lookup with
// lookupData; DynamoDB's error for a table whose status is not ACTIVE:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#API_PutItem_Errors),
// and no worker writes to it (TTL needs UpdateTimeToLive, which refuses a
// CREATING table). A table
// CreateTable made CREATING for a status delay is not filling: its entry
// keeps Status CREATING after its ActiveAt, when it takes writes.
func (t *Table) Filling() bool {
	return t.Status == StatusCreating && t.ActiveAt.Equal(FillingUntil)
}

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
	// OnDemand and Warm are a GSI's OnDemandThroughput and requested
	// WarmThroughput; nil means not set.
	OnDemand *OnDemandThroughput `json:",omitempty"`
	Warm     *WarmThroughput     `json:",omitempty"`
	// ActiveAt, when set, is the earliest time a GSI created or deleted by
	// UpdateTable leaves CREATING or DELETING, however soon its build or
	// drop is done: the server's status delay (--status-delay, or the
	// realism setting status-delay). Zero means as soon as it is done.
	ActiveAt time.Time `json:",omitzero"`
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
	// BackfillOrder names the order BackfillCursor is a position in, for a
	// backend whose order differs from scan order (TTLStore.BackfillTTL):
	// empty for scan order, which is also what catalogs written before the
	// field existed hold. Whoever copies a cursor copies its order with it.
	BackfillOrder string `json:",omitempty"`
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
	// PointInTimeRecovery is the table's continuous backups setting
	// (UpdateContinuousBackups); nil means disabled.
	PointInTimeRecovery *PointInTimeRecovery `json:",omitempty"`
	// HistoryCaptures are the snapshot reads in progress that need the
	// table's change history although point in time recovery may be off
	// (backends whose snapshot read is rebuilt from it, such as
	// Cassandra): capture ID -> when it started. See HistoryEnabled.
	HistoryCaptures map[string]time.Time `json:",omitempty"`
	// Restore is set on a table created by a restore (RestoreSummary).
	Restore *RestoreSummary `json:",omitempty"`
	// ContributorInsights holds the contributor insights settings of the
	// table (key "") and of its global secondary indexes (key: index name).
	ContributorInsights map[string]ContributorInsights `json:",omitempty"`
	// KinesisDestinations are the Kinesis streaming destinations recorded
	// by EnableKinesisStreamingDestination, in the order enabled.
	KinesisDestinations []KinesisDestination `json:",omitempty"`
	// OnDemand is the table's OnDemandThroughput; nil means not set.
	OnDemand *OnDemandThroughput `json:",omitempty"`
	// Warm is the table's requested WarmThroughput; nil means not set.
	Warm *WarmThroughput `json:",omitempty"`
	// ResourcePolicies are the resource-based policies attached to the
	// table (key "") and to its streams (key: the stream label), stored
	// with the entry so that they are deleted with the table.
	ResourcePolicies map[string]ResourcePolicy `json:",omitempty"`
	// LoadedAt is when this copy was read from the catalog: a backend that
	// sets it takes the time before issuing the read, so the copy reflects
	// every catalog change committed before LoadedAt. Zero if unknown. It
	// is not part of the entry (never stored) and is kept in memory only;
	// the Cassandra backend uses it to tell how stale a caller's cached
	// entry may be (docs/adr/0003, Online index builds).
	LoadedAt time.Time `json:"-"`
}

// ResourcePolicy is a resource-based policy document as it was put
// (PutResourcePolicy, CreateTable's ResourcePolicy) and its revision.
type ResourcePolicy struct {
	Document   string
	RevisionID string
}

// ContributorInsights is a stored contributor insights setting
// (UpdateContributorInsights).
type ContributorInsights struct {
	Status    string // ENABLED or DISABLED
	Mode      string `json:",omitempty"` // ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS
	UpdatedAt time.Time
}

// KinesisDestination is a Kinesis data stream a table was asked to stream
// to (EnableKinesisStreamingDestination).
type KinesisDestination struct {
	StreamArn         string
	Status            string // a DestinationStatus
	StatusDescription string `json:",omitempty"`
	Precision         string `json:",omitempty"` // ApproximateCreationDateTimePrecision
}

// OnDemandThroughput is the maximum read and write request units of an
// on-demand table or index; 0 or -1 means no maximum.
type OnDemandThroughput struct {
	MaxReadRequestUnits  int64 `json:",omitempty"`
	MaxWriteRequestUnits int64 `json:",omitempty"`
}

// WarmThroughput is the requested warm throughput of a table or index, in
// units per second; 0 means not requested.
type WarmThroughput struct {
	ReadUnitsPerSecond  int64 `json:",omitempty"`
	WriteUnitsPerSecond int64 `json:",omitempty"`
}

// PointInTimeRecovery is an enabled continuous backups setting.
type PointInTimeRecovery struct {
	RecoveryPeriodInDays int
	// EnabledAt is when it was last enabled, or the start of the
	// recovery window when RecoveryPeriodInDays last changed: the change
	// history is complete from then on.
	EnabledAt time.Time
}

// RestoreSummary records where a restored table came from. The table stays
// CREATING while InProgress.
type RestoreSummary struct {
	SourceBackupArn string `json:",omitempty"`
	SourceTableArn  string `json:",omitempty"`
	RestoreDateTime time.Time
	InProgress      bool
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
	// Raw asks for the rows in their stored encoding (see Row.Raw).
	Raw bool
}

// ScanRequest reads a table or index in partition-hash order.
type ScanRequest struct {
	Index          string
	Segment        int
	TotalSegments  int // 0 or 1 means the whole table
	ExclusiveStart *Position
	Consistent     bool
	// Raw asks for the rows in their stored encoding (see Row.Raw).
	Raw bool
}

// Position is where an item sits in a table or index: its table key and, on
// an index, its index key.
type Position struct {
	Key      Key
	IndexKey Key
}

// Row is one item produced by Query or Scan.
//
// A read with Raw set hands over the item as stored instead: Raw holds
// item.MarshalItem's encoding, undecoded, and Item is nil, so that a reader
// can transcode it (item.AppendStoredJSON) or decode only the attributes it
// needs (item.UnmarshalAttributes), the key included: such a row carries no
// position (Pos is zero), which spares the backends reading it. Raw may be
// the driver's buffer: it is valid only until the visit call returns, and
// the visitor must not modify it.
type Row struct {
	Pos  Position
	Item item.Item
	Raw  []byte
	Size int // stored size, for the 1 MB page limit
}

// VisitFunc receives rows in order; returning false stops the read.
type VisitFunc func(Row) bool

// TableStats are the approximate counts DescribeTable reports.
type TableStats struct {
	ItemCount int64
	SizeBytes int64
}

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

// TransactionError reports why a TransactWrite was cancelled: Reasons[i] is
// the error of mutation i (nil when that mutation was fine).
type TransactionError struct {
	Reasons []error
}

func (e *TransactionError) Error() string { return "storage: transaction cancelled" }
