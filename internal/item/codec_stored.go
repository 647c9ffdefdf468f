package item

import "github.com/extenddb/extenddb/internal/jsonstring"

// Reading stored items (MarshalItem's encoding) without decoding them into
// an Item: straight to DynamoDB JSON, or only the attributes a reader
// needs. Query and Scan use these for items they return whole or only look
// at in part. Both check the input as UnmarshalItem does and fail where it
// fails.

// AppendStoredJSON appends the DynamoDB JSON of the stored item b to dst:
// the same bytes as AppendItemJSON(dst, UnmarshalItem(b)), without building
// the item. Corrupt input is an error, never a panic; dst's appended part
// is then unspecified.
func AppendStoredJSON(dst, b []byte) ([]byte, error) {
	return appendStoredJSON(dst, b, nil, true)
}

// AppendStoredJSONAttributes is AppendStoredJSON for an item of only the
// top-level attributes of b named in names: what a ProjectionExpression of
// top-level names returns, {} when b has none of them.
func AppendStoredJSONAttributes(dst, b []byte, names []string) ([]byte, error) {
	return appendStoredJSON(dst, b, names, false)
}

// appendStoredJSON transcodes b, with all its attributes or those in names.
func appendStoredJSON(dst, b []byte, names []string, all bool) ([]byte, error) {
	if err := checkVersion(b); err != nil {
		return dst, err
	}
	r := storedCursor{src: b, pos: 1}
	dst, err := r.appendMapJSON(dst, 0, names, all)
	if err != nil {
		return dst, err
	}
	if r.pos != len(b) {
		return dst, errCorruptItem
	}
	return dst, nil
}

// UnmarshalAttributes decodes the top-level attributes of the stored item b
// whose names are in names, and only those: the others are checked and
// skipped. Errors as UnmarshalItem's.
func UnmarshalAttributes(b []byte, names []string) (Item, error) {
	if err := checkVersion(b); err != nil {
		return nil, err
	}
	r := itemReader{storedCursor: storedCursor{src: b, pos: 1}}
	n, err := r.count(2)
	if err != nil {
		return nil, err
	}
	m := make(Item, min(n, len(names)))
	for range n {
		start := r.pos
		i, j, err := r.span()
		if err != nil {
			return nil, err
		}
		value := r.pos
		if err := r.skipValue(0); err != nil {
			return nil, err
		}
		if !hasName(names, b[i:j]) {
			continue
		}
		// The strings of this attribute, its name included, are cut from
		// one copy of its bytes, and binaries from a copy of the item made
		// when it holds any.
		end := r.pos
		r.s, r.base, r.pos = string(b[start:end]), start, value
		v, err := r.readValue(0)
		if err != nil {
			return nil, err
		}
		m[r.s[i-start:j-start]] = v
	}
	if r.pos != len(b) {
		return nil, errCorruptItem
	}
	return m, nil
}

// hasName reports whether name is one of names, without allocating.
func hasName(names []string, name []byte) bool {
	for _, n := range names {
		if n == string(name) {
			return true
		}
	}
	return false
}

// skipValue reads past one value, checking it as readValue does.
func (r *storedCursor) skipValue(depth int) error {
	tag, err := r.tag(depth)
	if err != nil {
		return err
	}
	switch tag {
	case tagS, tagN, tagB:
		_, _, err = r.span()
	case tagFalse, tagTrue, tagNULL:
	case tagM:
		var n int
		if n, err = r.count(2); err == nil {
			for i := 0; i < n && err == nil; i++ {
				if _, _, err = r.span(); err == nil {
					err = r.skipValue(depth + 1)
				}
			}
		}
	case tagL:
		var n int
		if n, err = r.count(1); err == nil {
			for i := 0; i < n && err == nil; i++ {
				err = r.skipValue(depth + 1)
			}
		}
	case tagSS, tagNS, tagBS:
		var n int
		if n, err = r.count(1); err == nil {
			for i := 0; i < n && err == nil; i++ {
				_, _, err = r.span()
			}
		}
	default:
		return errCorruptItem
	}
	return err
}

// appendMapJSON transcodes a stored map at depth, all of its members or,
// unless all, those named in names. Its names are stored in ascending
// order, the order appendMapJSON writes them in.
func (r *storedCursor) appendMapJSON(b []byte, depth int, names []string, all bool) ([]byte, error) {
	n, err := r.count(2)
	if err != nil {
		return b, err
	}
	b = append(b, '{')
	first := true
	for range n {
		i, j, err := r.span()
		if err != nil {
			return b, err
		}
		if !all && !hasName(names, r.src[i:j]) {
			if err := r.skipValue(depth); err != nil {
				return b, err
			}
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(jsonstring.Append(b, r.src[i:j]), ':')
		if b, err = r.appendValueJSON(b, depth); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendValueJSON transcodes one stored value as appendValueJSON encodes
// its decoded form.
func (r *storedCursor) appendValueJSON(b []byte, depth int) ([]byte, error) {
	tag, err := r.tag(depth)
	if err != nil {
		return b, err
	}
	switch tag {
	case tagS, tagN, tagB:
		i, j, err := r.span()
		if err != nil {
			return b, err
		}
		switch tag {
		case tagS:
			b = jsonstring.Append(append(b, `{"S":`...), r.src[i:j])
		case tagN:
			b = jsonstring.Append(append(b, `{"N":`...), r.src[i:j])
		default:
			b = append(appendBase64(append(b, `{"B":"`...), r.src[i:j]), '"')
		}
	case tagFalse:
		return append(b, `{"BOOL":false}`...), nil
	case tagTrue:
		return append(b, `{"BOOL":true}`...), nil
	case tagNULL:
		return append(b, `{"NULL":true}`...), nil
	case tagM:
		if b, err = r.appendMapJSON(append(b, `{"M":`...), depth+1, nil, true); err != nil {
			return b, err
		}
	case tagL:
		if b, err = r.appendListJSON(append(b, `{"L":[`...), depth+1); err != nil {
			return b, err
		}
		b = append(b, ']')
	case tagSS, tagNS, tagBS:
		if b, err = r.appendSetJSON(b, tag); err != nil {
			return b, err
		}
		b = append(b, ']')
	default:
		return b, errCorruptItem
	}
	return append(b, '}'), nil
}

// appendListJSON transcodes the elements of a stored list.
func (r *storedCursor) appendListJSON(b []byte, depth int) ([]byte, error) {
	n, err := r.count(1)
	if err != nil {
		return b, err
	}
	for k := range n {
		if k > 0 {
			b = append(b, ',')
		}
		if b, err = r.appendValueJSON(b, depth); err != nil {
			return b, err
		}
	}
	return b, nil
}

// appendSetJSON transcodes a stored set up to its closing bracket.
func (r *storedCursor) appendSetJSON(b []byte, tag byte) ([]byte, error) {
	switch tag {
	case tagSS:
		b = append(b, `{"SS":[`...)
	case tagNS:
		b = append(b, `{"NS":[`...)
	default:
		b = append(b, `{"BS":[`...)
	}
	n, err := r.count(1)
	if err != nil {
		return b, err
	}
	for k := range n {
		i, j, err := r.span()
		if err != nil {
			return b, err
		}
		if k > 0 {
			b = append(b, ',')
		}
		if tag == tagBS {
			b = append(appendBase64(append(b, '"'), r.src[i:j]), '"')
		} else {
			b = jsonstring.Append(b, r.src[i:j])
		}
	}
	return b, nil
}
