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
