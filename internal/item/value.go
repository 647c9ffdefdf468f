// Package item is DynamoDB's data model: AttributeValue with its ten types,
// items, exact decimal numbers, DynamoDB's item-size formula and the
// order-preserving byte encoding of key values that every storage backend uses.
//
// It has no I/O. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
package item

// Type is an AttributeValue's data type descriptor.
type Type uint8

// The ten DynamoDB data types. TypeInvalid marks a value that decoded as JSON
// but is not a valid AttributeValue; its S field holds DynamoDB's validation
// message (see Validate).
const (
	TypeInvalid Type = iota
	TypeS
	TypeN
	TypeB
	TypeBOOL
	TypeNULL
	TypeM
	TypeL
	TypeSS
	TypeNS
	TypeBS
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns the DynamoDB descriptor: "S", "N", "B", "BOOL", "NULL", "M",
// "L", "SS", "NS" or "BS".
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// TypeFromString is the inverse of Type.String; ok is false for an unknown name.
func TypeFromString(s string) (Type, bool) {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i), true
		}
	}
	return TypeInvalid, false
}

// AttributeValue is one DynamoDB value. Exactly the field(s) matching Type are
// meaningful:
//
//	S     S (a string)
//	N     S (canonical decimal text, see ParseNumber)
//	B     B
//	BOOL  Bool
//	NULL  (nothing; NULL is always true)
//	M     M
//	L     L
//	SS    SS
//	NS    SS (canonical decimal texts)
//	BS    BS
//
// Sets keep the order in which the client sent them.
type AttributeValue struct {
	Type Type
	S    string
	B    []byte
	Bool bool
	L    []AttributeValue
	M    map[string]AttributeValue
	SS   []string
	BS   [][]byte
}

// Item is a DynamoDB item: attribute names to values.
type Item map[string]AttributeValue

// Convenience constructors.

// S returns a String value.
func S(s string) AttributeValue { return AttributeValue{Type: TypeS, S: s} }

// N returns a Number value from text that must already be canonical (see ParseNumber).
func N(canonical string) AttributeValue { return AttributeValue{Type: TypeN, S: canonical} }

// B returns a Binary value.
func B(b []byte) AttributeValue { return AttributeValue{Type: TypeB, B: b} }

// Bool returns a BOOL value.
func Bool(b bool) AttributeValue { return AttributeValue{Type: TypeBOOL, Bool: b} }

// Null returns the NULL value.
func Null() AttributeValue { return AttributeValue{Type: TypeNULL, Bool: true} }

// L returns a List value.
func L(vs ...AttributeValue) AttributeValue { return AttributeValue{Type: TypeL, L: vs} }

// M returns a Map value.
func M(m map[string]AttributeValue) AttributeValue { return AttributeValue{Type: TypeM, M: m} }

// SS returns a String Set value.
func SS(ss ...string) AttributeValue { return AttributeValue{Type: TypeSS, SS: ss} }

// NS returns a Number Set value from canonical number texts.
func NS(ns ...string) AttributeValue { return AttributeValue{Type: TypeNS, SS: ns} }

// BS returns a Binary Set value.
func BS(bs ...[]byte) AttributeValue { return AttributeValue{Type: TypeBS, BS: bs} }
