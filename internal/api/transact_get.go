package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/admission"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
)

// TransactGetItems reads up to 100 items, across tables, as one consistent
// snapshot.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
//
// The storage contract has no multi-item read transaction, so the items are
// read through TransactWrite with mutation functions that return each image
// unchanged (which writes nothing): the backend reads them all inside one
// write transaction, serialized with every other write. Each response is
// therefore a serializable snapshot, at the price of a turn on the writer.
type transactGetItemsInput struct {
	TransactItems          []transactGetItem
	ReturnConsumedCapacity *string
}

// transactGetItem holds one Get.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItem.html
type transactGetItem struct {
	Get *txGet
}

// txGet is one Get of TransactGetItems.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Get.html
type txGet struct {
	TableName                *string           `json:"TableName,omitempty"`
	Key                      item.Item         `json:"Key,omitempty"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

// txRead is one validated Get and, after the read, the item found.
type txRead struct {
	txTarget
	g    *txGet
	proj *expr.Projection
	it   item.Item
	size int // it's size, set by readTransactGets (0 when missing)
}

// transactGetItemsRules are TransactGetItems' member constraints, in
// DynamoDB's order.
var transactGetItemsRules = rules[transactGetItemsInput]{
	transactItemsRule("TransactGetItem", func(in *transactGetItemsInput) []transactGetItem { return in.TransactItems }, (*constraints).transactGetItem),
	enumRule("returnConsumedCapacity", func(in *transactGetItemsInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
}

// transactGetItem checks one Get at path p: present, with its TableName
// and Key.
func (c *constraints) transactGetItem(p string, ti *transactGetItem) {
	p += ".get"
	if c.notNull(ti.Get != nil, p) {
		c.tableRef(ti.Get.TableName, p+".tableName")
		c.notNull(ti.Get.Key != nil, p+".key")
	}
}

func (e *Engine) transactGetItems(ctx context.Context, r *protocol.Request) (any, error) {
	in, err := decodeChecked(r.Body, transactGetItemsRules)
	if err != nil {
		return nil, err
	}
	reads := make([]*txRead, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		proj, err := e.readProjection(ti.Get.ProjectionExpression, nil, ti.Get.ExpressionAttributeNames, ti.Get.Key)
		if err != nil {
			return nil, err
		}
		reads[i] = &txRead{g: ti.Get, proj: proj}
	}
	for _, rd := range reads {
		t, err := e.lookup(ctx, e.account(r), *rd.g.TableName, lookupData)
		if err != nil {
			return nil, err
		}
		rd.t = t
	}
	// Key mismatches cancel the transaction with a ValidationError reason.
	// https://github.com/nubo-db/dynoxide/issues/19 (conformance test against DynamoDB)
	if err := actionKeys(len(reads), func(i int) error {
		rd := reads[i]
		var err error
		rd.key, err = requestKey(rd.t, schemaOf(rd.t, rd.t.KeySchema), rd.g.Key)
		return err
	}); err != nil {
		return nil, err
	}
	claims := make(targetClaims, len(reads))
	for _, rd := range reads {
		if err := claims.claim(&rd.txTarget); err != nil {
			return nil, err
		}
		if err := checkProjectionKeyPaths(rd.t, rd.proj); err != nil {
			return nil, err
		}
	}

	tables := make([]*storage.Table, len(reads))
	for i, rd := range reads {
		tables[i] = rd.t
	}
	if err := e.admitTransaction(ctx, tables, realism.Read); err != nil {
		return nil, err
	}
	if err := readTransactGets(ctx, e.store, reads); err != nil {
		return nil, err
	}
	out := &transactGetOutput{items: make([]item.Item, len(reads)), capacity: newTxCapacity(in.ReturnConsumedCapacity, "ReadCapacityUnits")}
	for i, rd := range reads {
		if rd.it != nil {
			out.items[i] = projectItem(rd.proj, rd.it)
		}
		// A transactional read costs 2 RCU per 4 KB, a missing item as
		// much as an item of 4 KB or less.
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
		if c := out.capacity.of(rd.t.Name); c != nil {
			c.units += 2 * readUnits(rd.size, true)
		}
	}
	e.meterTransactGet(reads)
	return out, nil
}

// transactGetOutput is the response of TransactGetItems: one ItemResponse
// per Get in request order, {} for a missing item.
type transactGetOutput struct {
	items    []item.Item
	capacity *txCapacity
}

// AppendJSON implements protocol.Appender.
func (o *transactGetOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Responses":[`...)
	for i, it := range o.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		// A projection that selects nothing of an existing item leaves no
		// Item member, as for a missing item.
		// https://github.com/nubo-db/dynoxide/blob/main/src/actions/transact_get_items.rs
		if len(it) == 0 {
			dst = append(dst, "{}"...)
			continue
		}
		dst = append(dst, `{"Item":`...)
		dst = item.AppendItemJSON(dst, it)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if o.capacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.capacity.appendJSON(dst)
	}
	return append(dst, '}')
}

// readTransactGets reads the items of reads as of one instant: from one
// snapshot where the backend offers it (storage.SnapshotGetter), else
// through TransactWrite with functions that change nothing. The items read
// may total at most 4 MB, DynamoDB's limit ("The aggregate size of the
// items in the transaction cannot exceed 4 MB").
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
func readTransactGets(ctx context.Context, store storage.Backend, reads []*txRead) error {
	if sg, ok := store.(storage.SnapshotGetter); ok {
		refs := make([]storage.ItemRef, len(reads))
		for i, rd := range reads {
			refs[i] = storage.ItemRef{Table: rd.t, Key: rd.key}
		}
		items, err := sg.GetItemsSnapshot(ctx, refs)
		if err != nil {
			return err
		}
		for i, rd := range reads {
			rd.it = items[i]
		}
	} else {
		ms := make([]storage.Mutation, len(reads))
		for i, rd := range reads {
			ms[i] = storage.Mutation{Table: rd.t, Key: rd.key, Fn: func(cur item.Item) (item.Item, error) {
				rd.it = cur
				return cur, nil
			}}
		}
		if err := store.TransactWrite(ctx, ms); err != nil {
			// The functions never fail: a cancellation can only be a
			// TransactionConflict (an item another transaction kept holding).
			return asCancellation(err)
		}
	}
	total := 0
	for _, rd := range reads {
		if rd.it != nil {
			rd.size = item.Size(rd.it)
			total += rd.size
		}
	}
	if total <= maxTransactBytes {
		if err := admission.ChargeItems(ctx, total); err != nil {
			return err
		}
	}
	if total > maxTransactBytes {
		return errTransactionTooLarge()
	}
	return nil
}
