package dataformat

import (
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeGzip writes text gzipped to a new file and returns its path.
func writeGzip(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.json.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadGzipLines: every line in order without its newline; visit's
// error stops the read and comes back as it is; a file that is not gzip
// and a line over the limit are errors that name the file.
func TestReadGzipLines(t *testing.T) {
	path := writeGzip(t, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}")
	var got []string
	if err := ReadGzipLines(path, func(line []byte) error { got = append(got, string(line)); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != `{"a":1}|{"b":2}|{"c":3}` {
		t.Fatalf("lines %q", got)
	}

	stop := errors.New("stop")
	n := 0
	err := ReadGzipLines(path, func([]byte) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("visit's error: got %v after %d lines, want it as it is after 1", err, n)
	}

	plain := filepath.Join(t.TempDir(), "plain.json")
	if err := os.WriteFile(plain, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReadGzipLines(plain, func([]byte) error { return nil }); err == nil || !strings.HasPrefix(err.Error(), plain+": ") {
		t.Fatalf("not gzip: %v, want an error naming %s", err, plain)
	}

	long := writeGzip(t, strings.Repeat("x", maxRecord+1)+"\n")
	if err := ReadGzipLines(long, func([]byte) error { return nil }); !errors.Is(err, errTooLong) || !strings.HasPrefix(err.Error(), long+": ") {
		t.Fatalf("line over %d bytes: %v, want errTooLong naming %s", maxRecord, err, long)
	}

	if err := ReadGzipLines(filepath.Join(t.TempDir(), "missing.gz"), func([]byte) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
