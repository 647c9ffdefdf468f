package seed

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxLine bounds one line of a JSON lines file (an item is at most 400 KB,
// and its DynamoDB JSON a few times that).
const maxLine = 4 << 20

// readJSONLines calls put with the DynamoDB JSON of each item of a JSON
// lines file: a line is an item, or {"Item": item}; blank lines are skipped.
func readJSONLines(path string, put func(item json.RawMessage) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var wrapped struct{ Item json.RawMessage }
		if err := json.Unmarshal(b, &wrapped); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		it := json.RawMessage(b)
		if wrapped.Item != nil {
			it = wrapped.Item
		}
		if err := put(it); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

// readCSV calls put with the DynamoDB JSON of each item of a CSV file:
// the header names the attributes; a key attribute has the type types
// gives it (S, N or B, base64), every other attribute is a string, and an
// empty cell is no attribute. This is how ImportTable reads CSV:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html
func readCSV(path string, types map[string]string, put func(item json.RawMessage) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", path, err)
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		it := make(map[string]map[string]string, len(rec))
		for i, v := range rec {
			if i >= len(header) || v == "" {
				continue
			}
			typ := types[header[i]]
			if typ == "" {
				typ = "S"
			}
			it[header[i]] = map[string]string{typ: v}
		}
		raw, _ := json.Marshal(it)
		if err := put(raw); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
}
