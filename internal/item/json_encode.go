package item

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"
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
		b = appendJSONString(b, v.S)
	case TypeN:
		b = append(b, `{"N":`...)
		b = appendJSONString(b, v.S)
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
			b = appendJSONString(b, s)
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
		b = appendJSONString(b, name)
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

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes that need no escaping.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONString appends s as a JSON string.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		// At most utf8.UTFMax bytes: converting them from a []byte needs
		// no allocation.
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
