package item

import (
	"errors"
	"strconv"
)

// Key encoding. Every storage backend orders keys by the unsigned
// lexicographic order of these bytes, so the encoding of each key type must
// order exactly as DynamoDB sorts that type: S by UTF-8 bytes, B by unsigned
// bytes, N numerically. The format is stored and must never change.
//
// S is its UTF-8 bytes and B its raw bytes.
//
// N is:
//
//	zero:      0x02
//	positive:  0x03, pt+129, digit pairs as p+1 (1..100), terminator 0x00
//	negative:  0x01, 126-pt, digit pairs as 254-p (155..254), terminator 0xFF
//
// where the number is 0.d1d2d3… × 10^pt (d1 non-zero, pt in -129..126, so
// pt+129 fits a byte) and the significant digits are taken two at a time,
// p = 10*d1+d2, the last pair padded with a zero. Since canonical digits end
// in a non-zero digit, the padded form is unambiguous. For positives a larger
// exponent, then larger digits, then more digits sort higher; the 0x00
// terminator sorts below every pair, so 0.12 < 0.123. Negatives complement
// all of it and end in 0xFF, so -0.123 < -0.12. Every N encoding ends at its
// terminator, so no encoding is a proper prefix of another.

const (
	keyNegative = 0x01
	keyZero     = 0x02
	keyPositive = 0x03
	expBias     = 129 // pt + expBias is in 0..255
)

// EncodeKey encodes an S, N or B key value as bytes whose unsigned
// lexicographic order is DynamoDB's order for that type. N must hold a valid
// number (canonical or not). Other types encode as nil.
func EncodeKey(v AttributeValue) []byte {
	switch v.Type {
	case TypeS:
		return []byte(v.S)
	case TypeB:
		return append(make([]byte, 0, len(v.B)), v.B...)
	case TypeN:
		return AppendNumberKey(nil, v.S)
	}
	return nil
}

// AppendNumberKey appends the key encoding of number text s (see EncodeKey).
func AppendNumberKey(dst []byte, s string) []byte {
	x, _ := parseDecimal(s)
	if x.n == 0 {
		return append(dst, keyZero)
	}
	n := min(x.n, maxNumberDigits)
	pt := min(max(x.pt, -expBias), 255-expBias)
	if x.neg {
		dst = append(dst, keyNegative, byte(255-expBias-pt))
	} else {
		dst = append(dst, keyPositive, byte(pt+expBias))
	}
	for i := 0; i < n; i += 2 {
		p := (x.d[i] - '0') * 10
		if i+1 < n {
			p += x.d[i+1] - '0'
		}
		if x.neg {
			dst = append(dst, 254-p)
		} else {
			dst = append(dst, p+1)
		}
	}
	if x.neg {
		return append(dst, 0xFF)
	}
	return append(dst, 0x00)
}

var errCorruptKey = errors.New("item: corrupt number key")

// DecodeKey inverts EncodeKey for a value of type t. Numbers come back in
// canonical form. A malformed encoding is an error (not a client error:
// storage handed back bytes EncodeKey did not write).
func DecodeKey(t Type, b []byte) (AttributeValue, error) {
	switch t {
	case TypeS:
		return S(string(b)), nil
	case TypeB:
		return B(append(make([]byte, 0, len(b)), b...)), nil
	case TypeN:
		s, err := decodeNumberKey(b)
		if err != nil {
			return AttributeValue{}, err
		}
		return N(s), nil
	}
	return AttributeValue{}, errors.New("item: DecodeKey of non-key type " + strconv.Itoa(int(t)))
}

func decodeNumberKey(b []byte) (string, error) {
	if len(b) == 1 && b[0] == keyZero {
		return "0", nil
	}
	if len(b) < 4 || (b[0] != keyNegative && b[0] != keyPositive) {
		return "", errCorruptKey
	}
	var x decimal
	x.neg = b[0] == keyNegative
	body, term := b[2:len(b)-1], b[len(b)-1]
	if x.neg {
		x.pt = 255 - expBias - int(b[1])
		if term != 0xFF {
			return "", errCorruptKey
		}
	} else {
		x.pt = int(b[1]) - expBias
		if term != 0x00 {
			return "", errCorruptKey
		}
	}
	if len(body) == 0 || len(body) > (maxNumberDigits+1)/2 {
		return "", errCorruptKey
	}
	for i, c := range body {
		var p int
		if x.neg {
			p = 254 - int(c)
		} else {
			p = int(c) - 1
		}
		if p < 0 || p > 99 {
			return "", errCorruptKey
		}
		x.d[2*i] = byte(p/10) + '0'
		x.d[2*i+1] = byte(p%10) + '0'
		x.n = 2*i + 2
		if i == len(body)-1 && p%10 == 0 {
			x.n-- // the padding zero
		}
	}
	if x.d[0] == '0' || x.d[x.n-1] == '0' {
		return "", errCorruptKey
	}
	var buf [maxCanonicalLen]byte
	return string(x.appendText(buf[:0])), nil
}

// PartitionHash is the 32-bit hash of an encoded partition key that orders
// Scan and splits parallel-scan segments: 64-bit FNV-1a over pk, finished
// with MurmurHash3's fmix64 avalanche, keeping the high 32 bits. It is part
// of the stored format and must never change.
func PartitionHash(pk []byte) uint32 {
	h := uint64(14695981039346656037)
	for _, c := range pk {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return uint32(h >> 32)
}
