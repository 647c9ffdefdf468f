package protocol

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// checkJSONBody refuses a body that is not one JSON object of valid UTF-8,
// the way DynamoDB's front end does, before any operation reads it:
//
//   - not JSON at all, or a top-level null, string, number or boolean:
//     SerializationException with no message;
//   - a top-level array: SerializationException "Start of list found where
//     not expected" (https://github.com/rusoto/rusoto/issues/658 quotes it);
//   - bytes that are not UTF-8, or a \u escape of half a surrogate pair
//     (which would otherwise be replaced by U+FFFD and merge distinct keys
//     such as "k\xff" and "k\xfe" into one item): SerializationException
//     with no message, as DynamoDB answered text sent in another encoding
//     (https://github.com/aws/aws-sdk-js/issues/46).
//
// An empty body is left to the operation, which answers it.
func checkJSONBody(body []byte) error {
	if len(body) == 0 {
		return nil
	}
	if !json.Valid(body) || !utf8.Valid(body) || hasLoneSurrogate(body) {
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

// hasLoneSurrogate reports whether valid JSON text b has a string with a
// \uD800-\uDFFF escape that is not a high surrogate followed by a low one.
func hasLoneSurrogate(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if b[i+1] != 'u' {
				i++
				continue
			}
			r := hex4(b[i+2 : i+6])
			i += 5
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return true
			case r >= 0xD800 && r <= 0xDBFF:
				if i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
					return true
				}
				if lo := hex4(b[i+3 : i+7]); lo < 0xDC00 || lo > 0xDFFF {
					return true
				}
				i += 6
			}
		}
	}
	return false
}

// hex4 decodes four hex digits (already validated by json.Valid).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
