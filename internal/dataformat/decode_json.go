package dataformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/extenddb/extenddb/internal/item"
)

// jsonDecoder reads DYNAMODB_JSON: one item a line, {"Item":{...}} with
// the item in DynamoDB JSON, as DynamoDB's export writes it. Blank lines
// are skipped.
type jsonDecoder struct {
	lines *lineReader
}

func newJSONDecoder(r io.Reader) *jsonDecoder { return &jsonDecoder{lines: newLineReader(r)} }

func (d *jsonDecoder) Line() int64 { return d.lines.line }

type jsonLine struct {
	Item item.Item `json:"Item"`
}

var errNoItem = errors.New(`the line has no "Item" object`)

func (d *jsonDecoder) Next() (item.Item, error) {
	for {
		b, err := d.lines.next()
		if err == errTooLong {
			return nil, &RecordError{Line: d.lines.line, Err: err}
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if inner, ok := exportLine(b); ok {
			var it item.Item
			if err := it.UnmarshalJSON(inner); err != nil || it == nil {
				return nil, &RecordError{Line: d.lines.line, Err: orNoItem(err)}
			}
			return it, nil
		}
		var l jsonLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, &RecordError{Line: d.lines.line, Err: err}
		}
		if l.Item == nil {
			return nil, &RecordError{Line: d.lines.line, Err: errNoItem}
		}
		return l.Item, nil
	}
}

// exportLine returns the item of a line written as DynamoDB's export
// writes it, {"Item":...} without spaces, so that the item's own parser
// reads it in one pass; ok is false for any other line.
func exportLine(b []byte) ([]byte, bool) {
	const head = `{"Item":`
	if len(b) < len(head)+1 || string(b[:len(head)]) != head || b[len(b)-1] != '}' {
		return nil, false
	}
	return b[len(head) : len(b)-1], true
}

func orNoItem(err error) error {
	if err == nil {
		return errNoItem
	}
	return err
}
