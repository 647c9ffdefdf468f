package api

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
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
	Keys                     []item.Item       `json:"Keys"`
	AttributesToGet          []string          `json:"AttributesToGet,omitempty"`
	ConsistentRead           *bool             `json:"ConsistentRead,omitempty"`
	ProjectionExpression     *string           `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

type batchGetItemInput struct {
	RequestItems           map[string]*keysAndAttributes `json:"RequestItems"`
	ReturnConsumedCapacity *string                       `json:"ReturnConsumedCapacity"`
}

// requestItemsConstraints checks the table names (map keys) of RequestItems.
func requestItemsConstraints(c *constraints, names []string) {
	for _, n := range names {
		if len(n) < 3 || len(n) > 255 || !namePattern.MatchString(n) {
			c.add("Value at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]")
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

func batchGetItem(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in batchGetItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	tables := sortedKeys(in.RequestItems)
	var c constraints
	if c.notNull(in.RequestItems != nil, "requestItems") {
		requestItemsConstraints(&c, tables)
		if len(tables) == 0 {
			c.add("Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		for _, name := range tables {
			ka := in.RequestItems[name]
			p := "requestItems." + name + ".member."
			if ka == nil || !c.notNull(ka.Keys != nil, p+"keys") {
				continue
			}
			c.listLen(len(ka.Keys), true, p+"keys", 1, maxBatchGetKeys, func() string { return renderKeys(ka.Keys) })
			attributesToGetConstraint(&c, ka.AttributesToGet)
		}
	}
	c.enum(in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnConsumedCapacity...)
	if err := c.err(); err != nil {
		return nil, err
	}

	// Per-table checks that need no table, in request order.
	projs := make(map[string]*expr.Projection, len(tables))
	n := 0
	for _, name := range tables {
		ka := in.RequestItems[name]
		if ka == nil {
			ka = &keysAndAttributes{}
			in.RequestItems[name] = ka
		}
		if err := checkParams(map[string]bool{"ProjectionExpression": ka.ProjectionExpression != nil, "AttributesToGet": ka.AttributesToGet != nil},
			[]string{"ProjectionExpression"}, []string{"AttributesToGet"}, ka.ExpressionAttributeNames != nil, false); err != nil {
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
		proj, err := e.readProjection(ka.ProjectionExpression, ka.AttributesToGet, ka.ExpressionAttributeNames, nil)
		if err != nil {
			return nil, err
		}
		projs[name] = proj
	}

	// Tables, then keys.
	resolved := make(map[string]*storage.Table, len(tables))
	for _, name := range tables {
		t, err := e.lookup(ctx, e.account(r), name, lookupData)
		if err != nil {
			return nil, err
		}
		resolved[name] = t
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

	out := &batchGetOutput{responses: map[string][]item.Item{}, unprocessed: map[string]*keysAndAttributes{}, capacity: newBatchCapacity(capacityMode(in.ReturnConsumedCapacity))}
	bytes := 0
	for _, name := range tables {
		t, ka := resolved[name], in.RequestItems[name]
		consistent := ka.ConsistentRead != nil && *ka.ConsistentRead
		got := []item.Item{}
		for i, k := range keys[name] {
			if bytes > maxBatchGetRespBytes {
				u := out.unprocessed[name]
				if u == nil {
					cp := *ka
					cp.Keys = nil
					u = &cp
					out.unprocessed[name] = u
				}
				u.Keys = append(u.Keys, ka.Keys[i])
				continue
			}
			it, err := e.store.GetItem(ctx, t, k, consistent)
			if err != nil {
				return nil, err
			}
			size := 0
			if it != nil {
				size = item.Size(it)
				bytes += size
				got = append(got, projectItem(projs[name], it))
			}
			if cc := out.capacity.of(t.Name); cc != nil {
				cc.units += readUnits(size, consistent)
			}
		}
		out.responses[name] = got
	}
	return out, nil
}

// renderKeys renders a key list the way DynamoDB's constraint messages do.
func renderKeys(keys []item.Item) string {
	b := []byte{'['}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '{')
		for j, n := range sortedKeys(k) {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = append(b, n...)
			b = append(b, '=')
			b = item.AppendJSON(b, k[n])
		}
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

type batchGetOutput struct {
	responses   map[string][]item.Item
	unprocessed map[string]*keysAndAttributes
	capacity    *batchCapacity
}

// AppendJSON implements protocol.Appender.
func (o *batchGetOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Responses":{`...)
	names := make([]string, 0, len(o.responses))
	for n := range o.responses {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, n)
		dst = append(dst, ":["...)
		for j, it := range o.responses[n] {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = item.AppendItemJSON(dst, it)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `},"UnprocessedKeys":`...)
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
		Item item.Item `json:"Item"`
	} `json:"PutRequest"`
	DeleteRequest *struct {
		Key item.Item `json:"Key"`
	} `json:"DeleteRequest"`
}

type batchWriteItemInput struct {
	RequestItems                map[string][]writeRequest `json:"RequestItems"`
	ReturnConsumedCapacity      *string                   `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics *string                   `json:"ReturnItemCollectionMetrics"`
}

func batchWriteItem(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in batchWriteItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	tables := sortedKeys(in.RequestItems)
	var c constraints
	if c.notNull(in.RequestItems != nil, "requestItems") {
		requestItemsConstraints(&c, tables)
		if len(tables) == 0 {
			c.add("Value '{}' at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
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
	}
	c.enum(in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnConsumedCapacity...)
	c.enum(in.ReturnItemCollectionMetrics, "returnItemCollectionMetrics", enumReturnItemCollectionMetrics...)
	if err := c.err(); err != nil {
		return nil, err
	}

	// Checks that need no table.
	// https://github.com/mhart/dynalite/blob/master/validations/batchWriteItem.js
	n := 0
	for _, name := range tables {
		reqs := in.RequestItems[name]
		if len(reqs) == 0 {
			return nil, ddberr.Validation("The batch write request list for a table cannot be null or empty: %s", name)
		}
		for _, wr := range reqs {
			if (wr.PutRequest == nil) == (wr.DeleteRequest == nil) {
				return nil, ddberr.Validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
		}
		for _, wr := range reqs {
			if wr.PutRequest != nil {
				if err := validateItemValues(wr.PutRequest.Item); err != nil {
					return nil, err
				}
				if item.Size(wr.PutRequest.Item) > maxItemBytes {
					return nil, ddberr.Validation("Item size has exceeded the maximum allowed size")
				}
			} else if err := validateItemValues(wr.DeleteRequest.Key); err != nil {
				return nil, err
			}
			n++
			if n > maxBatchWriteItems {
				return nil, ddberr.Validation("Too many items requested for the BatchWriteItem call")
			}
		}
	}

	// Tables, then every request's key, then the writes.
	resolved := make(map[string]*storage.Table, len(tables))
	for _, name := range tables {
		t, err := e.lookup(ctx, e.account(r), name, lookupData)
		if err != nil {
			return nil, err
		}
		resolved[name] = t
	}
	type write struct {
		t    *storage.Table
		ks   keySchema
		key  storage.Key
		put  item.Item
		keyV item.Item
	}
	var writes []write
	for _, name := range tables {
		t := resolved[name]
		ks := schemaOf(t, t.KeySchema)
		seen := map[string]bool{}
		for _, wr := range in.RequestItems[name] {
			w := write{t: t, ks: ks}
			var err error
			if wr.PutRequest != nil {
				w.put = wr.PutRequest.Item
				w.keyV = w.put
				w.key, err = itemKey(t, ks, w.put)
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

	out := &batchWriteOutput{capacity: newBatchCapacity(capacityMode(in.ReturnConsumedCapacity))}
	for _, w := range writes {
		var old item.Item
		put := w.put
		err := e.mutate(ctx, w.t, w.key, func(cur item.Item) (item.Item, error) {
			old = cur
			if put == nil {
				return nil, nil
			}
			return put, nil
		})
		if err != nil {
			return nil, err
		}
		out.capacity.of(w.t.Name).chargeWrite(w.t, old, put)
		if m := collectionMetrics(w.t, w.ks, in.ReturnItemCollectionMetrics, w.keyV); m != nil {
			if err := e.sizeCollection(ctx, w.t, m); err != nil {
				return nil, err
			}
			if out.metrics == nil {
				out.metrics = map[string][]*itemCollectionMetrics{}
			}
			out.metrics[w.t.Name] = append(out.metrics[w.t.Name], m)
		}
	}
	return out, nil
}

type batchWriteOutput struct {
	capacity *batchCapacity
	metrics  map[string][]*itemCollectionMetrics
}

// AppendJSON implements protocol.Appender.
func (o *batchWriteOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"UnprocessedItems":{}`...)
	if o.capacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.capacity.appendJSON(dst)
	}
	if o.metrics != nil {
		dst = append(dst, `,"ItemCollectionMetrics":{`...)
		for i, name := range sortedKeys(o.metrics) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendQuote(dst, name)
			dst = append(dst, ":["...)
			for j, m := range o.metrics[name] {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = m.appendJSON(dst)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}
