package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Table use reported to Config.OnTableUse, for the per-table metrics
// (docs/operations.md): capacity units as DynamoDB counts them, whether or
// not the request asked for ReturnConsumedCapacity, items and item bytes.
// Covered: GetItem, Query, Scan (reads) and every write through
// Engine.mutate (PutItem, UpdateItem, DeleteItem, BatchWriteItem).

// Kinds of table use.
const (
	useRead  = "read"
	useWrite = "write"
)

// meterRead reports a read of items items of bytes bytes costing units.
func (e *Engine) meterRead(t *storage.Table, items, bytes int, units float64) {
	if e.cfg.OnTableUse != nil {
		e.cfg.OnTableUse(t.Name, useRead, units, items, int64(bytes))
	}
}

// meteredMutate is mutate reporting the write it applied: the units
// DynamoDB charges for it (the larger image, and the index entries it puts
// or deletes) and the new image's size.
func (e *Engine) meteredMutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	var old, nw item.Item
	err := e.limitedMutate(ctx, t, key, func(o item.Item) (item.Item, error) {
		n, err := fn(o)
		old, nw = o, n
		return n, err
	})
	if err != nil {
		return err
	}
	c := &consumed{table: t.Name}
	c.chargeWrite(t, old, nw)
	size := 0
	if nw != nil {
		size = item.Size(nw)
	}
	e.cfg.OnTableUse(t.Name, useWrite, c.total(), 1, int64(size))
	return nil
}
