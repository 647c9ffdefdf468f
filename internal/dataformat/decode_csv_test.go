package dataformat

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// countReader counts the bytes read from it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// A CSV record that never ends (an unterminated quote, or a line without
// an end, as a decompression bomb yields) is refused once it passes the
// record bound, instead of being read whole into memory: the decoder
// stops with a fatal error after reading little more than the bound.
func TestDecodeCSVUnboundedRecord(t *testing.T) {
	for name, head := range map[string]string{
		"unterminated quote": "pk,v\n1,\"",
		"endless line":       "pk,v\n1,",
	} {
		t.Run(name, func(t *testing.T) {
			body := strings.Repeat("aaaaaaa\n", 4<<20) // 32 MB of short lines
			if name == "endless line" {
				body = strings.Repeat("a", 32<<20)
			}
			src := &countReader{r: io.MultiReader(strings.NewReader(head), strings.NewReader(body))}
			d, err := NewDecoder(CSV, src, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Next()
			var re *RecordError
			if err == nil || err == io.EOF || errors.As(err, &re) {
				t.Fatalf("Next() = %v, want a fatal error for a record past the bound", err)
			}
			if !errors.Is(err, errTooLong) {
				t.Fatalf("Next() = %v, want %v", err, errTooLong)
			}
			if src.n > maxRecord+1<<20 {
				t.Fatalf("read %d bytes of the source, want at most about %d", src.n, maxRecord)
			}
			if _, err2 := d.Next(); !errors.Is(err2, errTooLong) {
				t.Fatalf("Next() after the error = %v, want %v again", err2, errTooLong)
			}
		})
	}
}
