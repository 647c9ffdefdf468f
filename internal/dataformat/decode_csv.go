package dataformat

import (
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"github.com/extenddb/extenddb/internal/item"
)

// csvDecoder reads CSV as DynamoDB's import does: one item a row, the
// columns named by the header (HeaderList, or the first row of the file),
// each non-empty cell an attribute. Attributes given a type in Types (the
// key attributes of the table and its indexes) take it; every other
// attribute is a string. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html
type csvDecoder struct {
	r      *csv.Reader
	header []string
	types  map[string]string
	read   bool // the header line of the file was read
	line   int64
}

func (d *csvDecoder) Line() int64 { return d.line }

func newCSVDecoder(r io.Reader, o CSVOptions) (*csvDecoder, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.LazyQuotes = true
	switch d := o.Delimiter; {
	case d == "":
	case len(d) == 1 && (d == "," || d == ";" || d == ":" || d == "|" || d == "\t" || d == " "):
		cr.Comma = rune(d[0])
	default:
		return nil, fmt.Errorf("dataformat: CSV delimiter %q is not one of , ; : | tab or space", d)
	}
	return &csvDecoder{r: cr, header: o.HeaderList, types: o.Types, read: o.HeaderList != nil}, nil
}

func (d *csvDecoder) Next() (item.Item, error) {
	for {
		rec, err := d.r.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &RecordError{Line: int64(pe.Line), Err: pe.Err}
			}
			return nil, err
		}
		if !d.read {
			d.header, d.read = append([]string(nil), rec...), true
			continue
		}
		line, _ := d.r.FieldPos(0)
		d.line = int64(line)
		if len(rec) == 1 && rec[0] == "" {
			continue // a blank line
		}
		it, err := d.row(rec)
		if err != nil {
			return nil, &RecordError{Line: int64(line), Err: err}
		}
		return it, nil
	}
}

// row makes the item of one row.
func (d *csvDecoder) row(rec []string) (item.Item, error) {
	if len(rec) > len(d.header) {
		return nil, fmt.Errorf("the row has %d columns and the header %d", len(rec), len(d.header))
	}
	it := make(item.Item, len(rec))
	for i, cell := range rec {
		if cell == "" {
			continue
		}
		name := d.header[i]
		switch d.types[name] {
		case "N":
			n, err := item.ParseNumber(cell)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %q is not a number", name, cell)
			}
			it[name] = item.N(n)
		case "B":
			b, err := base64.StdEncoding.DecodeString(cell)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %q is not base64", name, cell)
			}
			it[name] = item.B(b)
		default:
			it[name] = item.S(cell)
		}
	}
	return it, nil
}
