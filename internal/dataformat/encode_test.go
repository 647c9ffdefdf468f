package dataformat

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

func sampleItem() item.Item {
	return item.Item{
		"pk":   item.S("a\"b\n"),
		"n":    item.N("103"),
		"f":    item.N("-1.5"),
		"b":    item.B([]byte("hi")),
		"t":    item.Bool(true),
		"z":    item.Null(),
		"l":    item.L(item.S("x"), item.N("2")),
		"m":    item.M(map[string]item.AttributeValue{"k": item.S("v")}),
		"ss":   item.SS("s1", "s2"),
		"ns":   item.NS("1", "2.5"),
		"bs":   item.BS([]byte{1}, []byte{2}),
		"utf8": item.S("é"),
	}
}

// A full export's DYNAMODB_JSON line is {"Item":{...}} with the item in
// DynamoDB JSON; an incremental one carries Metadata.WriteTimestampMicros
// as a number attribute, Keys, NewImage and OldImage.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
func TestJSONEncoderLines(t *testing.T) {
	var buf bytes.Buffer
	enc, err := NewEncoder("DYNAMODB_JSON", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&Record{Item: item.Item{"pk": item.S("a"), "n": item.N("1")}}); err != nil {
		t.Fatal(err)
	}
	keys := item.Item{"pk": item.S("a")}
	if err := enc.Encode(&Record{Keys: keys, WriteTimestampMicros: 1680109764000000,
		NewImage: item.Item{"pk": item.S("a"), "n": item.N("2")}, OldImage: item.Item{"pk": item.S("a"), "n": item.N("1")}}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&Record{Keys: keys, WriteTimestampMicros: 5}); err != nil {
		t.Fatal(err)
	}
	want := `{"Item":{"n":{"N":"1"},"pk":{"S":"a"}}}` + "\n" +
		`{"Metadata":{"WriteTimestampMicros":{"N":"1680109764000000"}},"Keys":{"pk":{"S":"a"}},"NewImage":{"n":{"N":"2"},"pk":{"S":"a"}},"OldImage":{"n":{"N":"1"},"pk":{"S":"a"}}}` + "\n" +
		`{"Metadata":{"WriteTimestampMicros":{"N":"5"}},"Keys":{"pk":{"S":"a"}}}` + "\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// ION lines start with the version marker once and map DynamoDB types to
// Ion's: numbers are decimals, binaries blobs, sets annotated lists.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
func TestIonEncoderLines(t *testing.T) {
	var buf bytes.Buffer
	enc, err := NewEncoder("ION", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&Record{Item: sampleItem()}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&Record{Keys: item.Item{"pk": item.S("a")}, WriteTimestampMicros: 7, OldImage: item.Item{"pk": item.S("a")}}); err != nil {
		t.Fatal(err)
	}
	want := `$ion_1_0 {Item:{"b":{{aGk=}},"bs":$dynamodb_BS::[{{AQ==}},{{Ag==}}],"f":-1.5,"l":["x",2.],"m":{"k":"v"},"n":103.,` +
		`"ns":$dynamodb_NS::[1.,2.5],"pk":"a\"b\n","ss":$dynamodb_SS::["s1","s2"],"t":true,"utf8":"é","z":null}}` + "\n" +
		`{Metadata:{WriteTimestampMicros:7.},Keys:{"pk":"a"},OldImage:{"pk":"a"}}` + "\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if _, err := NewEncoder("CSV", &buf); err == nil {
		t.Fatal("CSV is not an export format")
	}
}

// A data file is gzip of its lines, named <random>.json.gz under data/;
// its manifest line gives the record count, the base64 MD5 and the hex
// ETag of the stored (compressed) bytes.
func TestDataFileWriter(t *testing.T) {
	dir := t.TempDir()
	key := ExportKey("my/prefix", "01234567890123-abcdef01")
	w, err := CreateDataFile(dir, key, "DYNAMODB_JSON")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := w.Write(&Record{Item: sampleItem()}); err != nil {
			t.Fatal(err)
		}
	}
	mf, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if mf.ItemCount != 3 || !strings.HasPrefix(mf.DataFileS3Key, "my/prefix/AWSDynamoDB/01234567890123-abcdef01/data/") ||
		!strings.HasSuffix(mf.DataFileS3Key, ".json.gz") || len(filepath.Base(mf.DataFileS3Key)) != 26+len(".json.gz") {
		t.Fatalf("manifest line %+v", mf)
	}
	raw, err := os.ReadFile(filepath.Join(dir, DataFolder, filepath.Base(mf.DataFileS3Key)))
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(raw)
	if mf.MD5Checksum != base64.StdEncoding.EncodeToString(sum[:]) || mf.ETag != hex.EncodeToString(sum[:]) {
		t.Fatalf("checksums %+v", mf)
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(gz)
	if n := strings.Count(string(text), "\n"); n != 3 || !strings.HasPrefix(string(text), `{"Item":{"b":{"B":"aGk="}`) {
		t.Fatalf("data %q", text)
	}
}

// The manifests round-trip, each with its .md5 file, and a changed
// manifest is refused.
func TestManifestsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2020, 11, 4, 7, 28, 34, 28_000_000, time.UTC)
	prefix := "p"
	s := &ManifestSummary{Version: ManifestVersionFull, ExportArn: "arn:aws:dynamodb:us-east-1:123456789012:table/T/export/1", StartTime: Timestamp{at},
		EndTime: Timestamp{at}, ExportTime: &Timestamp{at}, S3Bucket: "b", S3Prefix: &prefix, S3SseAlgorithm: "AES256",
		ManifestFilesS3Key: "p/AWSDynamoDB/1/manifest-files.json", ItemCount: 2, OutputFormat: "DYNAMODB_JSON"}
	files := []ManifestFile{{ItemCount: 2, MD5Checksum: "x", ETag: "y", DataFileS3Key: "p/AWSDynamoDB/1/data/a.json.gz"}}
	if err := WriteManifests(dir, s, files); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ManifestSummaryFile))
	for _, want := range []string{`"version":"2020-06-30"`, `"startTime":"2020-11-04T07:28:34.028Z"`, `"s3SseKmsKeyId":null`, `"s3Prefix":"p"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary %s lacks %s", b, want)
		}
	}
	gs, gf, err := ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if gs.ExportArn != s.ExportArn || !gs.ExportTime.Equal(at) || len(gf) != 1 || gf[0] != files[0] {
		t.Fatalf("read back %+v %+v", gs, gf)
	}
	os.WriteFile(filepath.Join(dir, ManifestFilesFile), []byte("{}\n"), 0o644)
	if _, _, err := ReadManifests(dir); err == nil {
		t.Fatal("a manifest that does not match its .md5 was read")
	}
	if got := ExportKey("", "id"); got != "AWSDynamoDB/id" {
		t.Fatalf("ExportKey without prefix: %s", got)
	}
	if got := ExportKey("a/b/", "id"); got != "a/b/AWSDynamoDB/id" {
		t.Fatalf("ExportKey with prefix: %s", got)
	}
}
