package dataformat

import (
	"bufio"
	"compress/gzip"
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
