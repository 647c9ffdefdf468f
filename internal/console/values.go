package console

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Item formats of the editor and of expression values.
const (
	formatDynamoDB = "dynamodb" // {"pk": {"S": "a"}}: every type, as the API speaks it
	formatPlain    = "plain"    // {"pk": "a"}: strings, numbers, booleans, null, lists and maps
)

// decodeJSON parses text keeping numbers exact.
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the text is not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the text is not valid JSON: more than one value")
	}
	return v, nil
}

// parseObject parses a JSON object in format into DynamoDB JSON: a map of
// attribute (or placeholder) names to attribute values. The attribute
// values themselves are checked by the operation, which reports
// DynamoDB's own errors.
func parseObject(text, format string) (map[string]any, error) {
	m, err := parseJSON[map[string]any](text, "the text must be a JSON object")
	if err == nil && format == formatPlain {
		m = mapValues(m, toAttributeValue)
	}
	return m, err
}

// parseList parses a JSON array in format into a list of attribute values
// (ExecuteStatement's Parameters).
func parseList(text, format string) ([]any, error) {
	l, err := parseJSON[[]any](text, "the parameters must be a JSON array")
	if err == nil && format == formatPlain {
		l = mapList(l, toAttributeValue)
	}
	return l, err
}

// parseJSON parses text as one JSON value of type T: an object
// (map[string]any) or an array ([]any); notT is the error for any other
// value.
func parseJSON[T map[string]any | []any](text, notT string) (T, error) {
	var zero T
	v, err := decodeJSON(text)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, errors.New(notT)
	}
	return t, nil
}

// toAttributeValue is the DynamoDB JSON of a plain JSON value: a string is
// S, a number N, a boolean BOOL, null NULL, an array L and an object M.
func toAttributeValue(v any) any {
	switch x := v.(type) {
	case string:
		return map[string]any{"S": x}
	case json.Number:
		return map[string]any{"N": x.String()}
	case bool:
		return map[string]any{"BOOL": x}
	case nil:
		return map[string]any{"NULL": true}
	case []any:
		return map[string]any{"L": mapList(x, toAttributeValue)}
	case map[string]any:
		return map[string]any{"M": mapValues(x, toAttributeValue)}
	}
	return v
}

// mapList is f of each element of l, in a new list.
func mapList(l []any, f func(any) any) []any {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = f(e)
	}
	return out
}

// mapValues is m with f of each value, in a new map.
func mapValues(m map[string]any, f func(any) any) map[string]any {
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = f(e)
	}
	return out
}

// plainValue is the plain JSON of an attribute value: sets become arrays
// and binary values base64 strings.
func plainValue(av any) any {
	m, ok := av.(map[string]any)
	if !ok || len(m) != 1 {
		return av
	}
	for t, v := range m {
		switch t {
		case "S", "B", "SS", "BS":
			return v
		case "N":
			return json.Number(fmt.Sprint(v))
		case "NS":
			l, _ := v.([]any)
			return mapList(l, func(n any) any { return json.Number(fmt.Sprint(n)) })
		case "BOOL":
			return v
		case "NULL":
			return nil
		case "L":
			l, _ := v.([]any)
			return mapList(l, plainValue)
		case "M":
			mm, _ := v.(map[string]any)
			return mapValues(mm, plainValue)
		}
	}
	return av
}

// plainItem is the plain JSON of an item.
func plainItem(item map[string]any) map[string]any {
	return mapValues(item, plainValue)
}

// pretty indents v as JSON, keys sorted.
func pretty(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// compact is v as one line of JSON.
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cellText shows an attribute value in a table cell: a string or number
// as itself, anything else as compact plain JSON.
func cellText(av any) string {
	switch v := plainValue(av).(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	default:
		return compact(v)
	}
}

// encodeKey and decodeKey carry a key (or LastEvaluatedKey) in a URL.
func encodeKey(key map[string]any) string {
	if len(key) == 0 {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(compact(key)))
}

func decodeKey(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("the page token is not valid")
	}
	v, err := decodeJSON(string(raw))
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, errors.New("the page token is not valid")
	}
	return m, nil
}

// itemGrid lays items out as rows under the union of their attribute
// names, key attributes first.
type itemGrid struct {
	Columns []string
	Rows    []itemRow
}

type itemRow struct {
	Key   string // encodeKey of the item's key; "" when the key schema is unknown
	Cells []string
}

func newGrid(items []map[string]any, keyNames []string) itemGrid {
	seen := map[string]bool{}
	var cols, rest []string
	for _, k := range keyNames {
		if k != "" && !seen[k] {
			seen[k] = true
			cols = append(cols, k)
		}
	}
	for _, it := range items {
		for k := range it {
			if !seen[k] {
				seen[k] = true
				rest = append(rest, k)
			}
		}
	}
	sort.Strings(rest)
	cols = append(cols, rest...)
	g := itemGrid{Columns: cols}
	for _, it := range items {
		row := itemRow{Cells: make([]string, len(cols))}
		for i, c := range cols {
			if v, ok := it[c]; ok {
				row.Cells[i] = cellText(v)
			}
		}
		if key := keyOf(it, keyNames); key != nil {
			row.Key = encodeKey(key)
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// keyOf is the key of item under the key attribute names (partition key,
// then sort key or ""), or nil when one is missing.
func keyOf(item map[string]any, keyNames []string) map[string]any {
	key := map[string]any{}
	for _, k := range keyNames {
		if k == "" {
			continue
		}
		v, ok := item[k]
		if !ok {
			return nil
		}
		key[k] = v
	}
	if len(key) == 0 {
		return nil
	}
	return key
}
