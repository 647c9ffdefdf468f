// Package dataformat reads and writes table data in the formats of
// DynamoDB's export to S3 and import from S3: DYNAMODB_JSON, ION and CSV,
// uncompressed, GZIP or ZSTD. The decode*.go files are the readers
// ImportTable uses. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html
package dataformat

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/extenddb/extenddb/internal/item"
)

// Input formats of ImportTable (InputFormat).
const (
	DynamoDBJSON = "DYNAMODB_JSON"
	ION          = "ION"
	CSV          = "CSV"
)

// Compression types of ImportTable (InputCompressionType).
const (
	CompressionNone = "NONE"
	CompressionGzip = "GZIP"
	CompressionZstd = "ZSTD"
)

// maxRecord bounds one record (line) of an input file: an item is at most
// 400 KB, its text a few times that. A longer record is a record error.
const maxRecord = 4 << 20

// RecordError is a decoder's error for one record (line) that cannot be
// read as an item; the decoder goes on with the next record.
type RecordError struct {
	Line int64 // 1-based line of the record in the decompressed file
	Err  error
}

func (e *RecordError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *RecordError) Unwrap() error { return e.Err }

// Decoder reads the items of one input file, one record at a time.
type Decoder interface {
	// Next returns the next item; io.EOF after the last. A *RecordError
	// reports a record that is not an item (the next call goes on after
	// it); any other error is fatal for the file.
	Next() (item.Item, error)
	// Line is the 1-based line, in the decompressed file, of the record
	// Next returned last.
	Line() int64
}

// CSVOptions are ImportTable's InputFormatOptions.Csv.
type CSVOptions struct {
	// Delimiter is one of , ; : | tab or space; "" is a comma.
	Delimiter string
	// HeaderList names the columns; without it the first line of each
	// file is the header.
	HeaderList []string
	// Types gives the type of the attributes typed in CSV (the key
	// attributes of the table and its indexes: "S", "N" or "B"); every
	// other column is a string.
	Types map[string]string
}

// NewDecoder returns the decoder of format over r (decompressed already).
// Errors: an unknown format.
func NewDecoder(format string, r io.Reader, csv CSVOptions) (Decoder, error) {
	switch format {
	case DynamoDBJSON:
		return newLineDecoder(r, parseJSONLine), nil
	case CSV:
		return newCSVDecoder(r, csv)
	case ION:
		return newLineDecoder(r, parseIonLine), nil
	}
	return nil, fmt.Errorf("dataformat: unknown input format %q", format)
}

// Decompress returns a reader of r's content decompressed by compression
// (NONE or "" reads r as it is). The reader must be closed.
func Decompress(r io.Reader, compression string) (io.ReadCloser, error) {
	switch compression {
	case "", CompressionNone:
		return io.NopCloser(r), nil
	case CompressionGzip:
		return gzip.NewReader(r)
	case CompressionZstd:
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	}
	return nil, fmt.Errorf("dataformat: unknown compression %q", compression)
}

// lineDecoder reads a format of one record a line (DYNAMODB_JSON, ION):
// parse makes a line's item, or nil for a line that holds none (blank, a
// version marker), which is skipped; its error refuses the line's record.
type lineDecoder struct {
	lines *lineReader
	parse func(line []byte) (item.Item, error)
}

func newLineDecoder(r io.Reader, parse func([]byte) (item.Item, error)) *lineDecoder {
	return &lineDecoder{lines: newLineReader(r), parse: parse}
}

func (d *lineDecoder) Line() int64 { return d.lines.line }

func (d *lineDecoder) Next() (item.Item, error) {
	for {
		b, err := d.lines.next()
		if err == errTooLong {
			return nil, &RecordError{Line: d.lines.line, Err: err}
		}
		if err != nil {
			return nil, err
		}
		it, err := d.parse(b)
		if err != nil {
			return nil, &RecordError{Line: d.lines.line, Err: err}
		}
		if it != nil {
			return it, nil
		}
	}
}

// lineReader reads lines of at most maxRecord bytes, counting them; a
// longer line is skipped whole and reported as too long.
type lineReader struct {
	r    *bufio.Reader
	line int64
	buf  []byte
}

var errTooLong = errors.New("record longer than 4 MB")

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 256<<10)} }

// next returns the next line without its end of line, io.EOF at the end,
// or errTooLong for a line too long (then skipped).
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	long := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !long {
			l.buf = append(l.buf, chunk...)
			if len(l.buf) > maxRecord {
				long, l.buf = true, l.buf[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(l.buf) == 0 && !long {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		l.line++
		if long {
			return nil, errTooLong
		}
		b := l.buf
		for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
			b = b[:len(b)-1]
		}
		return b, nil
	}
}
