package dataformat

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadGzipLines calls visit with each line (without its end of line) of
// the gzipped file at path, in order, until visit returns an error, which
// it returns as it is. The line's bytes are valid only during the call.
// Errors: the file's, a stream that is not gzip, a line over maxRecord
// (4 MiB) (these name the path), visit's.
func ReadGzipLines(path string, visit func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	lines := newLineReader(gz)
	for {
		line, err := lines.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := visit(line); err != nil {
			return err
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
