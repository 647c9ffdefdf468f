package item

// Decoding DynamoDB JSON.
//
// The decoder reads the bytes directly. Two kinds of fault are told apart, as
// DynamoDB tells them apart:
//
//   - The JSON is malformed, or a member has the wrong JSON type ({"S":1},
//     {"L":{}}, a value that is not an object, bad base64). That is a
//     SerializationException and decoding stops.
//   - The JSON is well formed but the value is not valid ({}, two types set,
//     {"NULL":false}, an empty or repeated set, a bad number, nesting deeper
//     than 32 levels). The value decodes to TypeInvalid carrying DynamoDB's
//     message in S; Validate reports it as a ValidationException. When a map
//     or list holds an invalid value the container itself becomes invalid
//     with the first such message in document order.
//
// As DynamoDB's parser does, the decoder ignores members it does not know,
// treats a member whose value is null as absent, and drops null elements of
// lists and sets.

// Serialization messages. "NUMBER_VALUE cannot be converted to String" and
// "Start of structure or map found where not expected" are DynamoDB's for
// AttributeValue members (getmoto/moto's
// test_put_item__string_as_integer_value, checked against DynamoDB). "Start
// of list...", "Expected null", "Expected list or null" and "Expected map or
// null" are the replies architect/dynalite recorded from DynamoDB (checkType
// in validations/index.js). Messages for the other JSON tokens (STRING_VALUE,
// TRUE_VALUE, FALSE_VALUE) and targets (Boolean, Blob) follow the same
// pattern.
const (
	msgStartOfMap  = "Start of structure or map found where not expected"
	msgStartOfList = "Start of list found where not expected"
	msgExpectNull  = "Expected null"
	msgExpectList  = "Expected list or null"
	msgExpectMap   = "Expected map or null"
)

// parseValue reads one AttributeValue object at nesting level level. The
// current byte is the value's first (not null).
func (d *decoder) parseValue(level int) (AttributeValue, error) {
	var v AttributeValue
	if d.peek() != '{' {
		return v, d.mismatch("", msgExpectNull)
	}
	d.pos++
	var seen uint16 // bit t set when type t is present
	var msg string  // first validation message, in document order
	if d.peek() == '}' {
		d.pos++
		v.S = msgEmptyValue
		return v, nil
	}
	for {
		if d.peek() != '"' {
			return v, d.syntaxError()
		}
		key, err := d.readStringBytes()
		if err != nil {
			return v, err
		}
		if err := d.expect(':'); err != nil {
			return v, err
		}
		if d.peek() == 'n' {
			if err := d.literal("null"); err != nil {
				return v, err
			}
		} else {
			t, bad, err := d.member(&v, key, level)
			if err != nil {
				return v, err
			}
			seen |= 1 << t
			if msg == "" {
				msg = bad
			}
		}
		if done, err := d.next('}'); err != nil {
			return v, err
		} else if done {
			break
		}
	}
	seen &^= 1 << TypeInvalid // unknown members
	switch {
	case msg != "":
	case seen == 0:
		msg = msgEmptyValue
	case seen&(seen-1) != 0:
		msg = msgMultipleTypes
	}
	if msg != "" {
		return AttributeValue{S: msg}, nil
	}
	for t := TypeS; t <= TypeBS; t++ {
		if seen&(1<<t) != 0 {
			v.Type = t
		}
	}
	return v, nil
}

// member decodes the value of member key of an AttributeValue into v. It
// returns the member's type (TypeInvalid for an unknown member, which is
// skipped) and its validation message, if any.
func (d *decoder) member(v *AttributeValue, key []byte, level int) (Type, string, error) {
	switch string(key) {
	case "S":
		s, err := d.readString("String")
		v.S = s
		return TypeS, "", err
	case "N":
		text, err := d.readStringToken("String")
		if err != nil {
			return TypeN, "", err
		}
		n, bad := canonicalNumber(d.text(text))
		v.S = n
		return TypeN, bad, nil
	case "B":
		b, err := d.readBinary()
		v.B = b
		return TypeB, "", err
	case "BOOL":
		b, err := d.readBool()
		v.Bool = b
		return TypeBOOL, "", err
	case "NULL":
		b, err := d.readBool()
		if err != nil || b {
			v.Bool = true // as Null() has it
			return TypeNULL, "", err
		}
		return TypeNULL, msgNullNotTrue, nil
	case "M":
		m, bad, err := d.parseMap(level)
		v.M = m
		return TypeM, bad, err
	case "L":
		l, bad, err := d.parseList(level)
		v.L = l
		return TypeL, bad, err
	case "SS":
		ss, err := d.parseStrings()
		v.SS = ss
		return TypeSS, setMessage(ss, err, msgEmptySS, duplicateSS), err
	case "NS":
		ns, bad, err := d.parseNumbers()
		v.SS = ns
		if bad != "" {
			return TypeNS, bad, err
		}
		return TypeNS, setMessage(ns, err, msgEmptyNS, duplicateNS), err
	case "BS":
		bs, err := d.parseBinaries()
		v.BS = bs
		return TypeBS, setMessage(bs, err, msgEmptyBS, duplicateBS), err
	}
	return TypeInvalid, "", d.skipValue(0)
}

// parseMap reads the object of an M member whose AttributeValue is at level.
func (d *decoder) parseMap(level int) (map[string]AttributeValue, string, error) {
	if d.peek() != '{' {
		return nil, "", d.mismatch("", msgExpectMap)
	}
	d.pos++
	start := len(d.entries)
	bad := ""
	if d.peek() == '}' {
		d.pos++
		return d.takeMap(start), "", nil
	}
	for {
		if d.peek() != '"' {
			return nil, "", d.syntaxError()
		}
		name, err := d.readStringBytes()
		if err != nil {
			return nil, "", err
		}
		if err := d.expect(':'); err != nil {
			return nil, "", err
		}
		key := d.text(name)
		e, ok, err := d.parseMember(level, &bad)
		if err != nil {
			return nil, "", err
		}
		if ok {
			d.entries = append(d.entries, entry{key, e})
		}
		if done, err := d.next('}'); err != nil {
			return nil, "", err
		} else if done {
			return d.takeMap(start), bad, nil
		}
	}
}

// parseList reads the array of an L member whose AttributeValue is at level.
func (d *decoder) parseList(level int) ([]AttributeValue, string, error) {
	if d.peek() != '[' {
		return nil, "", d.mismatch("", msgExpectList)
	}
	d.pos++
	start := len(d.values)
	take := func() []AttributeValue {
		l := append([]AttributeValue{}, d.values[start:]...)
		clear(d.values[start:])
		d.values = d.values[:start]
		return l
	}
	bad := ""
	if d.peek() == ']' {
		d.pos++
		return take(), "", nil
	}
	for {
		e, ok, err := d.parseMember(level, &bad)
		if err != nil {
			return nil, "", err
		}
		if ok {
			d.values = append(d.values, e)
		}
		if done, err := d.next(']'); err != nil {
			return nil, "", err
		} else if done {
			return take(), bad, nil
		}
	}
}

// parseMember reads the value of one member of an M or L at level. ok is
// false for a JSON null, which is skipped, and for a value nested deeper
// than DynamoDB allows, which is skipped with *bad set to DynamoDB's
// message. The first invalid value's message goes to *bad when it is
// empty.
func (d *decoder) parseMember(level int, bad *string) (e AttributeValue, ok bool, err error) {
	switch {
	case d.peek() == 'n':
		return e, false, d.literal("null")
	case level >= MaxNestingLevel:
		if *bad == "" {
			*bad = msgNestingTooDeep
		}
		return e, false, d.skipValue(0)
	}
	if e, err = d.parseValue(level + 1); err != nil {
		return e, false, err
	}
	if e.Type == TypeInvalid && *bad == "" {
		*bad = e.S
	}
	return e, true, nil
}

// setElements calls f for each non-null element of a set's array.
func (d *decoder) setElements(f func() error) error {
	if d.peek() != '[' {
		return d.mismatch("", msgExpectList)
	}
	if d.open(']') {
		return nil
	}
	for {
		if d.peek() == 'n' {
			if err := d.literal("null"); err != nil {
				return err
			}
		} else if err := f(); err != nil {
			return err
		}
		if done, err := d.next(']'); err != nil || done {
			return err
		}
	}
}

func (d *decoder) parseStrings() ([]string, error) {
	start := len(d.strs)
	err := d.setElements(func() error {
		s, err := d.readString("String")
		d.strs = append(d.strs, s)
		return err
	})
	return d.takeStrings(start), err
}

func (d *decoder) takeStrings(start int) []string {
	ss := append([]string{}, d.strs[start:]...)
	clear(d.strs[start:])
	d.strs = d.strs[:start]
	return ss
}

// parseNumbers reads an NS array, canonicalising each member; bad is the
// message for the first member that is not a valid number.
func (d *decoder) parseNumbers() (ns []string, bad string, err error) {
	start := len(d.strs)
	err = d.setElements(func() error {
		text, err := d.readStringToken("String")
		if err != nil {
			return err
		}
		n, msg := canonicalNumber(d.text(text))
		if msg != "" && bad == "" {
			bad = msg
		}
		d.strs = append(d.strs, n)
		return nil
	})
	return d.takeStrings(start), bad, err
}

func (d *decoder) parseBinaries() ([][]byte, error) {
	start := len(d.bins)
	err := d.setElements(func() error {
		b, err := d.readBinary()
		d.bins = append(d.bins, b)
		return err
	})
	bs := append([][]byte{}, d.bins[start:]...)
	clear(d.bins[start:])
	d.bins = d.bins[:start]
	return bs, err
}

// UnmarshalJSON decodes DynamoDB JSON. A JSON shape error is a
// SerializationException; a well-formed but invalid value decodes to
// TypeInvalid carrying DynamoDB's message in S (reported by Validate).
// JSON null leaves v unchanged.
func (v *AttributeValue) UnmarshalJSON(b []byte) error {
	d := getDecoder(b)
	defer putDecoder(d)
	if d.peek() == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		return d.end()
	}
	r, err := d.parseValue(1)
	if err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	*v = r
	return nil
}

// end fails unless only spaces remain.
func (d *decoder) end() error {
	d.skipWS()
	if d.pos != len(d.buf) {
		return d.syntaxError()
	}
	return nil
}

// UnmarshalJSON decodes a DynamoDB JSON item, {"name":{"S":"x"},...}, in one
// pass. Attributes whose value is null are left out; values are decoded as by
// AttributeValue.UnmarshalJSON (each attribute is nesting level 1). JSON null
// leaves it unchanged.
func (it *Item) UnmarshalJSON(b []byte) error {
	d := getDecoder(b)
	defer putDecoder(d)
	switch d.peek() {
	case 'n':
		if err := d.literal("null"); err != nil {
			return err
		}
		return d.end()
	case '{':
	default:
		return d.mismatch("", msgExpectMap)
	}
	d.pos++
	if d.peek() == '}' {
		d.pos++
	} else {
		for {
			if d.peek() != '"' {
				return d.syntaxError()
			}
			name, err := d.readStringBytes()
			if err != nil {
				return err
			}
			if err := d.expect(':'); err != nil {
				return err
			}
			if d.peek() == 'n' {
				if err := d.literal("null"); err != nil {
					return err
				}
			} else {
				key := d.text(name)
				v, err := d.parseValue(1)
				if err != nil {
					return err
				}
				d.entries = append(d.entries, entry{key, v})
			}
			if done, err := d.next('}'); err != nil {
				return err
			} else if done {
				break
			}
		}
	}
	if err := d.end(); err != nil {
		return err
	}
	*it = d.takeMap(0)
	return nil
}
