package api

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Table use reported to Config.OnTableUse, for the per-table metrics
// (docs/operations.md): capacity units as DynamoDB counts them, whether or
// not the request asked for ReturnConsumedCapacity, items and item bytes.
// Covered: GetItem, BatchGetItem, TransactGetItems, Query, Scan (reads),
// every write through Engine.mutate (PutItem, UpdateItem, DeleteItem,
// BatchWriteItem) and TransactWriteItems (writes; a ConditionCheck counts
// its capacity but no item). PartiQL statements run as these operations and
// are counted by them.

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

// tableUse sums one table's reads of a request.
type tableUse struct {
	units        float64
	items, bytes int
}

// tableUses sums a request's use per table, keeping the order in which
// the tables first appear.
type tableUses struct {
	order []*storage.Table
	by    map[string]*tableUse
}

// of returns t's sum, adding t on its first use.
func (us *tableUses) of(t *storage.Table) *tableUse {
	if u := us.by[t.Name]; u != nil {
		return u
	}
	if us.by == nil {
		us.by = map[string]*tableUse{}
	}
	u := &tableUse{}
	us.by[t.Name] = u
	us.order = append(us.order, t)
	return u
}

// meteredMutate is mutate reporting the write it applied: the units
// DynamoDB charges for it (the larger image, and the index entries it puts
// or deletes) and the new image's size.
func (e *Engine) meteredMutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	var old, nw item.Item
	err := e.limitedMutate(ctx, t, key, observed(fn, &old, &nw))
	if err != nil {
		return err
	}
	e.meterStream(t, old, nw)
	if e.cfg.OnTableUse == nil {
		return nil
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

// observed wraps fn so that *old and *nw hold the image it was last given
// and the one it returned: those of the write applied, as a backend may
// run fn more than once.
func observed(fn storage.MutateFunc, old, nw *item.Item) storage.MutateFunc {
	return func(o item.Item) (item.Item, error) {
		n, err := fn(o)
		*old, *nw = o, n
		return n, err
	}
}

// meterStream reports the stream record one applied write of t appended:
// one when t has a stream and the write changed the item, as
// storage.StreamRecordFor decides for every backend.
func (e *Engine) meterStream(t *storage.Table, old, nw item.Item) {
	if e.cfg.OnStreamRecords == nil || !t.StreamEnabled() {
		return
	}
	if storage.StreamRecordFor(t, old, nw, nil, time.Time{}) != nil {
		e.cfg.OnStreamRecords(1)
	}
}

// meterTransactWrite reports the writes of a committed TransactWriteItems
// transaction, per table: the units charged (as txWriteCost counts them),
// the items put, updated or deleted, and the bytes of their new images.
func (e *Engine) meterTransactWrite(writes []*txWrite) {
	for _, w := range writes {
		if w.kind != txCheck {
			e.meterStream(w.t, w.old, w.new)
		}
	}
	if e.cfg.OnTableUse == nil {
		return
	}
	var uses tableUses
	for _, w := range writes {
		u := uses.of(w.t)
		u.units += txWriteCost(capTotal, w).total()
		if w.kind != txCheck {
			u.items++
			if w.new != nil {
				u.bytes += item.Size(w.new)
			}
		}
	}
	for _, t := range uses.order {
		u := uses.by[t.Name]
		e.cfg.OnTableUse(t.Name, useWrite, u.units, u.items, int64(u.bytes))
	}
}

// meterTransactGet reports the reads of a TransactGetItems request, per
// table: 2 read units per 4 KB of each item, a missing item as a small one.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
func (e *Engine) meterTransactGet(reads []*txRead) {
	if e.cfg.OnTableUse == nil {
		return
	}
	var uses tableUses
	for _, rd := range reads {
		u := uses.of(rd.t)
		if rd.it != nil {
			u.items++
		}
		u.bytes += rd.size
		u.units += 2 * readUnits(rd.size, true)
	}
	for _, t := range uses.order {
		u := uses.by[t.Name]
		e.meterRead(t, u.items, u.bytes, u.units)
	}
}
