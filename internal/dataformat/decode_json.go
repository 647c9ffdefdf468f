package dataformat

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/extenddb/extenddb/internal/item"
)

type jsonLine struct {
	Item item.Item
}

var errNoItem = errors.New(`the line has no "Item" object`)

// parseJSONLine reads a line of DYNAMODB_JSON: {"Item":{...}} with the
// item in DynamoDB JSON, as DynamoDB's export writes it. A blank line
// holds no item.
func parseJSONLine(b []byte) (item.Item, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	if inner, ok := exportLine(b); ok {
		var it item.Item
		if err := it.UnmarshalJSON(inner); err != nil || it == nil {
			return nil, orNoItem(err)
		}
		return it, nil
	}
	var l jsonLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, err
	}
	if l.Item == nil {
		return nil, errNoItem
	}
	return l.Item, nil
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
