package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/extenddb/extenddb/internal/storage"
)

var _ storage.SnapshotScanner = (*Backend)(nil)

// ScanSnapshot implements storage.SnapshotScanner: the chunks of a Scan
// of t, all read in one REPEATABLE READ, READ ONLY transaction, whose
// snapshot is taken at its first statement and kept to its end, so every
// chunk sees the same committed state however long the visitor takes.
// Writes go on meanwhile: a read-only transaction takes no row locks.
// https://www.postgresql.org/docs/current/transaction-iso.html
func (b *Backend) ScanSnapshot(ctx context.Context, t *storage.Table, visit storage.VisitFunc) error {
	src, err := b.source(t, "")
	if err != nil {
		return err
	}
	tx, err := b.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return mapErr(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	build, _ := src.segmentChunks(&storage.ScanRequest{}) // the whole table: no error
	if err := visitChunksOn(ctx, tx, build, nil, false, false, visit); err != nil {
		return err
	}
	return mapErr(tx.Commit(ctx))
}
