package dataformat

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/item"
)

// parseIonLine reads a line of ION as DynamoDB's export writes it: Ion text, one
// value a line, each a struct {Item:{...}} (a line may start with the
// version marker $ion_1_0). DynamoDB's mapping: string is S, decimal, int
// and float are N, blob is B, bool is BOOL, null is NULL, list is L,
// struct is M, and lists annotated $dynamodb_SS, $dynamodb_NS and
// $dynamodb_BS are sets. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
//
// The reader covers the Ion text DynamoDB writes (comments, quoted
// symbols, escapes, long strings and annotations included); a value
// spread over several lines is a record error. A blank line, or one of
// the version marker alone, holds no item.
func parseIonLine(b []byte) (item.Item, error) {
	p := &ionParser{s: string(b)}
	p.space()
	if p.s[p.i:] == "" {
		return nil, nil
	}
	return p.record()
}

// ionParser parses Ion text values from s.
type ionParser struct {
	s string
	i int
}

var errIonSyntax = errors.New("not Ion text DynamoDB can import")

// record parses a line: optional version marker, then {Item:{...}}. A
// line holding only the marker returns nil.
func (p *ionParser) record() (item.Item, error) {
	if strings.HasPrefix(p.s[p.i:], "$ion_1_0") {
		p.i += len("$ion_1_0")
		p.space()
		if p.i == len(p.s) {
			return nil, nil
		}
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.space(); p.i != len(p.s) {
		return nil, fmt.Errorf("%w: text after the value", errIonSyntax)
	}
	if v.Type != item.TypeM || v.M["Item"].Type != item.TypeM || len(v.M) != 1 {
		return nil, errNoItem
	}
	return item.Item(v.M["Item"].M), nil
}

// space skips white space and comments.
func (p *ionParser) space() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			p.i = len(p.s)
		case strings.HasPrefix(p.s[p.i:], "/*"):
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				p.i = len(p.s)
				return
			}
			p.i += end + 4
		default:
			return
		}
	}
}

func (p *ionParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// value parses one value with its annotations.
func (p *ionParser) value() (item.AttributeValue, error) {
	var annot []string
	for {
		p.space()
		start := p.i
		sym, ok, err := p.symbolText()
		if err != nil {
			return item.AttributeValue{}, err
		}
		p.space()
		if ok && strings.HasPrefix(p.s[p.i:], "::") {
			p.i += 2
			annot = append(annot, sym)
			continue
		}
		p.i = start
		break
	}
	v, err := p.bare()
	if err != nil || len(annot) == 0 {
		return v, err
	}
	return setOf(annot[len(annot)-1], v)
}

// setOf turns a list annotated $dynamodb_SS, _NS or _BS into its set.
func setOf(annot string, v item.AttributeValue) (item.AttributeValue, error) {
	want := map[string]item.Type{"$dynamodb_SS": item.TypeS, "$dynamodb_NS": item.TypeN, "$dynamodb_BS": item.TypeB}[annot]
	if want == 0 || v.Type != item.TypeL {
		return v, nil // other annotations carry no meaning here
	}
	out := item.AttributeValue{Type: map[item.Type]item.Type{item.TypeS: item.TypeSS, item.TypeN: item.TypeNS, item.TypeB: item.TypeBS}[want]}
	for _, e := range v.L {
		if e.Type != want {
			return item.AttributeValue{}, fmt.Errorf("%w: %s holds a %s", errIonSyntax, annot, e.Type)
		}
		if want == item.TypeB {
			out.BS = append(out.BS, e.B)
		} else {
			out.SS = append(out.SS, e.S)
		}
	}
	return out, nil
}

// symbolText parses an identifier or 'quoted' symbol; ok is false when
// there is none here.
func (p *ionParser) symbolText() (string, bool, error) {
	if p.peek() == '\'' && !strings.HasPrefix(p.s[p.i:], "'''") {
		s, err := p.quoted('\'')
		return s, err == nil, err
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (p.i > start && c >= '0' && c <= '9') {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i], p.i > start, nil
}

// bare parses a value without annotations.
func (p *ionParser) bare() (item.AttributeValue, error) {
	switch c := p.peek(); {
	case c == '{' && strings.HasPrefix(p.s[p.i:], "{{"):
		return p.blob()
	case c == '{':
		return p.structure()
	case c == '[':
		return p.list()
	case c == '"':
		s, err := p.quoted('"')
		return item.S(s), err
	case c == '\'':
		return p.longString()
	case c == '-' || c == '+' || c >= '0' && c <= '9':
		return p.number()
	}
	sym, ok, err := p.symbolText()
	switch {
	case err != nil:
		return item.AttributeValue{}, err
	case sym == "true" || sym == "false":
		return item.Bool(sym == "true"), nil
	case sym == "null":
		if p.peek() == '.' { // a typed null, null.string and the like
			p.i++
			p.symbolText()
		}
		return item.Null(), nil
	case ok:
		return item.S(sym), nil // a symbol value reads as its text
	}
	return item.AttributeValue{}, fmt.Errorf("%w at column %d", errIonSyntax, p.i+1)
}

func (p *ionParser) structure() (item.AttributeValue, error) {
	p.i++ // {
	m := map[string]item.AttributeValue{}
	for {
		p.space()
		if p.peek() == '}' {
			p.i++
			return item.M(m), nil
		}
		var name string
		var err error
		if p.peek() == '"' {
			name, err = p.quoted('"')
		} else {
			var ok bool
			name, ok, err = p.symbolText()
			if err == nil && !ok {
				err = fmt.Errorf("%w: a field name expected at column %d", errIonSyntax, p.i+1)
			}
		}
		if err != nil {
			return item.AttributeValue{}, err
		}
		if p.space(); p.peek() != ':' {
			return item.AttributeValue{}, fmt.Errorf("%w: ':' expected at column %d", errIonSyntax, p.i+1)
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return item.AttributeValue{}, err
		}
		m[name] = v
		if err := p.separator('}'); err != nil {
			return item.AttributeValue{}, err
		}
	}
}

func (p *ionParser) list() (item.AttributeValue, error) {
	p.i++ // [
	l := []item.AttributeValue{}
	for {
		p.space()
		if p.peek() == ']' {
			p.i++
			return item.L(l...), nil
		}
		v, err := p.value()
		if err != nil {
			return item.AttributeValue{}, err
		}
		l = append(l, v)
		if err := p.separator(']'); err != nil {
			return item.AttributeValue{}, err
		}
	}
}

// separator takes the comma after a member, or leaves the closing byte.
func (p *ionParser) separator(closing byte) error {
	p.space()
	switch p.peek() {
	case ',':
		p.i++
		return nil
	case closing:
		return nil
	}
	return fmt.Errorf("%w: ',' or '%c' expected at column %d", errIonSyntax, closing, p.i+1)
}

func (p *ionParser) blob() (item.AttributeValue, error) {
	end := strings.Index(p.s[p.i+2:], "}}")
	if end < 0 {
		return item.AttributeValue{}, fmt.Errorf("%w: unterminated blob", errIonSyntax)
	}
	text := strings.Join(strings.Fields(p.s[p.i+2:p.i+2+end]), "")
	p.i += end + 4
	if strings.HasPrefix(text, "\"") {
		return item.AttributeValue{}, fmt.Errorf("%w: a clob has no DynamoDB type", errIonSyntax)
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return item.AttributeValue{}, fmt.Errorf("%w: blob: %v", errIonSyntax, err)
	}
	return item.B(b), nil
}

// number parses an int, decimal or float into a DynamoDB number.
func (p *ionParser) number() (item.AttributeValue, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("0123456789+-._eEdDxXabcfABCF", p.s[p.i]) >= 0 {
		p.i++
	}
	text := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if strings.HasPrefix(strings.TrimLeft(text, "-"), "0x") || strings.HasPrefix(strings.TrimLeft(text, "-"), "0X") {
		n, err := strconv.ParseInt(text, 0, 64)
		if err != nil {
			return item.AttributeValue{}, fmt.Errorf("%w: %q", errIonSyntax, text)
		}
		text = strconv.FormatInt(n, 10)
	}
	text = strings.NewReplacer("d", "e", "D", "e").Replace(text)
	text = strings.TrimSuffix(text, ".") // 123. is a decimal
	if strings.HasSuffix(text, ".e") || strings.Contains(text, ".e") {
		text = strings.Replace(text, ".e", "e", 1)
	}
	n, err := item.ParseNumber(text)
	if err != nil {
		return item.AttributeValue{}, fmt.Errorf("%q is not a DynamoDB number: %v", p.s[start:p.i], err)
	}
	return item.N(n), nil
}

// quoted parses a string between quote bytes, with Ion's escapes.
func (p *ionParser) quoted(q byte) (string, error) {
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("%w: unterminated string", errIonSyntax)
}

// longString parses one or more long strings (each between three single
// quotes), concatenated.
func (p *ionParser) longString() (item.AttributeValue, error) {
	var b strings.Builder
	for strings.HasPrefix(p.s[p.i:], "'''") {
		p.i += 3
		for {
			if p.i >= len(p.s) {
				return item.AttributeValue{}, fmt.Errorf("%w: unterminated long string", errIonSyntax)
			}
			if strings.HasPrefix(p.s[p.i:], "'''") {
				p.i += 3
				break
			}
			if p.s[p.i] == '\\' {
				if err := p.escape(&b); err != nil {
					return item.AttributeValue{}, err
				}
				continue
			}
			b.WriteByte(p.s[p.i])
			p.i++
		}
		p.space()
	}
	return item.S(b.String()), nil
}

// escape writes the character of the escape sequence at p.i.
func (p *ionParser) escape(b *strings.Builder) error {
	if p.i+1 >= len(p.s) {
		return fmt.Errorf("%w: bad escape", errIonSyntax)
	}
	c := p.s[p.i+1]
	p.i += 2
	simple := map[byte]byte{'0': 0, 'a': 7, 'b': 8, 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'v': '\v',
		'"': '"', '\'': '\'', '?': '?', '\\': '\\', '/': '/'}
	if r, ok := simple[c]; ok {
		b.WriteByte(r)
		return nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if digits == 0 || p.i+digits > len(p.s) {
		return fmt.Errorf("%w: bad escape \\%c", errIonSyntax, c)
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+digits], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return fmt.Errorf("%w: bad escape", errIonSyntax)
	}
	p.i += digits
	b.WriteRune(rune(n))
	return nil
}
