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
// row), and when that entry's projected image is unchanged too, the index
// has no IndexChange at all.
type IndexChange struct {
	Index  *Index // points into Table.Indexes
	Delete *IndexRow
	Put    *IndexRow
}

// KeyNames returns the attribute names of a key schema's HASH and RANGE
// elements; rangeKey is "" when there is none.
func KeyNames(ks []KeyElement) (hashKey, rangeKey string) {
	for _, k := range ks {
		switch k.KeyType {
		case "HASH":
			hashKey = k.AttributeName
		case "RANGE":
			rangeKey = k.AttributeName
		}
	}
	return hashKey, rangeKey
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
	hk, rk := KeyNames(t.KeySchema)
	k, ok := encodeKey(t, hk, rk, it)
	if !ok {
		return Key{}, fmt.Errorf("%w (table %s)", ErrMissingKey, t.Name)
	}
	return k, nil
}

// encodeKey encodes the key named (hk, rk) of it; ok is false when an
// attribute is missing or of a type other than its AttributeDefinition.
func encodeKey(t *Table, hk, rk string, it item.Item) (k Key, ok bool) {
	pk, ok := encodeAttr(t, hk, it)
	if !ok {
		return Key{}, false
	}
	k.PK = pk
	if rk != "" {
		if k.SK, ok = encodeAttr(t, rk, it); !ok {
			return Key{}, false
		}
	}
	return k, true
}

func encodeAttr(t *Table, name string, it item.Item) ([]byte, bool) {
	v, ok := it[name]
	if !ok || v.Type.String() != t.AttributeType(name) {
		return nil, false
	}
	return item.EncodeKey(v), true
}

// IndexRowFor returns the entry it has in index ix of t, or nil when the
// item is absent from the index: it is nil, or lacks an index key attribute,
// or holds one with a type other than its AttributeDefinition (a sparse
// index). The projected image shares values with it.
func IndexRowFor(t *Table, ix *Index, it item.Item) *IndexRow {
	if it == nil {
		return nil
	}
	ihk, irk := KeyNames(ix.KeySchema)
	ik, ok := encodeKey(t, ihk, irk, it)
	if !ok {
		return nil
	}
	thk, trk := KeyNames(t.KeySchema)
	tk, ok := encodeKey(t, thk, trk, it)
	if !ok {
		return nil
	}
	return &IndexRow{IndexKey: ik, TableKey: tk, Item: Project(t, ix, it)}
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
	thk, trk := KeyNames(t.KeySchema)
	ihk, irk := KeyNames(ix.KeySchema)
	keep(thk)
	keep(trk)
	keep(ihk)
	keep(irk)
	if ix.Projection.ProjectionType == ProjectInclude {
		for _, name := range ix.Projection.NonKeyAttributes {
			keep(name)
		}
	}
	return out
}

// IndexChanges derives the index maintenance of one item write: old is the
// image before it and new the image after it (nil for an absent item). It
// returns at most one IndexChange per index of t, in t.Indexes order, and
// only for indexes that change. It is pure: every backend persists exactly
// these rows.
func IndexChanges(t *Table, old, new item.Item) []IndexChange {
	var out []IndexChange
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		o := IndexRowFor(t, ix, old)
		n := IndexRowFor(t, ix, new)
		switch {
		case o == nil && n == nil:
			continue
		case o != nil && n != nil && o.SameRow(n):
			if itemsEqual(o.Item, n.Item) {
				continue
			}
			out = append(out, IndexChange{Index: ix, Put: n})
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
