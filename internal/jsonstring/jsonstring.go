// Package jsonstring appends strings as JSON string literals without
// reflection or allocation: as DynamoDB writes attribute values (Append)
// and as encoding/json.Marshal writes them (AppendHTMLSafe). The request
// path writes item values and error bodies with it.
package jsonstring

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// escapes says, for each ASCII byte, what follows the backslash that
// escapes it: 0 for a byte written as it is, 'u' for \u00XX, or the
// character of a short escape (\" \\ \b \f \n \r \t).
type escapes [utf8.RuneSelf]byte

// newEscapes returns the table that escapes '"', '\\' and the control
// characters, the bytes in named by their short escape.
func newEscapes(named string) *escapes {
	var t escapes
	for c := range 0x20 {
		t[c] = 'u'
	}
	t['"'], t['\\'] = '"', '\\'
	for _, c := range []byte(named) {
		t[c] = shortEscapes[c]
	}
	return &t
}

var shortEscapes = map[byte]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

var (
	// dynamoDB: \n, \r and \t named, \b and \f as \u0008 and \u000c.
	dynamoDB = newEscapes("\n\r\t")
	// htmlSafe: encoding/json's, with <, > and & as \u003c, \u003e, \u0026.
	htmlSafe = func() *escapes {
		t := newEscapes("\b\f\n\r\t")
		t['<'], t['>'], t['&'] = 'u', 'u', 'u'
		return t
	}()
)

// Append appends s to dst as a JSON string the way DynamoDB writes one:
// '"' and '\\' with a backslash, \n, \r and \t by name, other control
// characters as \u00XX, invalid UTF-8 as \ufffd, and U+2028 and U+2029 as
// \u2028 and \u2029; <, > and & as they are.
func Append[T string | []byte](dst []byte, s T) []byte {
	return appendEscaped(dst, s, dynamoDB)
}

// AppendHTMLSafe appends s to dst as a JSON string escaped as
// encoding/json.Marshal escapes it: as Append, and also \b and \f by name
// and <, > and & as \u003c, \u003e and \u0026.
func AppendHTMLSafe(dst []byte, s string) []byte {
	return appendEscaped(dst, s, htmlSafe)
}

func appendEscaped[T string | []byte](b []byte, s T, esc *escapes) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			e := esc[c]
			if e == 0 {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			if e == 'u' {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			} else {
				b = append(b, '\\', e)
			}
			i++
			start = i
			continue
		}
		// At most utf8.UTFMax bytes: converting them from a []byte needs
		// no allocation.
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
