package dataformat

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/extenddb/extenddb/internal/item"
)

// readAll decodes every record, rendering items as DynamoDB JSON and
// record errors as "line N: error".
func readAll(t *testing.T, d Decoder) []string {
	t.Helper()
	var out []string
	for {
		it, err := d.Next()
		if err == io.EOF {
			return out
		}
		var re *RecordError
		switch {
		case errors.As(err, &re):
			out = append(out, "line "+strconv.FormatInt(re.Line, 10)+": error")
		case err != nil:
			t.Fatal(err)
		default:
			out = append(out, string(item.AppendItemJSON(nil, it)))
		}
	}
}

// The DYNAMODB_JSON lines of DynamoDB's export: {"Item":{...}} a line;
// a line that is not one is a record error and reading goes on.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
func TestDecodeDynamoDBJSON(t *testing.T) {
	src := `{"Item":{"pk":{"S":"a"},"n":{"N":"1.50"}}}` + "\n\n" +
		`{"Item":{"pk":{"S":"b"}}` + "\n" + // truncated
		`{"Other":{}}` + "\r\n" +
		`{"Item":{"pk":{"S":"c"},"l":{"L":[{"NULL":true}]}}}` + "\n" +
		`{ "Item" : {"pk":{"S":"d"}} }` + "\n" + // spaced: read by encoding/json
		`{"Item":null}`
	d, err := NewDecoder(DynamoDBJSON, strings.NewReader(src), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(readAll(t, d), "\n")
	want := `{"n":{"N":"1.5"},"pk":{"S":"a"}}` + "\nline 3: error\nline 4: error\n" + `{"l":{"L":[{"NULL":true}]},"pk":{"S":"c"}}` +
		"\n" + `{"pk":{"S":"d"}}` + "\nline 7: error"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A line longer than maxRecord is one record error, not the end of the file.
func TestDecodeLongLine(t *testing.T) {
	src := `{"Item":{"pk":{"S":"` + strings.Repeat("x", maxRecord) + `"}}}` + "\n" + `{"Item":{"pk":{"S":"b"}}}` + "\n"
	d, _ := NewDecoder(DynamoDBJSON, strings.NewReader(src), CSVOptions{})
	got := strings.Join(readAll(t, d), "\n")
	if want := "line 1: error\n" + `{"pk":{"S":"b"}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// CSV: the first line is the header unless HeaderList is given; typed
// attributes take their type, the others are strings, empty cells are
// left out. https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CsvOptions.html
func TestDecodeCSV(t *testing.T) {
	types := map[string]string{"id": "N", "bin": "B"}
	src := "id|name|bin\n1|\"a|b\"|AAE=\n2||\nx|y|\n3|z|!!\n"
	d, err := NewDecoder(CSV, strings.NewReader(src), CSVOptions{Delimiter: "|", Types: types})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(readAll(t, d), "\n")
	want := `{"bin":{"B":"AAE="},"id":{"N":"1"},"name":{"S":"a|b"}}` + "\n" + `{"id":{"N":"2"}}` + "\nline 4: error\nline 5: error"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	d, _ = NewDecoder(CSV, strings.NewReader("1,one\n"), CSVOptions{HeaderList: []string{"id", "name"}, Types: types})
	if got := strings.Join(readAll(t, d), "\n"); got != `{"id":{"N":"1"},"name":{"S":"one"}}` {
		t.Fatalf("with HeaderList: %s", got)
	}
	if _, err := NewDecoder(CSV, strings.NewReader(""), CSVOptions{Delimiter: "#"}); err == nil {
		t.Fatal("delimiter # accepted")
	}
}

func TestDecompress(t *testing.T) {
	const text = "hello\n"
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text))
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write([]byte(text))
	zw.Close()
	for _, c := range []struct {
		comp string
		data []byte
	}{{CompressionNone, []byte(text)}, {CompressionGzip, gz.Bytes()}, {CompressionZstd, zs.Bytes()}} {
		r, err := Decompress(bytes.NewReader(c.data), c.comp)
		if err != nil {
			t.Fatal(c.comp, err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(b) != text {
			t.Fatalf("%s: %q %v", c.comp, b, err)
		}
	}
	if _, err := Decompress(bytes.NewReader([]byte(text)), CompressionGzip); err == nil {
		t.Fatal("plain text read as gzip")
	}
}
