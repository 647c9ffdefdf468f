package item

import (
	"encoding/base64"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// The JSON scanner under the AttributeValue decoder of json.go: whitespace,
// strings, literals, base64, and checked skipping of values nobody reads.

// maxSkipDepth bounds the nesting of JSON that is skipped (unknown members,
// or contents below MaxNestingLevel).
const maxSkipDepth = 10000

type decoder struct {
	buf []byte
	pos int
	// str is a copy of buf, made on first need. Strings without escapes are
	// cut from it, so one allocation serves all of them; they keep only this
	// value's own JSON alive.
	str string
	// raw reports that the last string read had no escapes and lies at
	// buf[rawStart:rawEnd].
	raw              bool
	rawStart, rawEnd int
	// Scratch stacks: a map, list or set gathers its members here and is
	// then allocated at its exact size.
	entries []entry
	values  []AttributeValue
	strs    []string
	bins    [][]byte
}

type entry struct {
	name string
	v    AttributeValue
}

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

// getDecoder returns a pooled decoder reading b; putDecoder returns it.
func getDecoder(b []byte) *decoder {
	d := decoderPool.Get().(*decoder)
	d.buf, d.pos, d.str = b, 0, ""
	return d
}

func putDecoder(d *decoder) {
	d.buf, d.str = nil, ""
	// Members are cleared as they are popped; after an error some remain.
	clear(d.entries)
	clear(d.values)
	clear(d.strs)
	clear(d.bins)
	d.entries, d.values, d.strs, d.bins = d.entries[:0], d.values[:0], d.strs[:0], d.bins[:0]
	if cap(d.entries) > 4096 || cap(d.values) > 4096 || cap(d.strs) > 65536 || cap(d.bins) > 65536 {
		return // let an unusually large decoder go
	}
	decoderPool.Put(d)
}

// takeMap builds a map of the entries from start on and pops them.
func (d *decoder) takeMap(start int) map[string]AttributeValue {
	m := make(map[string]AttributeValue, len(d.entries)-start)
	for _, e := range d.entries[start:] {
		m[e.name] = e.v
	}
	clear(d.entries[start:])
	d.entries = d.entries[:start]
	return m
}

func (d *decoder) skipWS() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end of the input.
func (d *decoder) peek() byte {
	d.skipWS()
	if d.pos < len(d.buf) {
		return d.buf[d.pos]
	}
	return 0
}

func (d *decoder) syntaxError() error {
	if d.pos >= len(d.buf) {
		return ddberr.Serialization("Unexpected end of JSON input")
	}
	return ddberr.Serialization("Unexpected character (" + strconv.QuoteRune(rune(d.buf[d.pos])) +
		") at offset " + strconv.Itoa(d.pos))
}

// expect consumes c (after spaces) or fails.
func (d *decoder) expect(c byte) error {
	if d.peek() != c {
		return d.syntaxError()
	}
	d.pos++
	return nil
}

// literal consumes the keyword lit ("true", "false" or "null").
func (d *decoder) literal(lit string) error {
	if len(d.buf)-d.pos < len(lit) || string(d.buf[d.pos:d.pos+len(lit)]) != lit {
		return d.syntaxError()
	}
	d.pos += len(lit)
	return nil
}

// mismatch is the SerializationException for a JSON value of the wrong kind
// at the current position. scalarMsg is used for strings, numbers and
// booleans when the target is a structure, list or map; otherwise (target
// non-empty) the message names the token and the target type. A malformed
// token is reported as a syntax error instead.
func (d *decoder) mismatch(target, scalarMsg string) error {
	c := d.peek()
	var token string
	switch {
	case c == '{':
		return ddberr.Serialization(msgStartOfMap)
	case c == '[':
		return ddberr.Serialization(msgStartOfList)
	case c == '"':
		token = "STRING_VALUE"
	case c == 't':
		token = "TRUE_VALUE"
	case c == 'f':
		token = "FALSE_VALUE"
	case c == '-' || (c >= '0' && c <= '9'):
		token = "NUMBER_VALUE"
	default:
		return d.syntaxError()
	}
	if err := d.skipValue(0); err != nil {
		return err
	}
	if scalarMsg != "" {
		return ddberr.Serialization(scalarMsg)
	}
	return ddberr.Serialization(token + " cannot be converted to " + target)
}

// readStringBytes reads a JSON string (the current byte is '"'). Without
// escapes the result aliases the input; otherwise it is newly built. Invalid
// UTF-8 and lone surrogates become U+FFFD, as encoding/json decodes them.
func (d *decoder) readStringBytes() ([]byte, error) {
	start := d.pos + 1
	ascii := true
	for i := start; i < len(d.buf); i++ {
		c := d.buf[i]
		switch {
		case c == '"':
			s := d.buf[start:i]
			if !ascii && !utf8.Valid(s) {
				return d.readStringSlow(start)
			}
			d.pos = i + 1
			d.raw, d.rawStart, d.rawEnd = true, start, i
			return s, nil
		case c == '\\':
			return d.readStringSlow(start)
		case c < 0x20:
			d.pos = i
			return nil, d.syntaxError()
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	d.pos = len(d.buf)
	return nil, d.syntaxError()
}

func (d *decoder) readStringSlow(start int) ([]byte, error) {
	d.raw = false
	out := make([]byte, 0, 32)
	i := start
	for i < len(d.buf) {
		c := d.buf[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return out, nil
		case c < 0x20:
			d.pos = i
			return nil, d.syntaxError()
		case c == '\\':
			if i+1 >= len(d.buf) {
				d.pos = len(d.buf)
				return nil, d.syntaxError()
			}
			i++
			switch d.buf[i] {
			case '"', '\\', '/':
				out = append(out, d.buf[i])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.buf, i+1)
				if !ok {
					d.pos = i
					return nil, d.syntaxError()
				}
				i += 4
				if r >= 0xD800 && r < 0xDC00 {
					// A high surrogate; pair it with a following low one.
					if r2, ok := hex4(d.buf, i+3); ok && i+2 < len(d.buf) && d.buf[i+1] == '\\' && d.buf[i+2] == 'u' && r2 >= 0xDC00 && r2 < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else if r >= 0xDC00 && r < 0xE000 {
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				d.pos = i
				return nil, d.syntaxError()
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.buf[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.buf[i:i+size]...)
			}
			i += size
		}
	}
	d.pos = len(d.buf)
	return nil, d.syntaxError()
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// readString reads a JSON string value where target (e.g. "String") is
// expected; other JSON kinds are a SerializationException.
func (d *decoder) readString(target string) (string, error) {
	b, err := d.readStringToken(target)
	if err != nil {
		return "", err
	}
	return d.text(b), nil
}

// text returns the string just read (b) as a string.
func (d *decoder) text(b []byte) string {
	if !d.raw {
		return string(b)
	}
	if d.str == "" {
		d.str = string(d.buf)
	}
	return d.str[d.rawStart:d.rawEnd]
}

func (d *decoder) readStringToken(target string) ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.mismatch(target, "")
	}
	return d.readStringBytes()
}

// skipValue checks and skips one JSON value of any kind.
func (d *decoder) skipValue(depth int) error {
	if depth > maxSkipDepth {
		return ddberr.Serialization("JSON nesting is too deep")
	}
	switch c := d.peek(); {
	case c == '{':
		if d.open('}') {
			return nil
		}
		for {
			if d.peek() != '"' {
				return d.syntaxError()
			}
			if _, err := d.readStringBytes(); err != nil {
				return err
			}
			if err := d.expect(':'); err != nil {
				return err
			}
			if err := d.skipValue(depth + 1); err != nil {
				return err
			}
			if done, err := d.next('}'); err != nil || done {
				return err
			}
		}
	case c == '[':
		if d.open(']') {
			return nil
		}
		for {
			if err := d.skipValue(depth + 1); err != nil {
				return err
			}
			if done, err := d.next(']'); err != nil || done {
				return err
			}
		}
	case c == '"':
		_, err := d.readStringBytes()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.skipNumber()
	}
	return d.syntaxError()
}

// open consumes the opening '{' or '[' at d.pos and reports whether the
// object or array is empty, consuming its closing byte too if so.
func (d *decoder) open(closing byte) bool {
	d.pos++
	if d.peek() == closing {
		d.pos++
		return true
	}
	return false
}

// next consumes ',' (done=false) or the closing byte (done=true).
func (d *decoder) next(closing byte) (bool, error) {
	switch d.peek() {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.syntaxError()
}

// skipNumber skips a JSON number token.
func (d *decoder) skipNumber() error {
	b, i := d.buf, d.pos
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		d.pos = i
		return d.syntaxError()
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			d.pos = i
			return d.syntaxError()
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			d.pos = i
			return d.syntaxError()
		}
	}
	d.pos = i
	return nil
}

// readBool reads a JSON boolean where a Boolean is expected.
func (d *decoder) readBool() (bool, error) {
	switch d.peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	}
	return false, d.mismatch("Boolean", "")
}

// readBinary reads a base64 string. DynamoDB requires padded standard base64;
// the messages are those DynamoDB gave for bad base64 (architect/dynalite's
// validations/index.js, checkType 'Blob').
func (d *decoder) readBinary() ([]byte, error) {
	text, err := d.readStringToken("Blob")
	if err != nil {
		return nil, err
	}
	return decodeBase64(text)
}

func decodeBase64(text []byte) ([]byte, error) {
	blobError := func(detail string) error {
		return ddberr.Serialization("'" + string(text) + "' can not be converted to a Blob: " + detail)
	}
	if len(text)%4 != 0 {
		return nil, blobError("Base64 encoded length is expected a multiple of 4 bytes but found: " + strconv.Itoa(len(text)))
	}
	pad := 0
	for pad < 2 && pad < len(text) && text[len(text)-1-pad] == '=' {
		pad++
	}
	for _, c := range text[:len(text)-pad] {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return nil, blobError("Invalid Base64 character: '" + string(rune(c)) + "'")
		}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Strict().Decode(out, text)
	if err != nil {
		return nil, blobError("Invalid last non-pad Base64 character dectected")
	}
	return out[:n], nil
}
