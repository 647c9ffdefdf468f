package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
)

// TransactWriteItems applies up to 100 Put, Update, Delete and
// ConditionCheck actions, across tables, all or none.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
//
// Every action becomes one storage.Mutation and the backend applies them in
// one transaction (SQLite: one savepoint on the single writer), so each
// condition, ConditionCheck included, is evaluated against the committed
// image inside the transaction: the result is serializable.
type transactWriteItemsInput struct {
	TransactItems               []transactWriteItem
	ClientRequestToken          *string `json:"ClientRequestToken,omitempty"`
	ReturnConsumedCapacity      *string `json:"ReturnConsumedCapacity,omitempty"`
	ReturnItemCollectionMetrics *string `json:"ReturnItemCollectionMetrics,omitempty"`
}

// transactWriteItem holds exactly one action.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItem.html
type transactWriteItem struct {
	ConditionCheck *txAction `json:"ConditionCheck,omitempty"`
	Put            *txAction `json:"Put,omitempty"`
	Delete         *txAction `json:"Delete,omitempty"`
	Update         *txAction `json:"Update,omitempty"`
}

// txAction carries the members of Put, Update, Delete and ConditionCheck
// (each uses its own subset).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Put.html
type txAction struct {
	TableName                           *string                        `json:"TableName,omitempty"`
	Item                                item.Item                      `json:"Item,omitempty"`
	Key                                 item.Item                      `json:"Key,omitempty"`
	UpdateExpression                    *string                        `json:"UpdateExpression,omitempty"`
	ConditionExpression                 *string                        `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames            map[string]string              `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues           map[string]item.AttributeValue `json:"ExpressionAttributeValues,omitempty"`
	ReturnValuesOnConditionCheckFailure *string                        `json:"ReturnValuesOnConditionCheckFailure,omitempty"`
}

// Kinds of transaction write actions.
const (
	txCheck = iota
	txPut
	txDelete
	txUpdate
)

// txMember is the wire name of each kind, as constraint paths spell it.
var txMember = [...]string{"conditionCheck", "put", "delete", "update"}

// action returns the single action of w and its kind; n counts the actions
// present.
func (w *transactWriteItem) action() (a *txAction, kind, n int) {
	for k, x := range [...]*txAction{w.ConditionCheck, w.Put, w.Delete, w.Update} {
		if x != nil {
			a, kind = x, k
			n++
		}
	}
	return a, kind, n
}

// txWrite is one validated action and, after the transaction, what it did.
type txWrite struct {
	txTarget
	kind int
	a    *txAction
	cond *expr.Condition
	upd  *expr.Update
	ks   keySchema
	old  item.Item // image before the transaction
	new  item.Item // image after it
}

func (e *Engine) transactWriteItems(ctx context.Context, r *protocol.Request) (any, error) {
	in, err := decodeChecked(r.Body, transactWriteItemsRules)
	if err != nil {
		return nil, err
	}
	writes := make([]*txWrite, len(in.TransactItems))
	size := 0
	for i := range in.TransactItems {
		w, err := e.parseTxWrite(&in.TransactItems[i])
		if err != nil {
			return nil, err
		}
		writes[i] = w
		size += txWriteSize(w)
	}
	for _, w := range writes {
		t, err := e.lookup(ctx, e.account(r), *w.a.TableName, lookupData)
		if err != nil {
			return nil, err
		}
		w.t, w.ks = t, schemaOf(t, t.KeySchema)
	}
	if err := actionKeys(len(writes), func(i int) error { return writes[i].resolveKey() }); err != nil {
		return nil, err
	}
	claims := make(targetClaims, len(writes))
	for _, w := range writes {
		if err := claims.claim(&w.txTarget); err != nil {
			return nil, err
		}
	}
	for _, w := range writes {
		if w.upd != nil {
			if err := w.upd.CheckKeyUpdate(w.ks.names()...); err != nil {
				return nil, err
			}
			if err := checkNestedKeyPaths(w.t, w.upd.Paths()); err != nil {
				return nil, err
			}
		}
	}
	if size > maxTransactBytes {
		return nil, errTransactionTooLarge()
	}

	if in.ClientRequestToken == nil {
		return e.runTransactWrite(ctx, in, writes, e.store.TransactWrite)
	}
	return e.transactWriteToken(ctx, e.account(r), in, writes)
}

// transactWriteItemsRules are TransactWriteItems' member constraints, in
// DynamoDB's order.
var transactWriteItemsRules = rules[transactWriteItemsInput]{
	transactItemsRule("TransactWriteItem", func(in *transactWriteItemsInput) []transactWriteItem { return in.TransactItems }, (*constraints).transactWriteItem),
	lengthRule("clientRequestToken", func(in *transactWriteItemsInput) *string { return in.ClientRequestToken }, 1, maxClientTokenChars, false),
	enumRule("returnConsumedCapacity", func(in *transactWriteItemsInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
	enumRule("returnItemCollectionMetrics", func(in *transactWriteItemsInput) *string { return in.ReturnItemCollectionMetrics }, enumReturnItemCollectionMetrics),
}

// transactWriteItem checks the members of one action at path p: its
// TableName, Item or Key, the expression an action of its kind needs, and
// ReturnValuesOnConditionCheckFailure. An entry without exactly one action
// is refused later, by parseTxWrite.
func (c *constraints) transactWriteItem(p string, w *transactWriteItem) {
	a, kind, n := w.action()
	if n != 1 {
		return
	}
	p += "." + txMember[kind]
	c.tableRef(a.TableName, p+".tableName")
	if kind == txPut {
		c.notNull(a.Item != nil, p+".item")
	} else {
		c.notNull(a.Key != nil, p+".key")
	}
	if kind == txCheck {
		c.notNull(a.ConditionExpression != nil, p+".conditionExpression")
	}
	if kind == txUpdate {
		// https://github.com/aws/aws-sdk-java-v2/issues/3561 (message seen from DynamoDB)
		c.notNull(a.UpdateExpression != nil, p+".updateExpression")
	}
	c.enum(a.ReturnValuesOnConditionCheckFailure, p+".returnValuesOnConditionCheckFailure", enumReturnValuesOnFailure...)
}

// parseTxWrite runs the checks of one action that need no table: exactly
// one action, parameter mixing, attribute values, expressions (with unused
// names and values rejected per action) and the item size of a Put.
func (e *Engine) parseTxWrite(ti *transactWriteItem) (*txWrite, error) {
	a, kind, n := ti.action()
	if n != 1 {
		return nil, errNotOneAction()
	}
	w := &txWrite{kind: kind, a: a}
	present := map[string]bool{"ConditionExpression": a.ConditionExpression != nil, "UpdateExpression": a.UpdateExpression != nil}
	exprParams := []string{"ConditionExpression"}
	if kind == txUpdate {
		exprParams = []string{"UpdateExpression", "ConditionExpression"}
	}
	if err := checkParams(present, exprParams, nil, a.ExpressionAttributeNames != nil, a.ExpressionAttributeValues != nil); err != nil {
		return nil, err
	}
	if kind == txPut {
		if err := checkItem(a.Item); err != nil {
			return nil, err
		}
	} else if err := validateItemValues(a.Key); err != nil {
		return nil, err
	}
	if kind != txUpdate {
		cond, err := e.writeCondition(a.ConditionExpression, nil, nil, a.ExpressionAttributeNames, a.ExpressionAttributeValues)
		if err != nil {
			return nil, err
		}
		w.cond = cond
	} else {
		x, err := e.newExprEnv(a.ExpressionAttributeNames, a.ExpressionAttributeValues)
		if err != nil {
			return nil, err
		}
		if w.upd, err = x.update(a.UpdateExpression); err != nil {
			return nil, err
		}
		if w.cond, err = x.condition(expr.KindCondition, a.ConditionExpression); err != nil {
			return nil, err
		}
		if err := x.checkUnused(); err != nil {
			return nil, err
		}
	}
	if kind == txPut {
		if err := checkItemSize(a.Item, msgItemTooLarge); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// txWriteSize is an action's share of the 4 MB transaction limit: the item
// of a Put, the key (and values) of the others.
func txWriteSize(w *txWrite) int {
	if w.kind == txPut {
		return item.Size(w.a.Item)
	}
	n := item.Size(w.a.Key)
	for _, v := range w.a.ExpressionAttributeValues {
		n += item.ValueSize(v)
	}
	return n
}

// resolveKey validates the action's key (a Put's item) against its table.
func (w *txWrite) resolveKey() error {
	var err error
	if w.kind == txPut {
		w.key, err = itemKey(w.t, w.ks, w.a.Item)
	} else {
		w.key, err = requestKey(w.t, w.ks, w.a.Key)
	}
	return err
}

// mutation returns the storage mutation of the action. Its function may run
// more than once, so it resets what it records on every call.
func (w *txWrite) mutation() storage.Mutation {
	onFailure := w.a.ReturnValuesOnConditionCheckFailure
	return storage.Mutation{Table: w.t, Key: w.key, Fn: func(cur item.Item) (item.Item, error) {
		w.old, w.new = cur, nil
		if err := checkCondition(w.cond, cur, onFailure); err != nil {
			return nil, err
		}
		switch w.kind {
		case txCheck:
			w.new = cur
			return cur, nil
		case txPut:
			w.new = w.a.Item
			return w.a.Item, nil
		case txDelete:
			return nil, nil
		}
		if cur == nil && w.upd.RemovesOnly() {
			return nil, nil // nothing to take away: the item stays absent
		}
		base := cur
		if base == nil {
			base = item.CloneItem(w.a.Key)
		}
		next, err := w.upd.Apply(base)
		if err != nil {
			return nil, err
		}
		if err := checkItemSize(next, msgUpdatedItemTooLarge); err != nil {
			return nil, err
		}
		if err := checkIndexKeys(w.t, next); err != nil {
			return nil, err
		}
		w.new = next
		return next, nil
	}}
}

// runTransactWrite applies the actions with apply (the backend's
// TransactWrite, or a variant of it) and builds the response.
func (e *Engine) runTransactWrite(ctx context.Context, in *transactWriteItemsInput, writes []*txWrite, apply func(context.Context, []storage.Mutation) error) (*transactWriteOutput, error) {
	ms := make([]storage.Mutation, len(writes))
	tables := make([]*storage.Table, len(writes))
	for i, w := range writes {
		ms[i] = w.mutation()
		tables[i] = w.t
	}
	if err := e.admitTransaction(ctx, tables, realism.Write); err != nil {
		return nil, err
	}
	if err := apply(ctx, ms); err != nil {
		return nil, asCancellation(err)
	}
	e.meterTransactWrite(writes)
	out := &transactWriteOutput{capacity: newTxCapacity(in.ReturnConsumedCapacity, "WriteCapacityUnits")}
	for _, w := range writes {
		if c := out.capacity.of(w.t.Name); c != nil {
			c.add(txWriteCost(c.mode, w))
		}
	}
	tables, cols := txCollections(in, writes)
	for i, m := range cols {
		if err := e.sizeCollection(ctx, tables[i], m); err != nil {
			return nil, err
		}
		out.metrics = out.metrics.add(tables[i].Name, m)
	}
	return out, nil
}

// txCollections returns, in the order of the actions, the item collections
// the response reports in ItemCollectionMetrics and their tables; the
// sizes are not read yet.
func txCollections(in *transactWriteItemsInput, writes []*txWrite) ([]*storage.Table, []*itemCollectionMetrics) {
	var tables []*storage.Table
	var ms []*itemCollectionMetrics
	for _, w := range writes {
		if w.kind == txCheck {
			continue
		}
		keyV := w.a.Key
		if w.kind == txPut {
			keyV = w.a.Item
		}
		if m := collectionMetrics(w.t, w.ks, in.ReturnItemCollectionMetrics, keyV); m != nil {
			tables = append(tables, w.t)
			ms = append(ms, m)
		}
	}
	return tables, ms
}

// txWriteCost is the capacity one action consumed. A transactional write
// costs twice the table's write units of the same write outside a
// transaction (2 WCU per KB of the larger image); its index writes cost what
// they cost outside one. A ConditionCheck costs 2 WCU per KB of the item it
// read and touches no index.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
// https://github.com/nubo-db/dynoxide/blob/main/tests/transactional_index_consumed_capacity.rs (measured on DynamoDB)
func txWriteCost(mode int, w *txWrite) *consumed {
	c := newConsumed(mode, w.t.Name)
	if w.kind == txCheck {
		size := 0
		if w.old != nil {
			size = item.Size(w.old)
		}
		c.units = 2 * writeUnits(size)
		return c
	}
	c.chargeWrite(w.t, w.old, w.new)
	c.units *= 2
	return c
}

// txRequestHash identifies a request's parameters for its ClientRequestToken:
// the canonical JSON of TransactItems (map members sorted) and
// ReturnItemCollectionMetrics. ReturnConsumedCapacity may differ between
// repeats: each reports capacity its own way.
func txRequestHash(in *transactWriteItemsInput) [32]byte {
	b, _ := json.Marshal(struct {
		TransactItems               []transactWriteItem
		ReturnItemCollectionMetrics *string
	}{in.TransactItems, in.ReturnItemCollectionMetrics})
	return sha256.Sum256(b)
}

// newTxReplay records what a repeat of this transaction reports: reading
// each action's item costs 2 RCU per 4 KB.
func newTxReplay(writes []*txWrite, metrics *txMetrics) *txReplay {
	r := &txReplay{units: map[string]float64{}, metrics: metrics}
	for _, w := range writes {
		size := 0
		if w.new != nil {
			size = item.Size(w.new)
		}
		if _, ok := r.units[w.t.Name]; !ok {
			r.tables = append(r.tables, w.t.Name)
		}
		r.units[w.t.Name] += 2 * readUnits(size, true)
	}
	return r
}

// replayOutput is the response to a repeated ClientRequestToken.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#DDB-TransactWriteItems-request-ClientRequestToken
func replayOutput(in *transactWriteItemsInput, r *txReplay) *transactWriteOutput {
	out := &transactWriteOutput{capacity: newTxCapacity(in.ReturnConsumedCapacity, "ReadCapacityUnits"), metrics: r.metrics}
	for _, name := range r.tables {
		if c := out.capacity.of(name); c != nil {
			c.units += r.units[name]
		}
	}
	return out
}

// txMetrics is ItemCollectionMetrics per table, tables in first-use order.
type txMetrics struct {
	tables []string
	m      map[string][]*itemCollectionMetrics
}

func (t *txMetrics) add(table string, m *itemCollectionMetrics) *txMetrics {
	if t == nil {
		t = &txMetrics{m: map[string][]*itemCollectionMetrics{}}
	}
	if _, ok := t.m[table]; !ok {
		t.tables = append(t.tables, table)
	}
	t.m[table] = append(t.m[table], m)
	return t
}

// transactWriteOutput is the response of TransactWriteItems.
type transactWriteOutput struct {
	capacity *txCapacity
	metrics  *txMetrics
}

// AppendJSON implements protocol.Appender.
func (o *transactWriteOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if o.capacity != nil {
		dst = append(dst, `"ConsumedCapacity":`...)
		dst = o.capacity.appendJSON(dst)
	}
	if o.metrics != nil {
		if o.capacity != nil {
			dst = append(dst, ',')
		}
		dst = append(dst, `"ItemCollectionMetrics":`...)
		dst = appendTableLists(dst, o.metrics.tables, o.metrics.m, appendMetricsJSON)
	}
	return append(dst, '}')
}
