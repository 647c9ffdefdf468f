package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// `extenddb import FILE|DIR` copies the files into the server's export
// directory, calls ImportTable and shows DescribeImport's progress.
func TestImportCLI(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	src := t.TempDir()

	// A CSV file: format and compression from its name.
	csv := filepath.Join(src, "people.csv")
	var b strings.Builder
	b.WriteString("id;name\n")
	for i := range 500 {
		fmt.Fprintf(&b, "%d;person %d\n", i, i)
	}
	os.WriteFile(csv, []byte(b.String()), 0o644)
	out, errOut := runCLI(t, "import", csv, "--table", "people", "--key", "id:N", "--csv-delimiter", ";",
		"--endpoint", s.Endpoint, "--export-dir", root)
	if !strings.Contains(out, "table people: 500 items imported, 500 processed, 0 errors") || !strings.Contains(errOut, "importing people") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	got, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("people"), Key: item{"id": avN("42")}})
	if err != nil || itemText(got.Item) != `{"id":{"N":"42"},"name":{"S":"person 42"}}` {
		t.Fatalf("GetItem: %v %s", err, itemText(got.Item))
	}

	// A directory of gzipped DYNAMODB_JSON files, keyed pk:S,sk:N; the
	// second file writes 30 of the first one's keys again.
	dir := filepath.Join(src, "export")
	writeObject(t, dir, "data", "a.json.gz", "GZIP", importSource("DYNAMODB_JSON", 300))
	writeObject(t, dir, "data", "b.json.gz", "GZIP", importSource("DYNAMODB_JSON", 30))
	out, errOut = runCLI(t, "import", dir, "--table", "events", "--key", "pk:S,sk:N", "--endpoint", s.Endpoint, "--export-dir", root)
	if !strings.Contains(out, "table events: 330 items imported, 336 processed, 6 errors") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	if n := countItems(t, c, "events"); n != 300 {
		t.Fatalf("events holds %d items", n)
	}

	// Bad input: a clear message and a failing exit status.
	cmd := exec.Command(binPath, "import", csv, "--table", "x3", "--key", "id:X", "--endpoint", s.Endpoint, "--export-dir", root)
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), `"id:X" is not name:S, name:N or name:B`) {
		t.Fatalf("bad --key: %v\n%s", err, msg)
	}
	cmd = exec.Command(binPath, "import", csv, "--table", "people", "--key", "id:N", "--endpoint", s.Endpoint, "--export-dir", root)
	msg, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "ResourceInUseException: Table already exists: people") {
		t.Fatalf("import into an existing table: %v\n%s", err, msg)
	}
}

// runCLI runs the extenddb binary and returns its stdout and stderr,
// failing the test when it fails.
func runCLI(t testing.TB, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("extenddb %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// `extenddb export` exports a table into the server's export directory
// and `extenddb import` of the export's data files gives the table back.
func TestExportImportCLI(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	src := tableName("cli_exp")
	createIndexedTable(t, c, src)
	enablePITR(t, c, src)
	for i := range 40 {
		putItem(t, c, src, backupItem(i))
	}
	out, errOut := runCLI(t, "export", "--table", src, "--s3-bucket", "cli", "--s3-prefix", "nightly", "--format", "ion", "--endpoint", s.Endpoint)
	m := regexp.MustCompile(`table \S+: 40 items exported, manifest cli/(\S+)manifest-summary.json`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(errOut, "exporting "+src) {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	data := filepath.Join(root, "cli", filepath.FromSlash(m[1]), "data")
	dst := tableName("cli_imp")
	out, errOut = runCLI(t, "import", data, "--table", dst, "--key", "pk:S,sk:N", "--format", "ion", "--endpoint", s.Endpoint, "--export-dir", root)
	if !strings.Contains(out, "40 items imported, 40 processed, 0 errors") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	if got, want := tableStateOf(t, c, dst), tableStateOf(t, c, src); got != want {
		t.Fatalf("imported table differs from the exported one:\n%s\nwant\n%s", got, want)
	}
	// The whole export directory, as docs/backups.md shows it: the
	// manifests and _started hold no items and are skipped, as an
	// ImportTable of the export's S3 prefix skips them; the format and
	// compression come from the data files' names.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
	whole := tableName("cli_imp_whole")
	out, errOut = runCLI(t, "import", filepath.Dir(data), "--table", whole, "--key", "pk:S,sk:N", "--endpoint", s.Endpoint, "--export-dir", root)
	if !strings.Contains(out, "40 items imported, 40 processed, 0 errors") {
		t.Fatalf("import of the whole export directory: stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	if got, want := tableStateOf(t, c, whole), tableStateOf(t, c, src); got != want {
		t.Fatalf("table imported from the whole export differs from the exported one:\n%s\nwant\n%s", got, want)
	}

	// Bad input: a clear message and a failing exit status.
	msg, err := exec.Command(binPath, "export", "--table", src, "--s3-bucket", "cli", "--export-time", "yesterday", "--endpoint", s.Endpoint).CombinedOutput()
	if err == nil || !strings.Contains(string(msg), `--export-time "yesterday" is not an RFC 3339 time`) {
		t.Fatalf("bad --export-time: %v\n%s", err, msg)
	}
	msg, err = exec.Command(binPath, "export", "--table", "no-such-table", "--s3-bucket", "cli", "--endpoint", s.Endpoint).CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "ResourceNotFoundException") {
		t.Fatalf("export of a missing table: %v\n%s", err, msg)
	}
}

// `extenddb import` against a server that reads another export directory
// than the command's --export-dir (an --in-memory server keeps its exports
// in the system's temporary directory) fails with ImportTable's
// S3NoSuchBucket and says which flag to set.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTableDescription.html (FailureCode)
func TestImportCLIWrongExportDir(t *testing.T) {
	sqliteOnly(t, "--in-memory is SQLite's")
	s, _ := startClient(t, "--in-memory", "--export-dir", t.TempDir())
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "people.csv"), []byte("id\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "import", "people.csv", "--table", "people", "--key", "id:N", "--endpoint", s.Endpoint)
	cmd.Dir = work
	msg, err := cmd.CombinedOutput()
	want := "S3NoSuchBucket The specified bucket does not exist: extenddb-import (the files were copied under --export-dir ./extenddb-data/exports, which is not the server's export directory"
	if err == nil || !strings.Contains(string(msg), want) {
		t.Fatalf("import into another export directory: %v\n%s", err, msg)
	}
}
