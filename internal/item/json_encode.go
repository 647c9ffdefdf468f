package item

import (
	"encoding/base64"
	"slices"

	"github.com/extenddb/extenddb/internal/jsonstring"
)

// Encoding DynamoDB JSON: compact, binaries in padded standard base64,
// numbers as stored (canonical), sets in their stored order. Map members are
// written in ascending name order so the same item always encodes to the same
// bytes. Strings escape only what JSON requires ('"', '\\', control
// characters) plus U+2028 and U+2029; invalid UTF-8 is written as U+FFFD.

// MarshalJSON encodes v in DynamoDB JSON, e.g. {"S":"x"}.
func (v AttributeValue) MarshalJSON() ([]byte, error) {
	return AppendJSON(make([]byte, 0, 64), v), nil
}

// MarshalJSON encodes it as {"name":{...},...}; a nil Item is null.
func (it Item) MarshalJSON() ([]byte, error) {
	if it == nil {
		return []byte("null"), nil
	}
	return AppendItemJSON(make([]byte, 0, 256), it), nil
}

// AppendJSON appends v's DynamoDB JSON to dst. A TypeInvalid value is
// written as {}.
func AppendJSON(dst []byte, v AttributeValue) []byte {
	return appendValueJSON(dst, &v)
}

// AppendItemJSON appends {"name":{...},...} to dst.
func AppendItemJSON(dst []byte, it Item) []byte {
	return appendMapJSON(dst, it)
}

func appendValueJSON(b []byte, v *AttributeValue) []byte {
	switch v.Type {
	case TypeS:
		b = append(b, `{"S":`...)
		b = jsonstring.Append(b, v.S)
	case TypeN:
		b = append(b, `{"N":`...)
		b = jsonstring.Append(b, v.S)
	case TypeB:
		b = append(b, `{"B":"`...)
		b = appendBase64(b, v.B)
		b = append(b, '"')
	case TypeBOOL:
		if v.Bool {
			return append(b, `{"BOOL":true}`...)
		}
		return append(b, `{"BOOL":false}`...)
	case TypeNULL:
		return append(b, `{"NULL":true}`...)
	case TypeM:
		b = append(b, `{"M":`...)
		b = appendMapJSON(b, v.M)
	case TypeL:
		b = append(b, `{"L":[`...)
		for i := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValueJSON(b, &v.L[i])
		}
		b = append(b, ']')
	case TypeSS, TypeNS:
		if v.Type == TypeSS {
			b = append(b, `{"SS":[`...)
		} else {
			b = append(b, `{"NS":[`...)
		}
		for i, s := range v.SS {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstring.Append(b, s)
		}
		b = append(b, ']')
	case TypeBS:
		b = append(b, `{"BS":[`...)
		for i, s := range v.BS {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = appendBase64(b, s)
			b = append(b, '"')
		}
		b = append(b, ']')
	default:
		return append(b, "{}"...)
	}
	return append(b, '}')
}

// sortedNames returns m's keys in ascending order, in buf when it is large
// enough.
func sortedNames(m map[string]AttributeValue, buf []string) []string {
	names := buf[:0]
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func appendMapJSON(b []byte, m map[string]AttributeValue) []byte {
	b = append(b, '{')
	var buf [32]string
	for i, name := range sortedNames(m, buf[:]) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstring.Append(b, name)
		b = append(b, ':')
		v := m[name]
		b = appendValueJSON(b, &v)
	}
	return append(b, '}')
}

// appendBase64 appends src in padded standard base64.
func appendBase64(b []byte, src []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(src))
	b = slices.Grow(b, n)
	base64.StdEncoding.Encode(b[len(b):len(b)+n], src)
	return b[:len(b)+n]
}
