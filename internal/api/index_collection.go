package api

import (
	"context"
	"math"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Item collections of tables with local secondary indexes: the items that
// share a partition key, with their local index rows. DynamoDB limits one
// collection to 10 GB and reports its size in ItemCollectionMetrics.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html

// defaultItemCollectionLimit is DynamoDB's item collection size limit.
const defaultItemCollectionLimit = 10 << 30

// itemCollectionLimit is the limit in force; tests lower it with
// SetItemCollectionLimit.
var itemCollectionLimit atomic.Int64

// The environment variable EXTENDDB_ITEM_COLLECTION_LIMIT_BYTES, when set to
// a positive integer, lowers the limit for a whole process: end-to-end tests
// use it, since they cannot call SetItemCollectionLimit in the server.
func init() {
	itemCollectionLimit.Store(defaultItemCollectionLimit)
	if n, err := strconv.ParseInt(os.Getenv("EXTENDDB_ITEM_COLLECTION_LIMIT_BYTES"), 10, 64); err == nil && n > 0 {
		itemCollectionLimit.Store(n)
	}
}

// SetItemCollectionLimit sets the item collection size limit in bytes (a
// value <= 0 restores DynamoDB's 10 GB) and returns the previous limit. It
// exists for tests, which cannot write 10 GB.
func SetItemCollectionLimit(n int64) int64 {
	if n <= 0 {
		n = defaultItemCollectionLimit
	}
	return itemCollectionLimit.Swap(n)
}

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

// mutate is store.Mutate with the item collection size limit: on a table
// with local secondary indexes, a write that grows a collection beyond the
// limit fails with ItemCollectionSizeLimitExceededException. The size is read
// before the write, so writers racing on one collection may pass the limit
// by their own sizes together (documented in
// docs/adr/0004-secondary-indexes.md).
func (e *Engine) mutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	if !hasLSI(t) {
		return e.store.Mutate(ctx, t, key, fn)
	}
	pre, err := e.store.CollectionSize(ctx, t, key.PK)
	if err != nil {
		return err
	}
	limit := itemCollectionLimit.Load()
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

// appendSizeEstimate appends SizeEstimateRangeGB for a collection of n
// bytes: the whole gigabytes below and above it, as DynamoDB reports for
// small collections ([0.0,1.0]).
func appendSizeEstimate(dst []byte, n int64) []byte {
	lo := math.Floor(float64(n) / (1 << 30))
	dst = append(dst, '[')
	dst = strconv.AppendFloat(dst, lo, 'f', 1, 64)
	dst = append(dst, ',')
	dst = strconv.AppendFloat(dst, lo+1, 'f', 1, 64)
	return append(dst, ']')
}
