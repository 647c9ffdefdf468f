package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

var _ storage.SnapshotGetter = (*Backend)(nil)

// GetItemsSnapshot implements storage.SnapshotGetter: every item is read in
// one read transaction on a reader connection, so the writer is never
// waited for and the reads see one committed state (WAL mode fixes a read
// transaction's snapshot at its first read).
func (b *Backend) GetItemsSnapshot(ctx context.Context, refs []storage.ItemRef) ([]item.Item, error) {
	if b.isClosed() {
		return nil, storage.ErrClosed
	}
	tx, err := b.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, mapErr(err)
	}
	defer tx.Rollback()
	out := make([]item.Item, len(refs))
	for i, ref := range refs {
		// The statement GetItem prepared on this connection, if any, is
		// reused inside the transaction rather than prepared again.
		s, err := b.getItemStmt(ctx, ref.Table.ID)
		if err != nil {
			return nil, err
		}
		var blob []byte
		err = tx.StmtContext(ctx, s).QueryRowContext(ctx,
			int64(item.PartitionHash(ref.Key.PK)), ref.Key.PK, storage.StoredSK(ref.Key.SK)).Scan(&blob)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, mapErr(err)
		}
		if out[i], err = decodeItem(blob); err != nil {
			return nil, err
		}
	}
	return out, mapErr(tx.Commit())
}

var _ storage.SnapshotScanner = (*Backend)(nil)

// ScanSnapshot implements storage.SnapshotScanner: a Scan is one statement
// on a reader connection, whose read transaction (WAL mode) sees one
// committed state from its first row to its last.
func (b *Backend) ScanSnapshot(ctx context.Context, t *storage.Table, visit storage.VisitFunc) error {
	return b.Scan(ctx, t, &storage.ScanRequest{Consistent: true}, visit)
}
