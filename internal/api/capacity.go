package api

import (
	"sort"
	"strconv"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Capacity accounting, as DynamoDB computes it for ReturnConsumedCapacity.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
//
// A write costs one write capacity unit per 1 KB of the larger of the item's
// images before and after, rounded up (at least 1), plus the same for every
// secondary-index entry it puts or deletes. A read costs one read capacity
// unit per 4 KB, rounded up (at least 1), halved when eventually consistent;
// Query and Scan sum the sizes of all items read before rounding.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConsumedCapacity.html

const (
	capNone = iota
	capTotal
	capIndexes
)

// capacityMode parses ReturnConsumedCapacity (already checked against its enum).
func capacityMode(s *string) int {
	if s == nil {
		return capNone
	}
	switch *s {
	case "TOTAL":
		return capTotal
	case "INDEXES":
		return capIndexes
	}
	return capNone
}

func writeUnits(bytes int) float64 {
	u := (bytes + 1023) / 1024
	if u < 1 {
		u = 1
	}
	return float64(u)
}

func readUnits(bytes int, consistent bool) float64 {
	u := float64((bytes + 4095) / 4096)
	if u < 1 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

// consumed is one table's ConsumedCapacity.
type consumed struct {
	mode  int
	table string
	units float64            // the table's own units
	lsi   map[string]float64 // per local secondary index
	gsi   map[string]float64 // per global secondary index
}

func newConsumed(mode int, table string) *consumed {
	return &consumed{mode: mode, table: table}
}

// addIndex charges units to index ix.
func (c *consumed) addIndex(ix *storage.Index, units float64) {
	m := &c.lsi
	if ix.Global {
		m = &c.gsi
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[ix.IndexName] += units
}

// add merges o (same table) into c.
func (c *consumed) add(o *consumed) {
	c.units += o.units
	for k, v := range o.lsi {
		if c.lsi == nil {
			c.lsi = map[string]float64{}
		}
		c.lsi[k] += v
	}
	for k, v := range o.gsi {
		if c.gsi == nil {
			c.gsi = map[string]float64{}
		}
		c.gsi[k] += v
	}
}

func (c *consumed) total() float64 {
	t := c.units
	for _, v := range c.lsi {
		t += v
	}
	for _, v := range c.gsi {
		t += v
	}
	return t
}

// chargeWrite charges one item write: the table for the larger image and
// every index for the entries the write puts or deletes.
func (c *consumed) chargeWrite(t *storage.Table, old, new item.Item) {
	if c == nil {
		return
	}
	size := 0
	if old != nil {
		size = item.Size(old)
	}
	if new != nil {
		if n := item.Size(new); n > size {
			size = n
		}
	}
	c.units += writeUnits(size)
	if len(t.Indexes) == 0 || (old == nil && new == nil) {
		return
	}
	for _, ch := range storage.IndexChanges(t, old, new) {
		u := 0.0
		if ch.Delete != nil {
			u += writeUnits(item.Size(ch.Delete.Item))
		}
		if ch.Put != nil {
			u += writeUnits(item.Size(ch.Put.Item))
		}
		c.addIndex(ch.Index, u)
	}
}

// appendJSON appends the ConsumedCapacity object.
func (c *consumed) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = strconv.AppendQuote(dst, c.table)
	dst = append(dst, `,"CapacityUnits":`...)
	dst = appendUnits(dst, c.total())
	if c.mode == capIndexes {
		dst = append(dst, `,"Table":{"CapacityUnits":`...)
		dst = appendUnits(dst, c.units)
		dst = append(dst, '}')
		dst = appendUnitMap(dst, "LocalSecondaryIndexes", c.lsi)
		dst = appendUnitMap(dst, "GlobalSecondaryIndexes", c.gsi)
	}
	return append(dst, '}')
}

// MarshalJSON lets consumed appear inside responses encoded by encoding/json.
func (c *consumed) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

func appendUnitMap(dst []byte, name string, m map[string]float64) []byte {
	if len(m) == 0 {
		return dst
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, `":{`...)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, k)
		dst = append(dst, `:{"CapacityUnits":`...)
		dst = appendUnits(dst, m[k])
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendUnits writes a capacity as DynamoDB does: always with a fraction
// ("1.0", "0.5").
func appendUnits(dst []byte, v float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, v, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// batchCapacity collects per-table consumption of a batch operation in the
// order tables were first charged.
type batchCapacity struct {
	mode   int
	order  []string
	tables map[string]*consumed
}

func newBatchCapacity(mode int) *batchCapacity {
	if mode == capNone {
		return nil
	}
	return &batchCapacity{mode: mode, tables: map[string]*consumed{}}
}

// of returns the accumulator of table name, or nil when capacity is not
// being reported.
func (b *batchCapacity) of(name string) *consumed {
	if b == nil {
		return nil
	}
	c := b.tables[name]
	if c == nil {
		c = newConsumed(b.mode, name)
		b.tables[name] = c
		b.order = append(b.order, name)
	}
	return c
}

func (b *batchCapacity) appendJSON(dst []byte) []byte {
	dst = append(dst, '[')
	for i, name := range b.order {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = b.tables[name].appendJSON(dst)
	}
	return append(dst, ']')
}
