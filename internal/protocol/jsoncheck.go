package protocol

import (
	"bytes"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// checkJSONBody refuses a body that is not one JSON object of valid UTF-8,
// the way DynamoDB's front end does, before any operation reads it:
//
//   - a top-level null, string, number or boolean, or text that does not
//     start like JSON: SerializationException with no message (the
//     operation's decoding answers the same for an object that is not
//     well-formed JSON);
//   - a top-level array: SerializationException "Start of list found where
//     not expected" (https://github.com/rusoto/rusoto/issues/658 quotes it);
//   - bytes that are not UTF-8, or a \u escape of half a surrogate pair
//     (which would otherwise be replaced by U+FFFD and merge distinct keys
//     such as "k\xff" and "k\xfe" into one item): SerializationException
//     with no message, as DynamoDB answered text sent in another encoding
//     (https://github.com/aws/aws-sdk-js/issues/46).
//
// An empty body is left to the operation, which answers it. Full JSON
// syntax is left to the operation's decoding, which reads every byte
// anyway.
func checkJSONBody(body []byte) error {
	if len(body) == 0 {
		return nil
	}
	if !utf8.Valid(body) || hasLoneSurrogate(body) {
		return ddberr.Serialization("")
	}
	switch firstByte(body) {
	case '{':
		return nil
	case '[':
		return ddberr.Serialization("Start of list found where not expected")
	}
	return ddberr.Serialization("")
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// hasLoneSurrogate reports whether b has a \uD800-\uDFFF escape that is not
// a high surrogate followed by a low one. In JSON a backslash only appears
// in strings, as an escape, so no string state is needed.
func hasLoneSurrogate(b []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return false
		}
		i += j
		if i+1 >= len(b) {
			return false
		}
		if b[i+1] != 'u' {
			i += 2
			continue
		}
		r, ok := hex4(b, i+2)
		if !ok {
			return false // not JSON; the operation's decoding refuses it
		}
		i += 6
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
				return true
			}
			if lo, ok := hex4(b, i+2); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 6
		}
	}
}

// hex4 decodes the four hex digits at b[at:], reporting whether they are.
func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
