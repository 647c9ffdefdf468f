package seed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/item"
)

// readItems calls put with the DynamoDB JSON of each item of an items
// file, read by ImportTable's readers (internal/dataformat): JSON lines
// in DYNAMODB_JSON, one {"Item": {...}} a line, or CSV, whose key
// attributes take the type types gives them (S, N or B) and whose other
// attributes are strings, empty cells being left out.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html
func readItems(path, format string, types map[string]string, put func(item json.RawMessage) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	df := dataformat.DynamoDBJSON
	if format == "csv" {
		df = dataformat.CSV
	}
	dec, err := dataformat.NewDecoder(df, f, dataformat.CSVOptions{Types: types})
	if err != nil {
		return err
	}
	for {
		it, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var rerr *dataformat.RecordError
		if errors.As(err, &rerr) {
			return fmt.Errorf("%s:%d: %w", path, rerr.Line, rerr.Err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := put(item.AppendItemJSON(nil, it)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}
