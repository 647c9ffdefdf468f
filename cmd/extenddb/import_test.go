package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// An --in-memory server's buckets are in its own temporary directory, not
// in a shared one the hint could name.
func TestImportFailureHintInMemory(t *testing.T) {
	d := &types.ImportTableDescription{ImportStatus: types.ImportStatusFailed, FailureCode: aws.String("S3NoSuchBucket")}
	msg := importFailure(d, "/x").Error()
	if strings.Contains(msg, filepath.Join(os.TempDir(), "extenddb-exports")) || !strings.Contains(msg, "start it with --export-dir") {
		t.Fatalf("hint = %s", msg)
	}
}
