package api

import (
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Multi-attribute keys of global secondary indexes: a KeySchema of up to
// four HASH elements followed by up to four RANGE elements.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html
const (
	maxKeyParts         = 4
	maxGSIKeySchemaSize = 2 * maxKeyParts
)

// checkGSIKeySchema applies the key-schema rules of a global secondary
// index. A classic schema (one HASH, optionally one RANGE) gets the same
// checks and messages as a table's; a multi-attribute one is checked for
// definitions, order, per-kind counts and repeated names.
func checkGSIKeySchema(in []keySchemaElement, defs map[string]string, defNames []string) ([]storage.KeyElement, error) {
	hashes, ranges := 0, 0
	for _, k := range in {
		if *k.KeyType == "HASH" {
			hashes++
		} else {
			ranges++
		}
	}
	if hashes <= 1 && ranges <= 1 {
		return checkKeySchema(in, defs, defNames)
	}
	names := make([]string, len(in))
	for i, k := range in {
		names[i] = *k.AttributeName
	}
	for _, n := range names {
		if _, ok := defs[n]; !ok {
			return nil, invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(names, ", "), strings.Join(defNames, ", "))
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, ddberr.Validation("Invalid KeySchema: Some index key attribute names are repeated: %s", n)
		}
		seen[n] = true
	}
	if *in[0].KeyType != "HASH" {
		return nil, ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	sawRange := false
	for _, k := range in {
		if *k.KeyType == "RANGE" {
			sawRange = true
		} else if sawRange {
			return nil, ddberr.Validation("Invalid KeySchema: HASH key elements must precede RANGE key elements")
		}
	}
	if hashes > maxKeyParts || ranges > maxKeyParts {
		return nil, ddberr.Validation("Invalid KeySchema: A global secondary index key can have at most %d HASH and %d RANGE elements", maxKeyParts, maxKeyParts)
	}
	out := make([]storage.KeyElement, len(in))
	for i, k := range in {
		out[i] = storage.KeyElement{AttributeName: *k.AttributeName, KeyType: *k.KeyType}
	}
	return out, nil
}

// isMultiAttribute reports whether a key schema has more than one HASH or
// more than one RANGE element.
func isMultiAttribute(ks []storage.KeyElement) bool {
	h, r := storage.KeyParts(ks)
	return len(h) > 1 || len(r) > 1
}
