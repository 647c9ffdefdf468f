package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/internal/dataformat"
)

// A bucket's directory copied whole, with its owner file (which sorts
// first), names a data file as the first, whose name tells the format.
func TestCopyIntoBucketSkipsOwnerFile(t *testing.T) {
	src := t.TempDir()
	for name, body := range map[string]string{
		dataformat.BucketOwnerFile: "000000000000",
		"data.json.gz":             "x",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, first, err := copyIntoBucket(src, filepath.Join(t.TempDir(), "b", "p"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(first) != "data.json.gz" {
		t.Fatalf("first = %s, want data.json.gz", first)
	}
}
