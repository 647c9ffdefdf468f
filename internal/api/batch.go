package api

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/admission"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
)

// Batch limits.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
const (
	maxBatchGetKeys      = 100
	maxBatchWriteItems   = 25
	maxBatchGetRespBytes = 16 << 20
)

// keysAndAttributes is one table's part of a BatchGetItem request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_KeysAndAttributes.html
type keysAndAttributes struct {
	Keys                     []item.Item
	AttributesToGet          []string          `json:"AttributesToGet,omitempty"`
	ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

type batchGetItemInput struct {
	RequestItems           map[string]*keysAndAttributes
	ReturnConsumedCapacity *string
}

// requestItemsConstraints checks the table names (map keys) of RequestItems.
// render, when not nil, echoes the map in the message as DynamoDB does.
func requestItemsConstraints(c *constraints, names []string, render func() string) {
	for _, n := range names {
		if _, ok := tableNameOfArn(n); !ok && !validTableName(n) {
			value := ""
			if render != nil {
				value = "'" + render() + "' "
			}
			c.add("Value %sat 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]", value)
			return
		}
	}
}

// keyString identifies a key for duplicate detection, independent of the
// table's schema (which is not known yet when duplicates are first sought).
func keyString(k item.Item) string {
	names := sortedKeys(k)
	var b []byte
	for _, n := range names {
		b = strconv.AppendQuote(b, n)
		b = item.AppendJSON(b, k[n])
	}
	return string(b)
}

// batchGetRules are BatchGetItem's member constraints. Since 2026 DynamoDB
// words the length constraints of RequestItems and of a table's Keys with
// the members' own (upper-camel) names and without echoing the value.
// https://github.com/nubo-db/dynoxide/pull/198 (empty RequestItems, captured in 32 of 33 regions)
// https://github.com/getmoto/moto/issues/3046 (more than 100 keys for one table)
// https://github.com/paritysuite/dynamodb-conformance/blob/main/tests/tier3/error-messages/batchGetItem.test.ts
var batchGetRules = rules[batchGetItemInput]{
	func(in *batchGetItemInput, c *constraints) {
		if !c.notNull(in.RequestItems != nil, "requestItems") {
			return
		}
		tables := sortedKeys(in.RequestItems)
		// DynamoDB echoes the map as JSON.
		// https://github.com/paritysuite/dynamodb-conformance/blob/main/tests/tier3/error-messages/batchGetItem.test.ts ("malformed table name", captured in us-east-1 and eu-west-2)
		requestItemsConstraints(c, tables, func() string {
			b, _ := json.Marshal(in.RequestItems)
			return string(b)
		})
		if len(tables) == 0 {
			c.add("Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		for _, name := range tables {
			ka := in.RequestItems[name]
			if ka == nil || !c.notNull(ka.Keys != nil, "requestItems."+name+".member.keys") {
				continue
			}
			switch n := len(ka.Keys); {
			case n < 1:
				c.add("Value at 'RequestItems.%s.member.Keys' failed to satisfy constraint: Member must have length greater than or equal to 1", name)
			case n > maxBatchGetKeys:
				c.add("Value at 'RequestItems.%s.member.Keys' failed to satisfy constraint: Member must have length less than or equal to %d", name, maxBatchGetKeys)
			}
			attributesToGetConstraint(c, ka.AttributesToGet)
		}
	},
	enumRule("returnConsumedCapacity", func(in *batchGetItemInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
}

// batchGetItem serves a decoded BatchGetItem request for an account.
func (e *Engine) batchGetItem(ctx context.Context, account string, in *batchGetItemInput) (any, error) {
	if err := batchGetRules.check(in); err != nil {
		return nil, err
	}
	tables := sortedKeys(in.RequestItems)
	projs, err := e.checkBatchGet(in, tables)
	if err != nil {
		return nil, err
	}
	resolved, err := e.lookupTables(ctx, account, tables)
	if err != nil {
		return nil, err
	}
	keys := make(map[string][]storage.Key, len(tables))
	for _, name := range tables {
		t := resolved[name]
		ks := schemaOf(t, t.KeySchema)
		for _, k := range in.RequestItems[name].Keys {
			sk, err := requestKey(t, ks, k)
			if err != nil {
				return nil, err
			}
			keys[name] = append(keys[name], sk)
		}
		if err := checkProjectionKeyPaths(t, projs[name]); err != nil {
			return nil, err
		}
	}
	return e.readBatch(ctx, in, tables, resolved, keys, projs)
}

// checkBatchGet is BatchGetItem's checks that need no table, in request
// order: the projection parameters (one family for the whole request),
// then each table's keys (values, duplicates, at most 100 in all), then its
// projection. It returns each table's parsed projection.
func (e *Engine) checkBatchGet(in *batchGetItemInput, tables []string) (map[string]*expr.Projection, error) {
	var anyExpr, anyLegacy bool
	for _, name := range tables {
		if ka := in.RequestItems[name]; ka != nil {
			anyExpr = anyExpr || ka.ProjectionExpression != nil
			anyLegacy = anyLegacy || ka.AttributesToGet != nil
		}
	}
	if anyExpr && anyLegacy {
		// One table's ProjectionExpression and another's AttributesToGet
		// mix the two families in one request.
		// https://github.com/ExtendDB/extenddb/pull/178 (captured from DynamoDB)
		return nil, checkParams(map[string]bool{"ProjectionExpression": true, "AttributesToGet": true},
			[]string{"ProjectionExpression"}, []string{"AttributesToGet"}, false, false)
	}
	projs := make(map[string]*expr.Projection, len(tables))
	n := 0
	for _, name := range tables {
		ka := in.RequestItems[name]
		if ka == nil {
			ka = &keysAndAttributes{}
			in.RequestItems[name] = ka
		}
		if err := checkProjectionParams(ka.ProjectionExpression, ka.AttributesToGet, ka.ExpressionAttributeNames); err != nil {
			return nil, err
		}
		seen := make(map[string]bool, len(ka.Keys))
		for _, k := range ka.Keys {
			if err := validateItemValues(k); err != nil {
				return nil, err
			}
			ks := keyString(k)
			if seen[ks] {
				return nil, ddberr.Validation("Provided list of item keys contains duplicates")
			}
			seen[ks] = true
			n++
			if n > maxBatchGetKeys {
				return nil, ddberr.Validation("Too many items requested for the BatchGetItem call")
			}
		}
		proj, err := e.parseReadProjection(ka.ProjectionExpression, ka.AttributesToGet, ka.ExpressionAttributeNames)
		if err != nil {
			return nil, err
		}
		projs[name] = proj
	}
	return projs, nil
}

// readBatch reads the keys of a checked BatchGetItem request, leaving the
// rest unprocessed once the response passes 16 MB or the memory budget of
// requests in flight has no room for more (admitItems).
func (e *Engine) readBatch(ctx context.Context, in *batchGetItemInput, tables []string, resolved map[string]*storage.Table, keys map[string][]storage.Key, projs map[string]*expr.Projection) (any, error) {
	out := &batchGetOutput{responses: map[string][]item.Item{}, unprocessed: map[string]*keysAndAttributes{}, capacity: newBatchCapacity(capacityMode(in.ReturnConsumedCapacity))}
	bytes, full := 0, false
	var throttled error // the first member refused for capacity
	left, all := 0, 0   // members refused for capacity, members
	leave := func(name string, ka *keysAndAttributes, i int) {
		u := out.unprocessed[name]
		if u == nil {
			cp := *ka
			cp.Keys = nil
			u = &cp
			out.unprocessed[name] = u
		}
		u.Keys = append(u.Keys, ka.Keys[i])
	}
	for _, name := range tables {
		t, ka := resolved[name], in.RequestItems[name]
		consistent := ka.ConsistentRead != nil && *ka.ConsistentRead
		got := []item.Item{}
		use := tableUse{}
		for i, k := range keys[name] {
			if full || bytes > maxBatchGetRespBytes {
				leave(name, ka, i)
				continue
			}
			if e.realism != nil {
				if err := e.admitBatchMember(ctx, t, realism.Read); err != nil {
					throttled = cmp.Or(throttled, err)
					left++
					leave(name, ka, i)
					continue
				}
			}
			it, err := e.store.GetItem(ctx, t, k, consistent)
			if err != nil {
				return nil, err
			}
			if e.realism != nil && !consistent {
				it = e.staleItem(t, k, it)
			}
			size := 0
			if it != nil {
				size = item.Size(it)
				ok, err := admitItems(ctx, size, bytes == 0)
				if err != nil {
					return nil, err
				}
				if !ok {
					full = true
					leave(name, ka, i)
					continue
				}
				bytes += size
				got = append(got, projectItem(projs[name], it))
				use.items++
			}
			units := readUnits(size, consistent)
			if e.realism != nil {
				// Charged member by member, so that the next members see
				// the capacity this one used.
				e.meterRead(t, 0, 0, units)
				units = 0
			}
			use.bytes += size
			use.units += units
			if cc := out.capacity.of(t.Name); cc != nil {
				cc.units += readUnits(size, consistent)
			}
		}
		e.meterRead(t, use.items, use.bytes, use.units)
		out.responses[name] = got
		all += len(keys[name])
	}
	if throttled != nil && left == all {
		// None could be read: the batch fails as a whole.
		return nil, throttled
	}
	return out, nil
}

// lookupTables resolves the tables of a batch request by name, in names'
// order (the first missing one is the error).
func (e *Engine) lookupTables(ctx context.Context, account string, names []string) (map[string]*storage.Table, error) {
	resolved := make(map[string]*storage.Table, len(names))
	for _, name := range names {
		t, err := e.lookup(ctx, account, name, lookupData)
		if err != nil {
			return nil, err
		}
		resolved[name] = t
	}
	return resolved, nil
}

// appendTableLists appends the JSON object {"<table>":[<element>,...],...}
// of the lists of a response by table name (Responses,
// ItemCollectionMetrics), the tables in names' order, each element
// written by elem.
func appendTableLists[V any](dst []byte, names []string, lists map[string][]V, elem func([]byte, V) []byte) []byte {
	dst = append(dst, '{')
	for i, name := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, name)
		dst = append(dst, ":["...)
		for j, v := range lists[name] {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = elem(dst, v)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendMetricsJSON is itemCollectionMetrics.appendJSON as an element
// writer of appendTableLists.
func appendMetricsJSON(dst []byte, m *itemCollectionMetrics) []byte { return m.appendJSON(dst) }

type batchGetOutput struct {
	responses   map[string][]item.Item
	unprocessed map[string]*keysAndAttributes
	capacity    *batchCapacity
}

// AppendJSON implements protocol.Appender.
func (o *batchGetOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Responses":`...)
	dst = appendTableLists(dst, sortedKeys(o.responses), o.responses, item.AppendItemJSON)
	dst = append(dst, `,"UnprocessedKeys":`...)
	u, _ := json.Marshal(o.unprocessed)
	dst = append(dst, u...)
	if o.capacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.capacity.appendJSON(dst)
	}
	return append(dst, '}')
}

// writeRequest is one entry of a BatchWriteItem request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_WriteRequest.html
type writeRequest struct {
	PutRequest *struct {
		Item item.Item
	} `json:"PutRequest,omitempty"`
	DeleteRequest *struct {
		Key item.Item
	} `json:"DeleteRequest,omitempty"`
}

type batchWriteItemInput struct {
	RequestItems                map[string][]writeRequest
	ReturnConsumedCapacity      *string
	ReturnItemCollectionMetrics *string
}

// batchWriteRules are BatchWriteItem's member constraints.
var batchWriteRules = rules[batchWriteItemInput]{
	func(in *batchWriteItemInput, c *constraints) {
		if !c.notNull(in.RequestItems != nil, "requestItems") {
			return
		}
		tables := sortedKeys(in.RequestItems)
		requestItemsConstraints(c, tables, nil)
		for _, name := range tables {
			if n := len(in.RequestItems[name]); n > maxBatchWriteItems {
				// DynamoDB renders the offending map with Java's toString.
				c.add("Value '{%s=[%s]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to %d, Member must have length greater than or equal to 1]", name, strings.TrimSuffix(strings.Repeat("WriteRequest, ", n), ", "), maxBatchWriteItems)
			}
			p := "requestItems." + name + ".member"
			for i, wr := range in.RequestItems[name] {
				if wr.PutRequest != nil {
					c.notNull(wr.PutRequest.Item != nil, p+"."+itoa(i+1)+".member.putRequest.item")
				}
				if wr.DeleteRequest != nil {
					c.notNull(wr.DeleteRequest.Key != nil, p+"."+itoa(i+1)+".member.deleteRequest.key")
				}
			}
		}
	},
	enumRule("returnConsumedCapacity", func(in *batchWriteItemInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
	enumRule("returnItemCollectionMetrics", func(in *batchWriteItemInput) *string { return in.ReturnItemCollectionMetrics }, enumReturnItemCollectionMetrics),
}

// batchWrite is one checked request of a BatchWriteItem call.
type batchWrite struct {
	t    *storage.Table
	ks   keySchema
	key  storage.Key
	put  item.Item // nil for a DeleteRequest
	keyV item.Item
	req  writeRequest // as sent, for UnprocessedItems
}

// batchWriteItem serves a decoded BatchWriteItem request for an account.
func (e *Engine) batchWriteItem(ctx context.Context, account string, in *batchWriteItemInput) (any, error) {
	if in.RequestItems != nil && len(in.RequestItems) == 0 {
		// DynamoDB still answers an empty map with its own sentence, before
		// the member constraints.
		// https://github.com/nubo-db/dynoxide/issues/17
		// https://github.com/nubo-db/dynoxide/pull/198 (BatchWriteItem has not moved)
		return nil, ddberr.Validation("The requestItems parameter is required for BatchWriteItem")
	}
	if err := batchWriteRules.check(in); err != nil {
		return nil, err
	}
	tables := sortedKeys(in.RequestItems)
	if err := checkBatchWrite(in, tables); err != nil {
		return nil, err
	}
	writes, err := e.batchWrites(ctx, account, in, tables)
	if err != nil {
		return nil, err
	}
	// The writes are independent single-item writes: on a backend that
	// gains from it (storage.ParallelWriter) several run at once; the
	// response adds up their results in request order either way. With
	// realism, members are admitted one after the other, each seeing the
	// capacity the ones before it used, and the refused ones are left
	// unprocessed.
	res := make([]batchWriteResult, len(writes))
	parallel := storage.WriteParallelism(e.store)
	var left []bool
	var throttled error
	if e.realism != nil {
		parallel, left = 1, make([]bool, len(writes))
	}
	err = storage.EachWrite(ctx, len(writes), parallel, func(i int) error {
		if left != nil {
			if err := e.admitBatchMember(ctx, writes[i].t, realism.Write); err != nil {
				throttled, left[i] = cmp.Or(throttled, err), true
				return nil
			}
		}
		var err error
		res[i], err = e.applyBatchWrite(ctx, in, writes[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &batchWriteOutput{capacity: newBatchCapacity(capacityMode(in.ReturnConsumedCapacity))}
	for i, w := range writes {
		if left != nil && left[i] {
			out.leave(w)
			continue
		}
		out.capacity.of(w.t.Name).chargeWrite(w.t, res[i].old, w.put)
		if m := res[i].metrics; m != nil {
			if out.metrics == nil {
				out.metrics = map[string][]*itemCollectionMetrics{}
			}
			out.metrics[w.t.Name] = append(out.metrics[w.t.Name], m)
		}
	}
	if throttled != nil && out.left == len(writes) {
		// None could be written: the batch fails as a whole.
		return nil, throttled
	}
	return out, nil
}

// checkBatchWrite is BatchWriteItem's checks that need no table.
// https://github.com/mhart/dynalite/blob/master/validations/batchWriteItem.js
func checkBatchWrite(in *batchWriteItemInput, tables []string) error {
	n := 0
	for _, name := range tables {
		reqs := in.RequestItems[name]
		if len(reqs) == 0 {
			return ddberr.Validation("The batch write request list for a table cannot be null or empty: %s", name)
		}
		for _, wr := range reqs {
			if (wr.PutRequest == nil) == (wr.DeleteRequest == nil) {
				return ddberr.Validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
		}
		for _, wr := range reqs {
			if wr.PutRequest != nil {
				if err := checkItem(wr.PutRequest.Item); err != nil {
					return err
				}
				if err := checkItemSize(wr.PutRequest.Item, msgItemTooLarge); err != nil {
					return err
				}
			} else if err := validateItemValues(wr.DeleteRequest.Key); err != nil {
				return err
			}
			n++
			if n > maxBatchWriteItems {
				return ddberr.Validation("Too many items requested for the BatchWriteItem call")
			}
		}
	}
	return nil
}

// batchWrites resolves the tables of a checked BatchWriteItem request, then
// every request's key, refusing two requests for one item.
func (e *Engine) batchWrites(ctx context.Context, account string, in *batchWriteItemInput, tables []string) ([]batchWrite, error) {
	resolved, err := e.lookupTables(ctx, account, tables)
	if err != nil {
		return nil, err
	}
	var writes []batchWrite
	for _, name := range tables {
		t := resolved[name]
		ks := schemaOf(t, t.KeySchema)
		seen := map[string]bool{}
		for _, wr := range in.RequestItems[name] {
			w := batchWrite{t: t, ks: ks, req: wr}
			var err error
			if wr.PutRequest != nil {
				w.put = wr.PutRequest.Item
				w.keyV = w.put
				w.key, err = batchItemKey(t, ks, w.put)
			} else {
				w.keyV = wr.DeleteRequest.Key
				w.key, err = requestKey(t, ks, w.keyV)
			}
			if err != nil {
				return nil, err
			}
			id := string(w.key.PK) + "\x00" + string(w.key.SK)
			if seen[id] {
				return nil, ddberr.Validation("Provided list of item keys contains duplicates")
			}
			seen[id] = true
			writes = append(writes, w)
		}
	}
	return writes, nil
}

// batchItemKey is itemKey for a PutRequest: inside a batch, DynamoDB words
// a missing, wrong-typed or non-scalar table key attribute as a key that
// does not match the schema (empty values and index keys keep PutItem's
// words).
// https://github.com/nubo-db/dynoxide/pull/101
func batchItemKey(t *storage.Table, ks keySchema, it item.Item) (storage.Key, error) {
	for i, name := range ks.names() {
		want := ks.typeOf(i)
		if v, ok := it[name]; !ok || v.Type != want {
			return storage.Key{}, errKeySchema()
		}
	}
	return itemKey(t, ks, it)
}

// batchWriteResult is what one write of a BatchWriteItem call adds to the
// response: the image it replaced (for its capacity) and its item
// collection metrics (nil when not asked for).
type batchWriteResult struct {
	old     item.Item
	metrics *itemCollectionMetrics
}

// applyBatchWrite performs one write of a BatchWriteItem call and returns
// what it adds to the response.
func (e *Engine) applyBatchWrite(ctx context.Context, in *batchWriteItemInput, w batchWrite) (batchWriteResult, error) {
	var r batchWriteResult
	put := w.put
	err := e.mutate(ctx, w.t, w.key, func(cur item.Item) (item.Item, error) {
		r.old = cur
		if put == nil {
			return nil, nil
		}
		return put, nil
	})
	if err != nil {
		return r, err
	}
	if m := collectionMetrics(w.t, w.ks, in.ReturnItemCollectionMetrics, w.keyV); m != nil {
		if err := e.sizeCollection(ctx, w.t, m); err != nil {
			return r, err
		}
		r.metrics = m
	}
	return r, nil
}

type batchWriteOutput struct {
	capacity    *batchCapacity
	metrics     map[string][]*itemCollectionMetrics
	unprocessed map[string][]writeRequest
	left        int // the requests in unprocessed
}

// leave returns w unprocessed, in UnprocessedItems.
func (o *batchWriteOutput) leave(w batchWrite) {
	if o.unprocessed == nil {
		o.unprocessed = map[string][]writeRequest{}
	}
	o.unprocessed[w.t.Name] = append(o.unprocessed[w.t.Name], w.req)
	o.left++
}

// AppendJSON implements protocol.Appender.
func (o *batchWriteOutput) AppendJSON(dst []byte) []byte {
	if o.unprocessed == nil {
		dst = append(dst, `{"UnprocessedItems":{}`...)
	} else {
		dst = append(dst, `{"UnprocessedItems":`...)
		u, _ := json.Marshal(o.unprocessed)
		dst = append(dst, u...)
	}
	if o.capacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.capacity.appendJSON(dst)
	}
	if o.metrics != nil {
		dst = append(dst, `,"ItemCollectionMetrics":`...)
		dst = appendTableLists(dst, sortedKeys(o.metrics), o.metrics, appendMetricsJSON)
	}
	return append(dst, '}')
}

// admitItems charges size bytes of items about to be returned to the
// request's share of the memory budget (internal/admission). The first
// items of a response wait for room, and get ThrottlingException if none
// comes; later ones only take room that is free, and false ends the
// response early (a shorter page, or keys left unprocessed) so that
// requests holding part of the budget never wait on each other.
func admitItems(ctx context.Context, size int, first bool) (bool, error) {
	if first {
		return true, admission.ChargeItems(ctx, size)
	}
	return admission.TryChargeItems(ctx, size), nil
}
