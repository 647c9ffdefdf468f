package storage

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// The contract of a storage backend, in one place.
//
// Backend is what every backend implements: the union of the named
// interfaces below, each with the atomicity duty it carries. Two more
// interfaces depend on how a backend is deployed and stay optional:
// Leaser (a backend that several processes share) and Recoverer (a
// backend whose writes commit the item before its derived rows). The
// contract suite, internal/storage/storagetest, checks the required
// interfaces (and SnapshotScanner where a backend has it); Leaser and
// Recoverer are tested in the backends that have them. A new backend runs
// the suite from its package tests (see docs/adr/0000). One more
// optional interface is an optimization, not a capability: SnapshotGetter
// (snapshot.go) reads several items in one snapshot where a backend can do
// so without locks; without it the engine reads through TransactWrite,
// with the same result.

// Backend is a complete storage backend.
type Backend interface {
	Catalog
	Items
	Transactions
	IndexBuilder
	Statistics
	StreamStore
	TTLStore
	TokenStore
	JobStore
	// Close flushes and releases everything; pending writes finish first.
	// Every method called afterwards returns ErrClosed.
	Close() error
}

// Catalog stores table definitions. Each method is atomic on one entry:
// two concurrent changes of a table never lose one another.
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
	// DeleteTable removes the table's entry and its data (items, index
	// rows, stream records, expiry rows).
	DeleteTable(ctx context.Context, account, name string) error
	// ListNamespaces returns the namespaces (account and region, see
	// Namespace) holding at least one table, so that background workers
	// look after every account and region. Reserved namespaces (starting
	// with '_') are included; callers skip what they do not own.
	ListNamespaces(ctx context.Context) ([]string, error)
}

// Items stores and reads items. A Mutate commits, as one unit, the
// condition check (fn against the locked or version-fenced pre-image),
// the new image, its index rows (IndexChanges), its stream record
// (StreamStore) and its expiry row (TTLStore).
type Items interface {
	// GetItem returns the item with this key, or nil.
	GetItem(ctx context.Context, t *Table, key Key, consistent bool) (item.Item, error)
	// Mutate runs fn against the current image and commits its result
	// atomically (see MutateFunc).
	Mutate(ctx context.Context, t *Table, key Key, fn MutateFunc) error
	// Query visits the rows of one partition in sort-key order.
	Query(ctx context.Context, t *Table, q *QueryRequest, visit VisitFunc) error
	// Scan visits the rows of a table or index in scan order.
	Scan(ctx context.Context, t *Table, s *ScanRequest, visit VisitFunc) error
}

// Transactions writes several items at once (TransactWriteItems): every
// mutation with all its derived rows, as Mutate writes them, or none.
type Transactions interface {
	// TransactWrite applies every mutation or none. A failing Fn aborts all;
	// the error returned is a *TransactionError naming each mutation's fate.
	TransactWrite(ctx context.Context, ms []Mutation) error
}

// Statistics reports the sizes DescribeTable and ItemCollectionMetrics
// show. They need not be read in one snapshot with any write.
type Statistics interface {
	// Stats returns the item count and total size of a table.
	Stats(ctx context.Context, t *Table) (TableStats, error)
	// IndexStats returns, by index ID, the number of rows of each index of
	// t and their total size (item.Size of each projected row image).
	IndexStats(ctx context.Context, t *Table) (map[string]TableStats, error)
	// CollectionSize returns the total stored size (item.Size) of the
	// items of t whose encoded partition key is pk plus that of their rows
	// in t's local secondary indexes (an item collection: used for
	// ReturnItemCollectionMetrics and the item collection size limit).
	CollectionSize(ctx context.Context, t *Table, pk []byte) (int64, error)
}

// IndexBuilder builds and drops global secondary indexes online
// (UpdateTable GlobalSecondaryIndexUpdates). The lifecycle, driven by
// internal/workers:
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

// StreamStore records DynamoDB Streams. In every Mutate and TransactWrite
// the backend appends StreamRecordFor(t, old, new, UserIdentityFrom(ctx),
// now) for each changed item of a table whose stream is enabled (its
// committed catalog entry), tagged with (t.ID, t.LatestStreamLabel), in
// the write's own transaction. Sequence numbers are positive and increase
// with commit order within a stream (readers never see a smaller number
// appear after a larger one). DeleteTable removes the table's records.
type StreamStore interface {
	// ReadStream returns up to limit records of the stream (tableID,
	// label) whose sequence number is greater than after, in order.
	ReadStream(ctx context.Context, tableID, label string, after uint64, limit int) ([]*StreamRecord, error)
	// StreamBounds reports the records the stream (tableID, label) keeps.
	StreamBounds(ctx context.Context, tableID, label string) (StreamBounds, error)
	// TrimStreams removes the records of every stream created before
	// cutoff and returns how many it removed. It never removes a table's
	// change history (label HistoryLabel), which TrimHistory prunes.
	TrimStreams(ctx context.Context, cutoff time.Time) (int64, error)
	// TrimHistory removes the change history records (label HistoryLabel)
	// of table tableID created before cutoff and returns how many it
	// removed, raising the stream's trim mark like TrimStreams.
	TrimHistory(ctx context.Context, tableID string, cutoff time.Time) (int64, error)
}

// TTLStore keeps expiry rows. In every Mutate and TransactWrite of a table
// whose TTL is maintained (its committed catalog entry) the backend
// applies TTLChanges in the write's own transaction. DeleteTable removes
// the table's rows. The TTL lifecycle, driven by internal/workers:
//
//  1. Enable: Catalog.UpdateTable sets TTL ENABLING with a new Generation
//     and a nil BackfillCursor; BackfillTTL is then called until done.
//  2. Disable: Catalog.UpdateTable sets TTL DISABLING; DrainTTL is then
//     called until done.
//
// Each page is fenced on the generation: a page for a generation that is
// no longer current stores nothing and reports done. On SQLite and
// PostgreSQL a page is one transaction serialised with the item writes on
// its items; on Cassandra it writes each row stamped with the version of
// the image it read, so a concurrent write's own row change (a higher
// version) wins in either order, and stores its cursor last, fenced on
// the entry it read.
type TTLStore interface {
	// BackfillTTL registers the next page of at most limit items of table
	// (account, name), in the backend's backfill order after
	// TTL.BackfillCursor, when the TTL is ENABLING with generation gen: it
	// writes each item's row (derived from its committed image, as
	// TTLRowFor would with the TTL maintained) and stores the last key
	// read as the cursor. When the page reaches the end of the table the
	// same transaction sets the TTL ENABLED with a nil cursor, and done is
	// true. Errors (done is then false): ErrTableNotFound, ErrClosed,
	// backend failures.
	//
	// The backfill order is the backend's own choice (docs/adr/0018g): a
	// total order of every possible key of the table, fixed by the keys
	// alone, so that a cursor whose item was deleted since is still a
	// position. It need not be scan order: SQLite and PostgreSQL use scan
	// order; Cassandra uses its token order and marks its cursors with
	// TTL.BackfillOrder, restarting from the beginning after a cursor of
	// another order. A backfill resumes after the cursor in that order: on
	// a quiet table, pages run from any cursor register every item after
	// it, none at or before it, and each page's items are disjoint from
	// the other pages'. A page redone after a failure writes the same rows
	// again. Items written while the TTL is ENABLING maintain their own
	// rows, so when done is true every item of the table has its row
	// whatever was written during the backfill. Nothing else may rely on
	// the order: the expiry pass reads expiry rows by (ExpireAt, key), and
	// BackfillIndex keeps scan order.
	BackfillTTL(ctx context.Context, account, name string, gen int64, limit int) (done bool, err error)
	// DrainTTL removes at most limit expiry rows of table (account, name)
	// when its TTL is DISABLING with generation gen; when none remain the
	// same transaction sets the TTL DISABLED, with no attribute name, and
	// done is true.
	DrainTTL(ctx context.Context, account, name string, gen int64, limit int) (done bool, err error)
	// ExpiredRows returns up to limit expiry rows of t with ExpireAt in
	// (from, to], in (ExpireAt, key) order.
	ExpiredRows(ctx context.Context, t *Table, from, to int64, limit int) ([]TTLRow, error)
}

// TokenStore keeps the ClientRequestToken claims of TransactWriteItems
// durably, shared by every process using the same data. The lifecycle,
// driven by the engine:
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

// Leaser is implemented by a backend that several processes may share: a
// lease gives one of them a background job (such as the expiry of one
// table) at a time. Without it (a backend that one process owns, like
// SQLite's locked data directory) every job belongs to the one process.
// Optional: it depends on deployment.
type Leaser interface {
	// AcquireLease takes or renews the lease name for owner until ttl from
	// now; ok is false while another owner holds an unexpired lease.
	AcquireLease(ctx context.Context, name, owner string, ttl time.Duration) (ok bool, err error)
}

// Recoverer is implemented by a backend whose item writes commit the item
// first and write their derived rows (index rows, stream records, expiry
// rows) afterwards, so that a process that stops between the two leaves
// the derived rows behind. Such a backend records each write's intent
// durably before committing it, and Recover completes the intents of the
// processes that are gone. Optional: a backend that commits an item with
// its derived rows in one transaction has nothing to recover.
type Recoverer interface {
	// Recover finishes the writes of frontends that stopped between an
	// item's commit and its derived rows; it returns how many writes it
	// repaired. Repairs are idempotent, so running it again, or in several
	// processes at once, is harmless. It returns ErrClosed once the backend
	// is closed, and a storage error when a pass could not complete (the
	// next pass resumes the unfinished work).
	Recover(ctx context.Context) (int, error)
}

// WriterSettler is implemented by a backend whose item writes can be left
// half done by a process that stopped (a Recoverer whose recovery waits
// for the stopped process's liveness lease to lapse). A job resuming a
// fill calls it before its first write, so that what the stopped run
// wrote is complete before the resumed run writes over it (a removed index
// row of a write that changed an index key is deleted by the replay only;
// docs/adr/0018j-cassandra-fills-rewrite-index-rows.md). Optional: a
// backend that commits an item with its derived rows in one transaction
// (SQLite, PostgreSQL) has nothing to wait for.
type WriterSettler interface {
	// SettleWriters returns nil once every other writing process listed
	// when it was called has either shown that it is alive (renewed its
	// liveness lease after the call began) or had its unfinished writes
	// completed by recovery. It runs recovery passes itself while it
	// waits. It waits at most a bound set by the backend (for Cassandra,
	// twice Options.FrontendLease plus two minutes), then returns an error
	// naming the processes still pending; ErrClosed once the backend is
	// closed, ctx's error when ctx ends.
	SettleWriters(ctx context.Context) error
}
