package admin

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// loadBatch is how many items one write transaction of a restore loads.
const loadBatch = 256

// errNoTable is a table named by a request that namespace does not hold.
var errNoTable = errors.New("admin: table not found")

// freshCopy derives the catalog entry a restore or truncate creates from
// the saved entry src: the same definition (keys, indexes, billing, TTL,
// stream and point in time recovery settings, tags, CreationDateTime) with
// new IDs, ACTIVE, and without the stream and change history while it is
// loaded (setLive puts them back), so that loading writes no stream
// records. Indexes being built or dropped when src was read are left out,
// as a backup's restore leaves them out.
func freshCopy(src *storage.Table) *storage.Table {
	t := *src
	t.ID = uuid.NewString()
	t.Status, t.ActiveAt, t.Version = storage.StatusActive, timeZero, 0
	t.Stream, t.PointInTimeRecovery = storage.StreamSpecification{}, nil
	t.Indexes = nil
	for _, ix := range src.Indexes {
		if ix.Status == storage.StatusDeleting || (ix.Status == storage.StatusCreating && ix.Backfilling) {
			continue
		}
		ix.ID, ix.Backfilling, ix.BackfillCursor = uuid.NewString(), false, nil
		if ix.Status != "" {
			ix.Status = storage.StatusActive
		}
		t.Indexes = append(t.Indexes, ix)
	}
	switch t.TTL.Status {
	case storage.TTLEnabling:
		t.TTL.Status = storage.TTLEnabled
	case storage.TTLDisabling:
		t.TTL = storage.TimeToLive{Status: storage.TTLDisabled, Generation: t.TTL.Generation}
	}
	t.TTL.BackfillCursor, t.TTL.BackfillOrder = nil, ""
	return &t
}

// recreate replaces table src.Name of namespace ns (when it exists) by an
// empty copy of src, loads the items next yields (nil when done), and
// then switches the stream and point in time recovery settings of src
// back on. The table keeps its name, stream label and definition.
func recreate(ctx context.Context, store storage.Backend, ns string, src *storage.Table, next func() (item.Item, error)) (*storage.Table, error) {
	if err := store.DeleteTable(ctx, ns, src.Name); err != nil && !errors.Is(err, storage.ErrTableNotFound) {
		return nil, err
	}
	t := freshCopy(src)
	t.Account = ns
	if err := store.CreateTable(ctx, t); err != nil {
		return nil, err
	}
	if err := load(ctx, store, t, next); err != nil {
		return nil, err
	}
	return store.UpdateTable(ctx, ns, t.Name, func(cur *storage.Table) error {
		cur.Stream, cur.LatestStreamLabel, cur.PointInTimeRecovery = src.Stream, src.LatestStreamLabel, src.PointInTimeRecovery
		return nil
	})
}

// load writes the items next yields into t, loadBatch per transaction.
func load(ctx context.Context, store storage.Backend, t *storage.Table, next func() (item.Item, error)) error {
	if next == nil {
		return nil
	}
	batch := make([]storage.Mutation, 0, loadBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := store.TransactWrite(ctx, batch)
		batch = batch[:0]
		return err
	}
	for {
		it, err := next()
		if err != nil {
			return err
		}
		if it == nil {
			return flush()
		}
		key, err := storage.ItemKey(t, it)
		if err != nil {
			return err
		}
		batch = append(batch, storage.Mutation{Table: t, Key: key, Fn: func(item.Item) (item.Item, error) { return it, nil }})
		if len(batch) == loadBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// scanAll visits every item of t in scan order.
func scanAll(ctx context.Context, store storage.Backend, t *storage.Table, visit func(item.Item) error) error {
	var verr error
	err := store.Scan(ctx, t, &storage.ScanRequest{Consistent: true}, func(r storage.Row) bool {
		verr = visit(r.Item)
		return verr == nil
	})
	if verr != nil {
		return verr
	}
	return err
}

// Truncate removes every item of table name of namespace ns and keeps its
// definition: keys, indexes, billing, TTL, stream settings (and stream
// ARN), tags and CreationDateTime. The stream's records and the change
// history of point in time recovery go with the items. Errors: errNoTable.
func Truncate(ctx context.Context, store storage.Backend, ns, name string) (*storage.Table, error) {
	src, err := store.GetTable(ctx, ns, name)
	if errors.Is(err, storage.ErrTableNotFound) {
		return nil, errNoTable
	}
	if err != nil {
		return nil, err
	}
	return recreate(ctx, store, ns, src, nil)
}
