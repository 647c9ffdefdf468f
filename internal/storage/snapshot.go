package storage

import (
	"context"

	"github.com/extenddb/extenddb/internal/item"
)

// ItemRef names one item: a table and a primary key.
type ItemRef struct {
	Table *Table
	Key   Key
}

// SnapshotGetter is implemented by backends that can read several items as
// of one instant without taking write locks (SQLite: one read transaction
// on a reader connection, which WAL mode gives a consistent snapshot).
// TransactGetItems uses it when the backend has it, and otherwise reads
// through Items.TransactWrite with functions that change nothing.
type SnapshotGetter interface {
	// GetItemsSnapshot returns the items of refs (nil for a missing one),
	// in order, all as of the same committed state. Errors: wrapped
	// ErrTableNotFound for a vanished table, the backend's errors.
	GetItemsSnapshot(ctx context.Context, refs []ItemRef) ([]item.Item, error)
}

// SnapshotScanner is implemented by backends that can read a whole table
// as of one instant, however long the read takes and whatever is written
// meanwhile (SQLite: one statement on a reader connection, in WAL mode one
// read transaction; PostgreSQL: one REPEATABLE READ, READ ONLY
// transaction; Cassandra: a scan corrected by the change history it
// captures meanwhile, docs/adr/0013g). CreateBackup uses it when the
// backend has it, so that a backup is the table at one instant; a backend
// without it gives a page-by-page Scan.
type SnapshotScanner interface {
	// ScanSnapshot visits every item of t, in the order of Scan, all as of
	// the same committed state, until visit returns false. Errors: wrapped
	// ErrTableNotFound for a vanished table, ErrClosed, the backend's
	// errors.
	ScanSnapshot(ctx context.Context, t *Table, visit VisitFunc) error
}
