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
	src    *boundedReader
	header []string
	types  map[string]string
	read   bool // the header line of the file was read
	line   int64
}

func (d *csvDecoder) Line() int64 { return d.line }

func newCSVDecoder(r io.Reader, o CSVOptions) (*csvDecoder, error) {
	src := &boundedReader{r: r}
	cr := csv.NewReader(src)
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
	return &csvDecoder{r: cr, src: src, header: o.HeaderList, types: o.Types, read: o.HeaderList != nil}, nil
}

// boundedReader feeds the CSV reader, which holds a whole record in
// memory however long it is (a quoted cell may span any number of lines):
// it fails with errTooLong, for good, once more than recordBudget bytes
// were read since the last reset (one record, plus the reader's
// look-ahead).
type boundedReader struct {
	r    io.Reader
	left int64
	err  error
}

// recordBudget is maxRecord plus room for encoding/csv's buffered
// look-ahead.
const recordBudget = maxRecord + 64<<10

func (b *boundedReader) reset() { b.left = recordBudget }

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left <= 0 {
		b.err = errTooLong
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// Next returns the next row's item. A record longer than maxRecord is a
// fatal errTooLong for the file: past an unterminated quote there is no
// telling where the next record starts.
func (d *csvDecoder) Next() (item.Item, error) {
	for {
		if d.src.err != nil {
			return nil, d.src.err
		}
		d.src.reset()
		rec, err := d.r.Read()
		if d.src.err != nil {
			return nil, fmt.Errorf("line %d: %w", d.line+1, d.src.err)
		}
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
