package api

import (
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// maxAttributeNameBytes is the longest attribute name DynamoDB accepts, in
// UTF-8 bytes: names must be 1 byte to 64 KB long, and 65,535 is the last
// length the service accepts.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes
const maxAttributeNameBytes = 65535

// checkAttributeName refuses an empty or over-long attribute name. The
// over-long answer is the service's, recorded for top-level names, nested
// map keys and expression attribute names
// (https://github.com/ExtendDB/extenddb/issues/365, measured 2026-09-16);
// the empty one uses the words of DynamoDB Local's error table and of
// scylladb's test_limit_attribute_length_nonkey_empty, run against
// DynamoDB, in the same form (docs/differences-from-dynamodb.md).
func checkAttributeName(name string) error {
	switch {
	case name == "":
		return ddberr.Validation("1 validation error detected: Empty attribute name")
	case len(name) > maxAttributeNameBytes:
		return ddberr.Validation("1 validation error detected: Attribute name is too large, must be less than 65536 bytes")
	}
	return nil
}

// checkItem checks an item written whole (PutItem, a BatchWriteItem
// PutRequest, a TransactWriteItems Put): its names, then its values.
func checkItem(it item.Item) error {
	if err := checkItemNames(it); err != nil {
		return err
	}
	return validateItemValues(it)
}

// checkItemNames checks the names of an item's attributes and, at every
// depth, the keys of its maps.
func checkItemNames(it item.Item) error {
	for name, v := range it {
		if err := checkAttributeName(name); err != nil {
			return err
		}
		if err := checkNestedNames(v); err != nil {
			return err
		}
	}
	return nil
}

// checkNestedNames checks the map keys within v, at every depth.
func checkNestedNames(v item.AttributeValue) error {
	for name, m := range v.M {
		if err := checkAttributeName(name); err != nil {
			return err
		}
		if err := checkNestedNames(m); err != nil {
			return err
		}
	}
	for _, l := range v.L {
		if err := checkNestedNames(l); err != nil {
			return err
		}
	}
	return nil
}
