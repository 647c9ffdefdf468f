package dataformat

import (
	"encoding/base64"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/item"
)

// ionEncoder writes ION data files in Amazon Ion's text form: the version
// marker $ion_1_0 once, then one struct per line, {Item:{...}} or
// {Metadata:{WriteTimestampMicros:...},Keys:{...},NewImage:{...},
// OldImage:{...}}. DynamoDB's types map to Ion's as the export format
// documents
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html):
//
//	S     string          N     decimal
//	B     blob            BOOL  bool
//	NULL  null            M     struct
//	L     list
//	SS    $dynamodb_SS::[strings]
//	NS    $dynamodb_NS::[decimals]
//	BS    $dynamodb_BS::[blobs]
//
// Attribute names are written as Ion strings, which read back as field
// names.
type ionEncoder struct {
	w       io.Writer
	buf     []byte
	started bool
}

func (e *ionEncoder) Encode(r *Record) error {
	b := e.buf[:0]
	if !e.started {
		b = append(b, "$ion_1_0 "...)
		e.started = true
	}
	if !r.Incremental() {
		b = append(b, "{Item:"...)
		b = appendIonItem(b, r.Item)
	} else {
		b = append(b, "{Metadata:{WriteTimestampMicros:"...)
		b = appendIonDecimal(b, strconv.FormatInt(r.WriteTimestampMicros, 10))
		b = append(b, "},Keys:"...)
		b = appendIonItem(b, r.Keys)
		if r.NewImage != nil {
			b = append(b, ",NewImage:"...)
			b = appendIonItem(b, r.NewImage)
		}
		if r.OldImage != nil {
			b = append(b, ",OldImage:"...)
			b = appendIonItem(b, r.OldImage)
		}
	}
	b = append(b, "}\n"...)
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// appendIonItem appends it as an Ion struct, attributes in name order.
func appendIonItem(b []byte, it map[string]item.AttributeValue) []byte {
	names := make([]string, 0, len(it))
	for n := range it {
		names = append(names, n)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIonString(b, n)
		b = append(b, ':')
		b = appendIonValue(b, it[n])
	}
	return append(b, '}')
}

func appendIonValue(b []byte, v item.AttributeValue) []byte {
	switch v.Type {
	case item.TypeS:
		return appendIonString(b, v.S)
	case item.TypeN:
		return appendIonDecimal(b, v.S)
	case item.TypeB:
		return appendIonBlob(b, v.B)
	case item.TypeBOOL:
		return strconv.AppendBool(b, v.Bool)
	case item.TypeNULL:
		return append(b, "null"...)
	case item.TypeM:
		return appendIonItem(b, v.M)
	case item.TypeL:
		b = append(b, '[')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIonValue(b, e)
		}
		return append(b, ']')
	case item.TypeSS, item.TypeNS:
		b = append(b, "$dynamodb_"+v.Type.String()+"::["...)
		for i, s := range v.SS {
			if i > 0 {
				b = append(b, ',')
			}
			if v.Type == item.TypeSS {
				b = appendIonString(b, s)
			} else {
				b = appendIonDecimal(b, s)
			}
		}
		return append(b, ']')
	case item.TypeBS:
		b = append(b, "$dynamodb_BS::["...)
		for i, x := range v.BS {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIonBlob(b, x)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

// appendIonDecimal appends canonical DynamoDB number text (no exponent)
// as an Ion decimal: "103" is written "103.", an Ion int otherwise.
func appendIonDecimal(b []byte, n string) []byte {
	b = append(b, n...)
	if !strings.ContainsRune(n, '.') {
		b = append(b, '.')
	}
	return b
}

func appendIonBlob(b []byte, x []byte) []byte {
	b = append(b, "{{"...)
	b = base64.StdEncoding.AppendEncode(b, x)
	return append(b, "}}"...)
}

// appendIonString appends s as an Ion short string, escaping quotes,
// backslashes and control characters; other characters are UTF-8 as they
// are.
func appendIonString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r)
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
