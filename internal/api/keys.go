package api

import (
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Key limits of DynamoDB.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-partition-sort-keys
const (
	maxHashKeyBytes  = 2048
	maxRangeKeyBytes = 1024
	maxItemBytes     = 400 * 1024
)

// DynamoDB's messages for an item over maxItemBytes: one to write, and
// one an update would leave.
const (
	msgItemTooLarge        = "Item size has exceeded the maximum allowed size"
	msgUpdatedItemTooLarge = "Item size to update has exceeded the maximum allowed size"
)

// checkItemSize refuses an item over maxItemBytes with a
// ValidationException whose message is msg (msgItemTooLarge or
// msgUpdatedItemTooLarge).
func checkItemSize(it item.Item, msg string) error {
	if item.Size(it) > maxItemBytes {
		return ddberr.Validation("%s", msg)
	}
	return nil
}

// keySchema is a table's or index's key, resolved once per request: the
// attribute names and their declared types.
type keySchema struct {
	hash, rng         string    // rng is "" without a sort key
	hashType, rngType item.Type // declared types
	// multi holds every attribute of a global secondary index's
	// multi-attribute key, in KeySchema order (nil otherwise); hash and rng
	// then name the first of each kind.
	multi []keyPart
}

// keyPart is one attribute of a multi-attribute key.
type keyPart struct {
	name string
	typ  item.Type
	hash bool // a partition-key attribute (HASH), else a sort-key one
}

func schemaOf(t *storage.Table, ks []storage.KeyElement) keySchema {
	h, r := storage.KeyNames(ks)
	s := keySchema{hash: h, rng: r}
	s.hashType, _ = item.TypeFromString(t.AttributeType(h))
	if r != "" {
		s.rngType, _ = item.TypeFromString(t.AttributeType(r))
	}
	if isMultiAttribute(ks) {
		for _, k := range ks {
			typ, _ := item.TypeFromString(t.AttributeType(k.AttributeName))
			s.multi = append(s.multi, keyPart{name: k.AttributeName, typ: typ, hash: k.KeyType == "HASH"})
		}
	}
	return s
}

// names returns the key's attribute names, hash key first.
func (s keySchema) names() []string {
	if s.multi != nil {
		out := make([]string, len(s.multi))
		for i, k := range s.multi {
			out[i] = k.name
		}
		return out
	}
	if s.rng == "" {
		return []string{s.hash}
	}
	return []string{s.hash, s.rng}
}

// has reports whether name is one of the key's attributes.
func (s keySchema) has(name string) bool {
	for _, k := range s.multi {
		if k.name == name {
			return true
		}
	}
	return name == s.hash || (s.rng != "" && name == s.rng)
}

// typeOf is the declared type of the table key's attribute i: 0 the
// partition key, 1 the sort key.
func (s keySchema) typeOf(i int) item.Type {
	if i == 1 {
		return s.rngType
	}
	return s.hashType
}

func (s keySchema) size() int {
	if s.rng == "" {
		return 1
	}
	return 2
}

func errKeySchema() error {
	return ddberr.Validation("The provided key element does not match the schema")
}

// checkKeyValueSize applies DynamoDB's key size limits to one key value.
// Numbers are never too large (38 digits fit well below both limits).
func checkKeyValueSize(v item.AttributeValue, hash bool) error {
	n := 0
	switch v.Type {
	case item.TypeS:
		n = len(v.S)
	case item.TypeB:
		n = len(v.B)
	}
	if hash && n > maxHashKeyBytes {
		// Sic: DynamoDB's message has no space before the number.
		// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/exceptions/test_key_length_exceptions.py
		return invalid("Size of hashkey has exceeded the maximum size limit of%d bytes", maxHashKeyBytes)
	}
	if !hash && n > maxRangeKeyBytes {
		return invalid("Aggregated size of all range keys has exceeded the size limit of %d bytes", maxRangeKeyBytes)
	}
	return nil
}

// checkEmptyKeyValue rejects an empty S or B key value with DynamoDB's
// current wording ("are not valid", not "were invalid").
func checkEmptyKeyValue(v item.AttributeValue, name string) error {
	switch {
	case v.Type == item.TypeS && v.S == "":
		return ddberr.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", name)
	case v.Type == item.TypeB && len(v.B) == 0:
		return ddberr.Validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", name)
	}
	return nil
}

// setKeyPart checks the value of key attribute name (the partition key
// for i 0, the sort key for i 1): not empty, not over the size limit; and
// sets its encoding in k.
func setKeyPart(k *storage.Key, i int, name string, v item.AttributeValue) error {
	if err := checkEmptyKeyValue(v, name); err != nil {
		return err
	}
	if err := checkKeyValueSize(v, i == 0); err != nil {
		return err
	}
	if i == 0 {
		k.PK = item.EncodeKey(v)
	} else {
		k.SK = item.EncodeKey(v)
	}
	return nil
}

// tableKey validates the Key member of GetItem, DeleteItem, UpdateItem and
// the batch operations against the table's key schema and returns it
// encoded. The Key must hold exactly the key attributes, each of its declared
// type, non-empty and within the size limits.
func requestKey(t *storage.Table, ks keySchema, key item.Item) (storage.Key, error) {
	if len(key) != ks.size() {
		return storage.Key{}, errKeySchema()
	}
	var k storage.Key
	for i, name := range ks.names() {
		v, ok := key[name]
		want := ks.typeOf(i)
		if !ok || v.Type != want {
			return storage.Key{}, errKeySchema()
		}
	}
	for i, name := range ks.names() {
		v := key[name]
		if err := setKeyPart(&k, i, name, v); err != nil {
			return storage.Key{}, err
		}
	}
	return k, nil
}

// itemKey validates the key attributes of an item to be written (PutItem,
// BatchWriteItem PutRequest) and returns its encoded table key, then checks
// the item's secondary-index key attributes.
func itemKey(t *storage.Table, ks keySchema, it item.Item) (storage.Key, error) {
	var k storage.Key
	for i, name := range ks.names() {
		v, ok := it[name]
		want := ks.typeOf(i)
		if !ok {
			return storage.Key{}, invalid("Missing the key %s in the item", name)
		}
		if v.Type != want {
			return storage.Key{}, invalid("Type mismatch for key %s expected: %s actual: %s", name, want, v.Type)
		}
		if err := setKeyPart(&k, i, name, v); err != nil {
			return storage.Key{}, err
		}
	}
	return k, checkIndexKeys(t, it)
}

// checkIndexKeys validates the secondary-index key attributes an item holds:
// each present one must have its declared type and must not be empty.
// Absent ones leave the item out of that index (a sparse index).
func checkIndexKeys(t *storage.Table, it item.Item) error {
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		for j, ke := range ix.KeySchema {
			name := ke.AttributeName
			v, ok := it[name]
			if !ok {
				continue
			}
			want := t.AttributeType(name)
			if v.Type.String() != want {
				return invalid("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", name, want, v.Type, ix.IndexName)
			}
			if (v.Type == item.TypeS && v.S == "") || (v.Type == item.TypeB && len(v.B) == 0) {
				kind := "string"
				if v.Type == item.TypeB {
					kind = "binary"
				}
				return ddberr.Validation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, ix.IndexName, name)
			}
			if err := checkKeyValueSize(v, j == 0 || ke.KeyType == "HASH"); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyItem returns the key attributes of it (the table's, or with ix the
// index's and the table's), as DynamoDB returns in LastEvaluatedKey and
// ItemCollectionKey.
func keyItem(it item.Item, schemas ...keySchema) item.Item {
	out := make(item.Item, 4)
	for _, s := range schemas {
		for _, n := range s.names() {
			if v, ok := it[n]; ok {
				out[n] = v
			}
		}
	}
	return out
}

// encodeKeyOf encodes the key of schema s held by it; ok is false when it
// lacks an attribute or holds one of another type.
func encodeKeyOf(s keySchema, it item.Item) (k storage.Key, ok bool) {
	if s.multi != nil {
		return encodeMultiKey(s, it)
	}
	h, found := it[s.hash]
	if !found || h.Type != s.hashType {
		return k, false
	}
	k.PK = item.EncodeKey(h)
	if s.rng != "" {
		r, found := it[s.rng]
		if !found || r.Type != s.rngType {
			return k, false
		}
		k.SK = item.EncodeKey(r)
	}
	return k, true
}
