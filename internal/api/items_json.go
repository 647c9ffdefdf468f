package api

import (
	"strconv"

	"github.com/extenddb/extenddb/internal/item"
)

// Response encoders of the item operations. They implement
// protocol.Appender so the hot paths never go through reflection.

// itemCollectionMetrics is ItemCollectionMetrics for a table with local
// secondary indexes.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html
type itemCollectionMetrics struct {
	key  item.Item // the partition key of the item collection
	size int64     // bytes, from the backend (index_collection.go)
}

func (m *itemCollectionMetrics) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"ItemCollectionKey":`...)
	dst = item.AppendItemJSON(dst, m.key)
	// The size of an item collection is an estimate DynamoDB gives as a
	// range in gigabytes.
	dst = append(dst, `,"SizeEstimateRangeGB":`...)
	return append(appendSizeEstimate(dst, m.size), '}')
}

// writeOutput is the response of PutItem, UpdateItem and DeleteItem.
type writeOutput struct {
	attributes item.Item
	capacity   *consumed
	metrics    *itemCollectionMetrics
}

// AppendJSON implements protocol.Appender.
func (o *writeOutput) AppendJSON(dst []byte) []byte {
	dst = appendItemAndCapacity(append(dst, '{'), "Attributes", o.attributes, o.capacity)
	if o.metrics != nil {
		dst = o.metrics.appendJSON(appendMember(dst, "ItemCollectionMetrics"))
	}
	return append(dst, '}')
}

// getItemOutput is the response of GetItem.
type getItemOutput struct {
	item     item.Item
	capacity *consumed
}

// AppendJSON implements protocol.Appender.
func (o *getItemOutput) AppendJSON(dst []byte) []byte {
	return append(appendItemAndCapacity(append(dst, '{'), "Item", o.item, o.capacity), '}')
}

// appendItemAndCapacity appends the members an item operation's response
// starts with: the item as member name (when there is one), then
// ConsumedCapacity (when reported).
func appendItemAndCapacity(dst []byte, name string, it item.Item, capacity *consumed) []byte {
	if it != nil {
		dst = item.AppendItemJSON(appendMember(dst, name), it)
	}
	if capacity != nil {
		dst = capacity.appendJSON(appendMember(dst, "ConsumedCapacity"))
	}
	return dst
}

// appendMember starts a member of the JSON object whose text dst ends
// with: a comma unless it is the object's first member, then the member's
// quoted name and a colon.
func appendMember(dst []byte, name string) []byte {
	if dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = append(append(append(dst, '"'), name...), '"', ':')
	return dst
}

// readOutput is the response of Query and Scan.
type readOutput struct {
	items []item.Item
	// itemsJSON, when not nil, holds the Items instead, encoded and
	// separated by commas (query_raw.go).
	itemsJSON    []byte
	count        bool // Select COUNT: no Items member
	n, scanned   int
	lastKey      item.Item
	capacity     *consumed
	approxLength int
}

// AppendJSON implements protocol.Appender.
func (o *readOutput) AppendJSON(dst []byte) []byte {
	if need := o.approxLength + len(o.itemsJSON); cap(dst)-len(dst) < need {
		grown := make([]byte, len(dst), len(dst)+need+256)
		copy(grown, dst)
		dst = grown
	}
	dst = append(dst, '{')
	if !o.count {
		dst = append(dst, `"Items":[`...)
		dst = append(dst, o.itemsJSON...)
		for i, it := range o.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = item.AppendItemJSON(dst, it)
		}
		dst = append(dst, "],"...)
	}
	dst = append(dst, `"Count":`...)
	dst = strconv.AppendInt(dst, int64(o.n), 10)
	dst = append(dst, `,"ScannedCount":`...)
	dst = strconv.AppendInt(dst, int64(o.scanned), 10)
	if o.lastKey != nil {
		dst = append(dst, `,"LastEvaluatedKey":`...)
		dst = item.AppendItemJSON(dst, o.lastKey)
	}
	if o.capacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.capacity.appendJSON(dst)
	}
	return append(dst, '}')
}
