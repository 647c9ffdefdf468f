package item

// DynamoDB's item size, the figure checked against the 400 KB item limit and
// used for capacity units. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
//
//   - An attribute costs the UTF-8 length of its name plus its value.
//   - S: UTF-8 bytes. B: raw bytes. BOOL and NULL: 1 byte.
//   - N: 1 byte plus one byte per pair of significant digits, the pairs
//     aligned on the decimal point as in a base-100 mantissa (so 1.5 costs a
//     byte more than 15), plus 1 byte when negative. Zero costs 1 byte.
//   - SS, NS, BS: the sum of their members' sizes.
//   - L: 3 bytes plus, for each element, 1 byte and its size.
//   - M: 3 bytes plus, for each member, 1 byte, the length of its name and
//     the size of its value.
//
// The developer guide states the number rule only approximately ("1 byte per
// two significant digits plus 1 byte"). The rule here is the one
// architect/dynalite derived from DynamoDB (valSize in db/index.js), and it
// reproduces all 23 sizes nubo-db/dynoxide measured against DynamoDB on
// 2026-08-18 byte for byte (CAPTURED_NUMBER_BYTES in its item-size.js).

// Size is DynamoDB's item size in bytes (attribute names plus values).
func Size(it Item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueSize(v)
	}
	return n
}

// ValueSize is the size of one value by DynamoDB's formula, without a name.
// A TypeInvalid value has size 0.
func ValueSize(v AttributeValue) int { return valueSize(v) }

// totalLen is the sum of the lengths of the members of a string or
// binary set.
func totalLen[E string | []byte](set []E) int {
	n := 0
	for _, e := range set {
		n += len(e)
	}
	return n
}

func valueSize(v AttributeValue) int {
	switch v.Type {
	case TypeS:
		return len(v.S)
	case TypeN:
		return numberSize(v.S)
	case TypeB:
		return len(v.B)
	case TypeBOOL, TypeNULL:
		return 1
	case TypeSS:
		return totalLen(v.SS)
	case TypeNS:
		n := 0
		for _, s := range v.SS {
			n += numberSize(s)
		}
		return n
	case TypeBS:
		return totalLen(v.BS)
	case TypeL:
		n := 3
		for i := range v.L {
			n += 1 + valueSize(v.L[i])
		}
		return n
	case TypeM:
		n := 3
		for name, e := range v.M {
			n += 1 + len(name) + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize is the stored size of number text s (see the rules above).
func numberSize(s string) int {
	x, _ := parseDecimal(s)
	if x.n == 0 {
		return 1
	}
	// Significant digits laid out in base-100 pairs aligned on the decimal
	// point: the leading digit sits alone in its pair when its exponent is
	// even (its partner, one place higher, is a zero).
	lead := 0
	if x.exp()&1 == 0 {
		lead = 1
	}
	n := 1 + (x.n+lead+1)/2
	if x.neg {
		n++
	}
	return n
}
