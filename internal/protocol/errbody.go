package protocol

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// appendErrorBody appends the JSON body of e to dst:
// {"__type":"...","message":"..."}, without "message" when e has none, and
// the members of e.Extra beside them. Errors without extra members (nearly
// all of them, ConditionalCheckFailedException included) are written
// directly, byte for byte what encoding/json writes for the same map
// (members in name order, <, > and & escaped as \u003c, \u003e and \u0026);
// errors with extra members are marshalled by encoding/json.
func appendErrorBody(dst []byte, e *ddberr.Error) ([]byte, error) {
	if len(e.Extra) > 0 {
		body := make(map[string]any, 2+len(e.Extra))
		for k, v := range e.Extra {
			body[k] = v
		}
		body["__type"] = e.Type
		if e.Message != "" {
			body["message"] = e.Message
		}
		out, err := json.Marshal(body)
		return append(dst, out...), err
	}
	dst = append(dst, `{"__type":`...)
	dst = appendHTMLSafeString(dst, e.Type)
	if e.Message != "" {
		dst = append(dst, `,"message":`...)
		dst = appendHTMLSafeString(dst, e.Message)
	}
	return append(dst, '}'), nil
}

const lowerHex = "0123456789abcdef"

// appendHTMLSafeString appends s as a JSON string escaped as
// encoding/json.Marshal escapes it: '"' and '\\' with a backslash, \b, \f,
// \n, \r and \t by name, other control characters and <, > and & as \u00XX,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 as \u2028 and \u2029.
func appendHTMLSafeString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', lowerHex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
