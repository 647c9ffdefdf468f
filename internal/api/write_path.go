package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// The write path: every single-item write (PutItem, UpdateItem, DeleteItem,
// BatchWriteItem's requests) goes through Engine.mutate, which applies the
// item collection size limit of tables with local secondary indexes around
// the backend's atomic read-modify-write.

// DefaultItemCollectionLimit is DynamoDB's item collection size limit, 10 GB.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections.SizeLimit
const DefaultItemCollectionLimit = 10 << 30

func hasLSI(t *storage.Table) bool {
	for i := range t.Indexes {
		if !t.Indexes[i].Global {
			return true
		}
	}
	return false
}

// collectionBytes is what one item adds to its item collection: its own
// size and that of its local secondary index rows.
func collectionBytes(t *storage.Table, it item.Item) int64 {
	if it == nil {
		return 0
	}
	n := int64(item.Size(it))
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if ix.Global || !ix.Maintained() {
			continue
		}
		if r := storage.IndexRowFor(t, ix, it); r != nil {
			n += int64(item.Size(r.Item))
		}
	}
	return n
}

// mutate is store.Mutate through the engine's layers: realism's effects
// (realisticMutate, only with realism on), metering (meteredMutate, only
// when table-use or stream hooks are set) and the item collection size
// limit (limitedMutate).
func (e *Engine) mutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	if e.realism != nil {
		return e.realisticMutate(ctx, t, key, fn)
	}
	if e.cfg.OnTableUse != nil || e.cfg.OnStreamRecords != nil {
		return e.meteredMutate(ctx, t, key, fn)
	}
	return e.limitedMutate(ctx, t, key, fn)
}

// limitedMutate is mutate without the table-use report: on a table with
// local secondary indexes, a write that grows a collection beyond the limit
// fails with ItemCollectionSizeLimitExceededException. The size is read
// before the write, so writers racing on one collection may pass the limit
// by their own sizes together (documented in
// docs/adr/0004-secondary-indexes.md).
func (e *Engine) limitedMutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	if !hasLSI(t) {
		return e.store.Mutate(ctx, t, key, fn)
	}
	pre, err := e.store.CollectionSize(ctx, t, key.PK)
	if err != nil {
		return err
	}
	limit := e.cfg.ItemCollectionLimit
	return e.store.Mutate(ctx, t, key, func(old item.Item) (item.Item, error) {
		nw, err := fn(old)
		if err != nil || nw == nil {
			return nw, err
		}
		if grow := collectionBytes(t, nw) - collectionBytes(t, old); grow > 0 && pre+grow > limit {
			// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html
			// (ItemCollectionSizeLimitExceededException: "Collection size exceeded.")
			return nil, ddberr.ItemCollectionSizeLimitExceeded("Collection size exceeded.")
		}
		return nw, nil
	})
}

// sizeCollection fills in the size of the item collection m reports, after
// the write, from the backend.
func (e *Engine) sizeCollection(ctx context.Context, t *storage.Table, m *itemCollectionMetrics) error {
	if m == nil {
		return nil
	}
	ks := schemaOf(t, t.KeySchema)
	v, ok := m.key[ks.hash]
	if !ok {
		return nil
	}
	n, err := e.store.CollectionSize(ctx, t, item.EncodeKey(v))
	if err != nil {
		return err
	}
	m.size = n
	return nil
}
