package item

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"sync"
)

// The storage encoding of items. It is stored and must stay readable: change
// it only by adding a new version byte and keeping the old decoder.
//
// Version 1:
//
//	item   = 0x01 map
//	map    = uvarint(count) { string(name) value }   names in ascending order
//	value  = tag payload
//	string = uvarint(len) bytes
//
// with these tags and payloads:
//
//	1 S     string
//	2 N     string (canonical number text)
//	3 B     string (raw bytes)
//	4 BOOL false, 5 BOOL true, 6 NULL: no payload
//	7 M     map
//	8 L     uvarint(count) { value }
//	9 SS, 10 NS, 11 BS: uvarint(count) { string }
//
// TypeInvalid values are not stored: MarshalItem leaves them out.

const codecVersion1 = 1

const (
	tagS = iota + 1
	tagN
	tagB
	tagFalse
	tagTrue
	tagNULL
	tagM
	tagL
	tagSS
	tagNS
	tagBS
)

// maxCodecDepth bounds the nesting UnmarshalItem accepts; DynamoDB stores at
// most 32 levels.
const maxCodecDepth = 64

// MarshalItem encodes an item for storage (compact binary, versioned). The
// same item always encodes to the same bytes.
func MarshalItem(it Item) []byte {
	bp := encodeBuffers.Get().(*[]byte)
	b := AppendItem((*bp)[:0], it)
	out := append(make([]byte, 0, len(b)), b...)
	if cap(b) <= 1<<20 {
		*bp = b
		encodeBuffers.Put(bp)
	}
	return out
}

// encodeBuffers holds scratch buffers for MarshalItem, which encodes into one
// and returns an exact-size copy.
var encodeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// AppendItem appends MarshalItem's encoding of it to dst, for callers that
// reuse a buffer.
func AppendItem(dst []byte, it Item) []byte {
	return appendMapBinary(append(dst, codecVersion1), it)
}

func stored(v AttributeValue) bool { return v.Type != TypeInvalid && v.Type <= TypeBS }

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendMapBinary(b []byte, m map[string]AttributeValue) []byte {
	var buf [32]string
	names := buf[:0]
	for k, v := range m {
		if stored(v) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, name := range names {
		b = appendString(b, name)
		v := m[name]
		b = appendValueBinary(b, &v)
	}
	return b
}

func appendValueBinary(b []byte, v *AttributeValue) []byte {
	switch v.Type {
	case TypeS:
		return appendString(append(b, tagS), v.S)
	case TypeN:
		return appendString(append(b, tagN), v.S)
	case TypeB:
		b = binary.AppendUvarint(append(b, tagB), uint64(len(v.B)))
		return append(b, v.B...)
	case TypeBOOL:
		if v.Bool {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case TypeNULL:
		return append(b, tagNULL)
	case TypeM:
		return appendMapBinary(append(b, tagM), v.M)
	case TypeL:
		n := 0
		for i := range v.L {
			if stored(v.L[i]) {
				n++
			}
		}
		b = binary.AppendUvarint(append(b, tagL), uint64(n))
		for i := range v.L {
			if stored(v.L[i]) {
				b = appendValueBinary(b, &v.L[i])
			}
		}
		return b
	case TypeSS, TypeNS:
		tag := byte(tagSS)
		if v.Type == TypeNS {
			tag = tagNS
		}
		b = binary.AppendUvarint(append(b, tag), uint64(len(v.SS)))
		for _, s := range v.SS {
			b = appendString(b, s)
		}
		return b
	case TypeBS:
		b = binary.AppendUvarint(append(b, tagBS), uint64(len(v.BS)))
		for _, s := range v.BS {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		return b
	}
	return b
}

var errCorruptItem = errors.New("item: corrupt stored item")

// storedCursor walks MarshalItem's encoding in place: lengths and counts,
// checked against what is left of the input.
type storedCursor struct {
	src []byte
	pos int
}

func (r *storedCursor) uvarint() (int, error) {
	var x uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if r.pos >= len(r.src) {
			return 0, errCorruptItem
		}
		c := r.src[r.pos]
		r.pos++
		if c < 0x80 {
			x |= uint64(c) << shift
			if x > uint64(len(r.src)) {
				return 0, errCorruptItem // no length or count can exceed the input
			}
			return int(x), nil
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, errCorruptItem
}

// span reads a length and returns the bounds of that many following bytes.
func (r *storedCursor) span() (int, int, error) {
	n, err := r.uvarint()
	if err != nil {
		return 0, 0, err
	}
	if n > len(r.src)-r.pos {
		return 0, 0, errCorruptItem
	}
	start := r.pos
	r.pos += n
	return start, r.pos, nil
}

// count reads an element count, each element taking at least min bytes.
func (r *storedCursor) count(min int) (int, error) {
	n, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if n*min > len(r.src)-r.pos {
		return 0, errCorruptItem
	}
	return n, nil
}

// tag reads a value's tag at nesting depth.
func (r *storedCursor) tag(depth int) (byte, error) {
	if r.pos >= len(r.src) || depth > maxCodecDepth {
		return 0, errCorruptItem
	}
	r.pos++
	return r.src[r.pos-1], nil
}

// itemReader decodes MarshalItem's output. Strings are cut from one copy of
// the input (s, a copy of src from offset base on), so decoding allocates
// once for all of them; binaries are cut from a second copy (bin), made
// only when the item holds any.
type itemReader struct {
	storedCursor
	s    string
	base int
	bin  []byte
}

// UnmarshalItem decodes MarshalItem's output. Corrupt input is an error,
// never a panic.
func UnmarshalItem(b []byte) (Item, error) {
	if err := checkVersion(b); err != nil {
		return nil, err
	}
	r := itemReader{s: string(b), storedCursor: storedCursor{src: b, pos: 1}}
	m, err := r.readMap(0)
	if err != nil {
		return nil, err
	}
	if r.pos != len(r.src) {
		return nil, errCorruptItem
	}
	return m, nil
}

// checkVersion checks the version byte of a stored item.
func checkVersion(b []byte) error {
	if len(b) == 0 {
		return errCorruptItem
	}
	if b[0] != codecVersion1 {
		return errors.New("item: unknown stored item version " + strconv.Itoa(int(b[0])))
	}
	return nil
}

func (r *itemReader) str() (string, error) {
	i, j, err := r.span()
	if err != nil {
		return "", err
	}
	return r.s[i-r.base : j-r.base], nil
}

func (r *itemReader) bytes() ([]byte, error) {
	i, j, err := r.span()
	if err != nil {
		return nil, err
	}
	if r.bin == nil {
		r.bin = append([]byte(nil), r.src...)
	}
	return r.bin[i:j:j], nil
}

func (r *itemReader) readMap(depth int) (map[string]AttributeValue, error) {
	n, err := r.count(2)
	if err != nil {
		return nil, err
	}
	m := make(map[string]AttributeValue, n)
	for i := 0; i < n; i++ {
		name, err := r.str()
		if err != nil {
			return nil, err
		}
		v, err := r.readValue(depth)
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	return m, nil
}

func (r *itemReader) readValue(depth int) (AttributeValue, error) {
	tag, err := r.tag(depth)
	if err != nil {
		return AttributeValue{}, err
	}
	var v AttributeValue
	switch tag {
	case tagS:
		v.Type = TypeS
		v.S, err = r.str()
	case tagN:
		v.Type = TypeN
		v.S, err = r.str()
	case tagB:
		v.Type = TypeB
		v.B, err = r.bytes()
	case tagFalse, tagTrue:
		v.Type = TypeBOOL
		v.Bool = tag == tagTrue
	case tagNULL:
		v = Null()
	case tagM:
		v.Type = TypeM
		v.M, err = r.readMap(depth + 1)
	case tagL:
		v.Type = TypeL
		var n int
		if n, err = r.count(1); err == nil {
			v.L = make([]AttributeValue, n)
			for i := 0; i < n && err == nil; i++ {
				v.L[i], err = r.readValue(depth + 1)
			}
		}
	case tagSS, tagNS:
		v.Type = TypeSS
		if tag == tagNS {
			v.Type = TypeNS
		}
		var n int
		if n, err = r.count(1); err == nil {
			v.SS = make([]string, n)
			for i := 0; i < n && err == nil; i++ {
				v.SS[i], err = r.str()
			}
		}
	case tagBS:
		v.Type = TypeBS
		var n int
		if n, err = r.count(1); err == nil {
			v.BS = make([][]byte, n)
			for i := 0; i < n && err == nil; i++ {
				v.BS[i], err = r.bytes()
			}
		}
	default:
		return AttributeValue{}, errCorruptItem
	}
	if err != nil {
		return AttributeValue{}, err
	}
	return v, nil
}
