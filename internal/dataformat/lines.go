package dataformat

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
)

// maxLineBytes is the longest line ReadGzipLines reads: an item is at
// most 400 KB, its JSON a few times that.
const maxLineBytes = 4 << 20

// ReadGzipLines calls visit with each line (without its newline) of the
// gzipped file at path, in order, until visit returns an error, which it
// returns as it is. The line's bytes are valid only during the call.
// Errors: the file's, a stream that is not gzip, a line over 4 MiB (these
// name the path), visit's.
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
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	for sc.Scan() {
		if err := visit(sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
