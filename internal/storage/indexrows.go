package storage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/extenddb/extenddb/internal/item"
)

// Projection types of an Index.
const (
	ProjectAll      = "ALL"
	ProjectKeysOnly = "KEYS_ONLY"
	ProjectInclude  = "INCLUDE"
)

// IndexRow is one entry of a secondary index. Its identity is IndexKey plus
// TableKey: two items may share an index key.
type IndexRow struct {
	IndexKey Key       // encoded index partition key and sort key (SK nil without an index sort key)
	TableKey Key       // encoded base-table key of the item (SK nil without a table sort key)
	Item     item.Item // projected image: table keys, index keys and projected attributes
}

// SameRow reports whether a and b are the same index entry (equal IndexKey
// and TableKey); their projected images may differ.
func (a *IndexRow) SameRow(b *IndexRow) bool {
	return bytes.Equal(a.IndexKey.PK, b.IndexKey.PK) && bytes.Equal(a.IndexKey.SK, b.IndexKey.SK) &&
		bytes.Equal(a.TableKey.PK, b.TableKey.PK) && bytes.Equal(a.TableKey.SK, b.TableKey.SK)
}

// IndexChange is what one item write does to one index: remove Delete, then
// insert or overwrite Put. Either may be nil. When the old and new images
// map to the same entry, only Put is set (never a delete and re-insert of one
// row) and Replaced is the entry's image before the write, so that a backend
// can keep per-index counts; when the projected image is unchanged too, the
// index has no IndexChange at all.
type IndexChange struct {
	Index    *Index // points into Table.Indexes
	Delete   *IndexRow
	Put      *IndexRow
	Replaced *IndexRow // set only with Put and without Delete: the row Put overwrites in place
}

// Maintained reports whether item writes maintain index ix: every index
// except one being deleted (StatusDeleting), whose rows are about to be
// dropped. A CREATING index is maintained from the moment it is in the
// catalog, so that its backfill (see IndexBuilder) only has to copy the
// items written before.
func (ix *Index) Maintained() bool { return ix.Status != StatusDeleting }

// KeyNames returns the attribute names of a key schema's first HASH and
// first RANGE elements; rangeKey is "" when there is none. A multi-attribute
// key (KeyParts) is named by its first attribute of each kind.
func KeyNames(ks []KeyElement) (hashKey, rangeKey string) {
	for _, k := range ks {
		switch {
		case k.KeyType == "HASH" && hashKey == "":
			hashKey = k.AttributeName
		case k.KeyType == "RANGE" && rangeKey == "":
			rangeKey = k.AttributeName
		}
	}
	return hashKey, rangeKey
}

// KeyParts returns the attribute names of a key schema's HASH elements and
// of its RANGE elements, each in schema order. A table or local secondary
// index has one of each at most; a global secondary index may have up to
// four of each (a multi-attribute key).
func KeyParts(ks []KeyElement) (hash, rng []string) {
	for _, k := range ks {
		switch k.KeyType {
		case "HASH":
			hash = append(hash, k.AttributeName)
		case "RANGE":
			rng = append(rng, k.AttributeName)
		}
	}
	return hash, rng
}

// AttributeType returns the declared type ("S", "N" or "B") of a key
// attribute of t, or "" when t does not define it.
func (t *Table) AttributeType(name string) string {
	for _, d := range t.AttributeDefinitions {
		if d.AttributeName == name {
			return d.AttributeType
		}
	}
	return ""
}

// Index returns the index of t named name, or nil.
func (t *Table) Index(name string) *Index {
	for i := range t.Indexes {
		if t.Indexes[i].IndexName == name {
			return &t.Indexes[i]
		}
	}
	return nil
}

// ErrMissingKey is returned by ItemKey for an item that lacks a table key
// attribute or holds it with a type other than its AttributeDefinition.
var ErrMissingKey = errors.New("storage: item lacks a key attribute of its declared type")

// ItemKey returns the encoded table key of it.
func ItemKey(t *Table, it item.Item) (Key, error) {
	hk, rk := KeyParts(t.KeySchema)
	k, ok := encodeKey(t, hk, rk, it)
	if !ok {
		return Key{}, fmt.Errorf("%w (table %s)", ErrMissingKey, t.Name)
	}
	return k, nil
}

// IndexKeyOf returns the encoded key it has in index ix of t; ok is false
// when it lacks an index key attribute or holds one of a type other than its
// AttributeDefinition.
func IndexKeyOf(t *Table, ix *Index, it item.Item) (k Key, ok bool) {
	hk, rk := KeyParts(ix.KeySchema)
	return encodeKey(t, hk, rk, it)
}

// encodeKey encodes the key made of the attributes hk (partition) and rk
// (sort) of it; ok is false when an attribute is missing or of a type other
// than its AttributeDefinition.
func encodeKey(t *Table, hk, rk []string, it item.Item) (k Key, ok bool) {
	if k.PK, ok = encodeParts(t, hk, it); !ok {
		return Key{}, false
	}
	if len(rk) > 0 {
		if k.SK, ok = encodeParts(t, rk, it); !ok {
			return Key{}, false
		}
	}
	return k, true
}

// encodeParts encodes one side of a key: a single attribute as
// item.EncodeKey, several as EncodeComposite.
func encodeParts(t *Table, names []string, it item.Item) ([]byte, bool) {
	if len(names) == 0 {
		return nil, false
	}
	vals := make([]item.AttributeValue, len(names))
	for i, name := range names {
		v, ok := it[name]
		if !ok || v.Type.String() != t.AttributeType(name) {
			return nil, false
		}
		vals[i] = v
	}
	if len(vals) == 1 {
		return item.EncodeKey(vals[0]), true
	}
	return EncodeComposite(vals), true
}

// Largest String or Binary key attribute values, in bytes.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-partition-sort-keys
const (
	MaxPartitionKeyBytes = 2048
	MaxSortKeyBytes      = 1024
)

// IndexRowFor returns the entry it has in index ix of t, or nil when the
// item is absent from the index: it is nil, or lacks an index key attribute,
// or holds one with a type other than its AttributeDefinition (a sparse
// index; with a multi-attribute key, every attribute must be present), or
// holds an index key value the index cannot take (see KeyValueViolation).
// Writes refuse the last two; items written before a global secondary index
// was added can have them, and its backfill leaves them out of the index,
// as DynamoDB does with index key violations. The projected image shares
// values with it.
func IndexRowFor(t *Table, ix *Index, it item.Item) *IndexRow {
	if it == nil {
		return nil
	}
	ik, ok := IndexKeyOf(t, ix, it)
	if !ok || keyViolation(ix, it) {
		return nil
	}
	thk, trk := KeyParts(t.KeySchema)
	tk, ok := encodeKey(t, thk, trk, it)
	if !ok {
		return nil
	}
	return &IndexRow{IndexKey: ik, TableKey: tk, Item: Project(t, ix, it)}
}

// KeyValueViolation reports whether v, a String or Binary value of a
// partition key (hash true) or sort key attribute, is one no key can hold:
// empty, or longer than MaxPartitionKeyBytes or MaxSortKeyBytes.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.ViolationDetection.html
func KeyValueViolation(v item.AttributeValue, hash bool) bool {
	n := -1
	switch v.Type {
	case item.TypeS:
		n = len(v.S)
	case item.TypeB:
		n = len(v.B)
	}
	limit := MaxSortKeyBytes
	if hash {
		limit = MaxPartitionKeyBytes
	}
	return n == 0 || n > limit
}

// keyViolation reports whether it holds a value for a key attribute of ix
// that violates the index key (KeyValueViolation).
func keyViolation(ix *Index, it item.Item) bool {
	for _, k := range ix.KeySchema {
		if v, ok := it[k.AttributeName]; ok && KeyValueViolation(v, k.KeyType == "HASH") {
			return true
		}
	}
	return false
}

// Project returns the image index ix stores for it: everything for ALL;
// the table and index key attributes for KEYS_ONLY; those plus the
// NonKeyAttributes it has for INCLUDE. Values are shared with it.
func Project(t *Table, ix *Index, it item.Item) item.Item {
	if ix.Projection.ProjectionType == ProjectAll || ix.Projection.ProjectionType == "" {
		return it
	}
	out := make(item.Item, 4+len(ix.Projection.NonKeyAttributes))
	keep := func(name string) {
		if v, ok := it[name]; ok && name != "" {
			out[name] = v
		}
	}
	for _, k := range t.KeySchema {
		keep(k.AttributeName)
	}
	for _, k := range ix.KeySchema {
		keep(k.AttributeName)
	}
	if ix.Projection.ProjectionType == ProjectInclude {
		for _, name := range ix.Projection.NonKeyAttributes {
			keep(name)
		}
	}
	return out
}

// IndexChanges derives the index maintenance of one item write: old is the
// image before it and new the image after it (nil for an absent item). It
// returns at most one IndexChange per maintained index of t (see
// Index.Maintained), in t.Indexes order, and only for indexes that change.
// It is pure: every backend persists exactly these rows.
func IndexChanges(t *Table, old, new item.Item) []IndexChange {
	return indexChanges(t, old, new, false)
}

// IndexRewrites is IndexChanges plus, for every maintained index whose row
// keeps its key and projected image from old to new, a Put of that row
// (with Replaced, as for a changed image) where IndexChanges has none: a
// write that stores every index row of new. It never deletes and puts one
// row in one change. For a backend whose index rows follow the item's
// commit outside its transaction (Cassandra), so that a row of the stored
// image may be missing after a crash, and a rewrite must restore it; see
// docs/adr/0018j-cassandra-fills-rewrite-index-rows.md.
func IndexRewrites(t *Table, old, new item.Item) []IndexChange {
	return indexChanges(t, old, new, true)
}

// indexChanges is IndexChanges, with IndexRewrites' unchanged rows when
// rewrite is set.
func indexChanges(t *Table, old, new item.Item, rewrite bool) []IndexChange {
	var out []IndexChange
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Maintained() {
			continue
		}
		o := IndexRowFor(t, ix, old)
		n := IndexRowFor(t, ix, new)
		switch {
		case o == nil && n == nil:
			continue
		case o != nil && n != nil && o.SameRow(n):
			if !rewrite && itemsEqual(o.Item, n.Item) {
				continue
			}
			out = append(out, IndexChange{Index: ix, Put: n, Replaced: o})
		default:
			out = append(out, IndexChange{Index: ix, Delete: o, Put: n})
		}
	}
	return out
}

// itemsEqual reports whether a and b hold the same attributes with equal
// values (item.Equal: sets compare as sets).
func itemsEqual(a, b item.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !item.Equal(av, bv) {
			return false
		}
	}
	return true
}

// Multi-attribute keys. A key side made of several attributes is stored as
// one byte string: each value's item.EncodeKey bytes, escaped so that 0x00
// becomes 00 01 and 0xFF becomes FF 00, then terminated by 00 00. The
// encoding is injective and order-preserving (tuples compare attribute by
// attribute, a shorter value first), no encoding contains FF FF, and no
// component is a prefix of another, so equality on the first attributes is
// a byte prefix and a condition on the next one a byte range.
// See docs/adr/0004-secondary-indexes.md.

// EncodeComposite encodes the values of a multi-attribute key side.
func EncodeComposite(vals []item.AttributeValue) []byte {
	var out []byte
	for _, v := range vals {
		out = AppendComponent(out, item.EncodeKey(v))
	}
	return out
}

// AppendComponent appends one escaped, terminated component (the
// item.EncodeKey bytes of a value) to dst.
func AppendComponent(dst, enc []byte) []byte {
	dst = AppendEscaped(dst, enc)
	return append(dst, 0x00, 0x00)
}

// AppendEscaped appends enc escaped but not terminated: the encoding of
// every component whose value begins with enc begins with it.
func AppendEscaped(dst, enc []byte) []byte {
	for _, c := range enc {
		switch c {
		case 0x00:
			dst = append(dst, 0x00, 0x01)
		case 0xFF:
			dst = append(dst, 0xFF, 0x00)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// CompositeMax is a byte string greater than every encoded component
// sequence: appended to a prefix it bounds, inclusively, the keys that
// begin with that prefix.
var CompositeMax = []byte{0xFF, 0xFF}
