package importer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/internal/jobs"
)

// An S3 bucket holds objects, never links: a symbolic link inside a
// bucket's directory is not an object of the bucket, so an import does
// not read a file outside the export root through one. A bucket that is
// itself a link (an operator's mount of another disk) is read as the
// directory it points to.
func TestImportSourceLinks(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"Item":{"pk":{"S":"secret"}}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.gzipLines(t, "b", "data/1.json.gz", 3)
	if err := os.Symlink(secret, filepath.Join(f.root, "b", "data", "2.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.root, "b", "linked-dir")); err != nil {
		t.Fatal(err)
	}
	files, err := f.svc.sourceFiles(Source{S3Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != "data/1.json.gz" {
		t.Fatalf("objects of bucket b: %q, want only data/1.json.gz", files)
	}
	im := f.run(t, "b")
	if im.State != jobs.Succeeded || im.Counts.ProcessedItems != 3 || im.Counts.Errors != 0 {
		t.Fatalf("import %s %+v, want 3 items and no errors", im.State, im.Counts)
	}

	// A bucket that is a link to a directory holding objects.
	mounted := t.TempDir()
	f.gzipLines(t, "real", "x.json.gz", 2)
	if err := os.Rename(filepath.Join(f.root, "real"), filepath.Join(mounted, "real")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(mounted, "real"), filepath.Join(f.root, "mounted")); err != nil {
		t.Fatal(err)
	}
	if files, err := f.svc.sourceFiles(Source{S3Bucket: "mounted"}); err != nil || len(files) != 1 || files[0] != "x.json.gz" {
		t.Fatalf("objects of a linked bucket: %q, %v, want x.json.gz", files, err)
	}
}
