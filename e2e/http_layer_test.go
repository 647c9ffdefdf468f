package e2e

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// HTTP-level behaviour of DynamoDB's front end: request and response
// compression, the 16 MB request limit, CORS, bodies that are not a JSON
// object, text that is not UTF-8, and the Server header. Where DynamoDB's
// answer is taken from a public test suite run against DynamoDB itself, the
// file is named at the test.

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func withHeader(k, v string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(k, v) }
}

// httpTable creates a table keyed by the string pk through raw HTTP.
func httpTable(t *testing.T, endpoint, name string) {
	t.Helper()
	r := callRaw(t, endpoint, "CreateTable", `{"TableName":"`+name+`","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	if r.Status != 200 {
		t.Fatalf("CreateTable: %d %s", r.Status, r.Body)
	}
}

// wantNoItem asserts that GetItem finds no item with key pk.
func wantNoItem(t *testing.T, endpoint, table, pk string) {
	t.Helper()
	r := callRaw(t, endpoint, "GetItem", `{"TableName":"`+table+`","Key":{"pk":{"S":`+strconv.Quote(pk)+`}},"ConsistentRead":true}`)
	if r.Status != 200 || string(r.Body) != "{}" {
		t.Fatalf("GetItem %q: want no item, got %d %s", pk, r.Status, r.Body)
	}
}

func putBody(table, pk string) []byte {
	return []byte(`{"TableName":"` + table + `","Item":{"pk":{"S":"` + pk + `"},"v":{"S":"x"}}}`)
}

// Request bodies in gzip and deflate are accepted; concatenated gzip members
// are one body; bytes after the last member that are not another member are
// ignored, as DynamoDB ignores them. A body that does not decompress, an
// empty gzip body and an unknown Content-Encoding are answered with HTTP 500
// and change nothing. DynamoDB's answers: scylladb/scylladb
// test/alternator/test_compressed_request.py (run against DynamoDB) and
// https://github.com/scylladb/scylladb/pull/27917 (deflate).
func TestHTTPCompressedRequestBodies(t *testing.T) {
	s := startServer(t)
	httpTable(t, s.Endpoint, "zipped")
	ok := []struct {
		name, encoding string
		body           func(pk string) []byte
	}{
		{"gzip", "gzip", func(pk string) []byte { return gzipBytes(putBody("zipped", pk)) }},
		{"GZIP in capitals", "GZIP", func(pk string) []byte { return gzipBytes(putBody("zipped", pk)) }},
		{"deflate", "deflate", func(pk string) []byte { return zlibBytes(putBody("zipped", pk)) }},
		{"identity", "identity", func(pk string) []byte { return putBody("zipped", pk) }},
		{"two gzip members", "gzip", func(pk string) []byte {
			b := putBody("zipped", pk)
			return append(gzipBytes(b[:10]), gzipBytes(b[10:])...)
		}},
		{"junk after gzip", "gzip", func(pk string) []byte { return append(gzipBytes(putBody("zipped", pk)), "junk"...) }},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			pk := "ok-" + tc.name
			r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.PutItem", tc.body(pk), true, withHeader("Content-Encoding", tc.encoding)))
			checkEnvelope(t, r)
			if r.Status != 200 || string(r.Body) != "{}" {
				t.Fatalf("PutItem: %d %s", r.Status, r.Body)
			}
			g := callRaw(t, s.Endpoint, "GetItem", `{"TableName":"zipped","Key":{"pk":{"S":"`+pk+`"}},"ConsistentRead":true}`)
			if want := `{"Item":{"pk":{"S":"` + pk + `"},"v":{"S":"x"}}}`; string(g.Body) != want {
				t.Fatalf("GetItem: %s, want %s", g.Body, want)
			}
		})
	}
	bad := []struct {
		name, encoding string
		body           func(pk string) []byte
	}{
		{"not gzip", "gzip", func(pk string) []byte { return putBody("zipped", pk) }},
		{"truncated gzip", "gzip", func(pk string) []byte { b := gzipBytes(putBody("zipped", pk)); return b[:len(b)-1] }},
		{"empty gzip", "gzip", func(string) []byte { return nil }},
		{"not deflate", "deflate", func(pk string) []byte { return putBody("zipped", pk) }},
		{"unknown encoding", "garbage", func(pk string) []byte { return putBody("zipped", pk) }},
		{"br", "br", func(pk string) []byte { return putBody("zipped", pk) }},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			pk := "bad-" + tc.name
			r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.PutItem", tc.body(pk), true, withHeader("Content-Encoding", tc.encoding)))
			checkEnvelope(t, r)
			want := `{"__type":"com.amazon.coral.service#InternalFailure","message":"The request processing has failed because of an unknown error, exception or failure."}`
			if r.Status != 500 || string(r.Body) != want {
				t.Fatalf("got %d %s\nwant 500 %s", r.Status, r.Body, want)
			}
			wantNoItem(t, s.Endpoint, "zipped", pk)
		})
	}
}

// A request body over 16 MB is refused with HTTP 413 whether its size is
// declared with Content-Length or it comes chunked, and a compressed body
// whose decoded size passes 16 MB is refused the same way (extenddb bounds
// the decoded size; see docs/differences-from-dynamodb.md). DynamoDB's 413:
// scylladb/scylladb test/alternator/test_manual_requests.py
// test_too_large_request_chunked and test_too_large_request_content_length;
// the 16 MB limit: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func TestHTTPRequestTooLarge(t *testing.T) {
	s := startServer(t)
	httpTable(t, s.Endpoint, "big")
	spaces := strings.Repeat(" ", 17<<20)
	body := []byte(`{"TableName":"big",` + spaces + `"Item":{"pk":{"S":"too-big"}}}`)
	want := `{"__type":"com.amazon.coral.service#RequestEntityTooLargeException","message":"Request size exceeded 16777216 bytes"}`
	for _, tc := range []struct {
		name string
		body []byte
		edit func(*http.Request)
	}{
		{"Content-Length", body, nil},
		{"chunked", body, func(r *http.Request) {
			r.ContentLength = -1
			r.Body = io.NopCloser(bytes.NewReader(body))
		}},
		{"gzip decoding past 16 MB", gzipBytes(body), withHeader("Content-Encoding", "gzip")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.PutItem", tc.body, true, tc.edit))
			if r.Status != http.StatusRequestEntityTooLarge || string(r.Body) != want {
				t.Fatalf("got %d %s\nwant 413 %s", r.Status, r.Body, want)
			}
			wantNoItem(t, s.Endpoint, "big", "too-big")
		})
	}
	t.Run("just under the limit is read", func(t *testing.T) {
		pad := strings.Repeat(" ", 16<<20-200)
		b := []byte(`{"TableName":"big",` + pad + `"Item":{"pk":{"S":"fits"}}}`)
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.PutItem", b, true, nil))
		if r.Status != 200 {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
	})
}

// Responses of 4 KB or more are compressed with the coding the client's
// Accept-Encoding prefers among gzip and deflate; smaller ones, and requests
// without Accept-Encoding, are not. x-amz-crc32 is the CRC-32 of the bytes
// sent. DynamoDB's rules: scylladb/scylladb test/alternator/test_compressed_response.py
// (run against DynamoDB), and https://github.com/aws-amplify/aws-sdk-ios/issues/201
// (DynamoDB's CRC-32 and small responses left uncompressed).
func TestHTTPResponseCompression(t *testing.T) {
	s := startServer(t)
	httpTable(t, s.Endpoint, "squeezed")
	big := strings.Repeat("x", 5000)
	if r := callRaw(t, s.Endpoint, "PutItem", `{"TableName":"squeezed","Item":{"pk":{"S":"k"},"big":{"S":"`+big+`"}}}`); r.Status != 200 {
		t.Fatalf("PutItem: %d %s", r.Status, r.Body)
	}
	get := `{"TableName":"squeezed","Key":{"pk":{"S":"k"}}}`
	plain := callRaw(t, s.Endpoint, "GetItem", get)
	if plain.Header.Get("Content-Encoding") != "" || len(plain.Body) < 5000 {
		t.Fatalf("without Accept-Encoding: Content-Encoding %q, %d bytes", plain.Header.Get("Content-Encoding"), len(plain.Body))
	}
	for _, tc := range []struct{ accept, want string }{
		{"gzip", "gzip"},
		{"deflate", "deflate"},
		{"gzip, deflate", "gzip"},
		{"br, identity, deflate, gzip", "deflate"},
		{"gzip;q=0.8, deflate;q=0.5", "gzip"},
		{"deflate;q=0.5, gzip;q=0.2", "deflate"},
		{"*", "gzip"},
		{"*, gzip;q=0.5", "deflate"},
		{"*, deflate", "deflate"},
		{"gzip;q=0", ""},
		{"identity", ""},
		{"br", ""},
		{"x-gzip", ""},
		{"*;q=0", ""},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.GetItem", []byte(get), true, withHeader("Accept-Encoding", tc.accept)))
			checkEnvelope(t, r)
			if got := r.Header.Get("Content-Encoding"); got != tc.want {
				t.Fatalf("Content-Encoding %q, want %q", got, tc.want)
			}
			body := r.Body
			switch tc.want {
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				body, _ = io.ReadAll(zr)
			case "deflate":
				zr, err := zlib.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				body, _ = io.ReadAll(zr)
			}
			if !bytes.Equal(body, plain.Body) {
				t.Fatalf("decoded body differs from the plain one (%d and %d bytes)", len(body), len(plain.Body))
			}
		})
	}
	t.Run("small responses stay plain", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, withHeader("Accept-Encoding", "gzip")))
		if r.Header.Get("Content-Encoding") != "" || string(r.Body) != `{"TableNames":["squeezed"]}` {
			t.Fatalf("got %q %s", r.Header.Get("Content-Encoding"), r.Body)
		}
	})
	t.Run("SDK with gzip enabled verifies the CRC-32 and decodes", func(t *testing.T) {
		c := newClient(t, s.Endpoint)
		out, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("squeezed"), Key: map[string]types.AttributeValue{"pk": avS("k")}},
			func(o *dynamodb.Options) { o.EnableAcceptEncodingGzip = true })
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := out.Item["big"].(*types.AttributeValueMemberS); !ok || got.Value != big {
			t.Fatalf("big attribute: %v", out.Item["big"])
		}
	})
}

// A request with an Origin header gets Access-Control-Allow-Origin: * and the
// exposed headers, on success and error alike; an OPTIONS preflight is
// answered with 200, a max age, and the method and headers it asked for;
// without Origin no CORS header is sent. DynamoDB's answers:
// scylladb/scylladb test/alternator/test_cors.py (run against DynamoDB).
func TestHTTPCORS(t *testing.T) {
	s := startServer(t)
	cors := []string{"Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Access-Control-Max-Age",
		"Access-Control-Allow-Methods", "Access-Control-Allow-Headers"}
	t.Run("no Origin", func(t *testing.T) {
		for _, method := range []string{http.MethodOptions, http.MethodGet, http.MethodPost} {
			req := rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, nil)
			req.Method = method
			r := doRaw(t, req)
			for _, h := range cors {
				if v := r.Header.Get(h); v != "" {
					t.Fatalf("%s without Origin: %s: %q", method, h, v)
				}
			}
		}
	})
	origin := func(r *http.Request) {
		r.Header.Set("Origin", "http://example.com")
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "x-amz-date, authorization, x-amz-target")
	}
	t.Run("preflight", func(t *testing.T) {
		req := rawRequest(t, s.Endpoint, "", nil, false, origin)
		req.Method = http.MethodOptions
		r := doRaw(t, req)
		checkEnvelope(t, r)
		h := r.Header
		if r.Status != 200 || len(r.Body) != 0 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Expose-Headers") == "" ||
			h.Get("Access-Control-Max-Age") == "" || h.Get("Access-Control-Allow-Methods") != "POST" ||
			h.Get("Access-Control-Allow-Headers") != "x-amz-date, authorization, x-amz-target" {
			t.Fatalf("preflight: %d %q %v", r.Status, r.Body, h)
		}
	})
	for _, tc := range []struct {
		name, target string
		status       int
	}{{"success", "DynamoDB_20120810.ListTables", 200}, {"error", "DynamoDB_20120810.Nope", 400}} {
		t.Run(tc.name, func(t *testing.T) {
			r := doRaw(t, rawRequest(t, s.Endpoint, tc.target, []byte(`{}`), true, origin))
			h := r.Header
			if r.Status != tc.status || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Expose-Headers") == "" {
				t.Fatalf("%d %v", r.Status, h)
			}
			for _, p := range []string{"Access-Control-Max-Age", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers"} {
				if v := h.Get(p); v != "" {
					t.Fatalf("%s on a POST: %q", p, v)
				}
			}
		})
	}
}

// A body that is JSON but not an object is refused before any operation
// runs: an array with "Start of list found where not expected"
// (https://github.com/rusoto/rusoto/issues/658 quotes DynamoDB's text), null
// and other scalars with a bare SerializationException, as a body that is
// not JSON at all.
func TestHTTPBodyNotAnObject(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct{ body, message string }{
		{`null`, ""},
		{` null `, ""},
		{`[]`, "Start of list found where not expected"},
		{` [{"TableName":"t"}]`, "Start of list found where not expected"},
		{`"ListTables"`, ""},
		{`1`, ""},
		{`true`, ""},
		{`{"Limit":1`, ""},
		{`{"Limit":1,}`, ""},
	} {
		t.Run(tc.body, func(t *testing.T) {
			r := callRaw(t, s.Endpoint, "ListTables", tc.body)
			checkEnvelope(t, r)
			wantRawError(t, r, "SerializationException", tc.message)
		})
	}
}

// Text that is not UTF-8, or a \u escape of half a surrogate pair, is
// refused with a bare SerializationException, never replaced: "k\xff" and
// "k\xfe" must not become one item. DynamoDB answered text sent in another
// encoding this way: https://github.com/aws/aws-sdk-js/issues/46 and
// https://github.com/totemstech/node-dynamodb/issues/9.
func TestHTTPInvalidUTF8(t *testing.T) {
	s := startServer(t)
	httpTable(t, s.Endpoint, "utf")
	for _, pk := range []string{"k\xff", "k\xfe", `k\udcff`, `k\ud800`, `k\ud800x`, `k\ud800\u0041`} {
		t.Run(strconv.Quote(pk), func(t *testing.T) {
			r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.PutItem",
				[]byte(`{"TableName":"utf","Item":{"pk":{"S":"`+pk+`"}}}`), true, nil))
			checkEnvelope(t, r)
			wantRawError(t, r, "SerializationException", "")
		})
	}
	scan := callRaw(t, s.Endpoint, "Scan", `{"TableName":"utf"}`)
	if string(scan.Body) != `{"Items":[],"Count":0,"ScannedCount":0}` {
		t.Fatalf("Scan after refused writes: %s", scan.Body)
	}
	t.Run("a surrogate pair is one character", func(t *testing.T) {
		r := callRaw(t, s.Endpoint, "PutItem", `{"TableName":"utf","Item":{"pk":{"S":"k\ud83d\ude00"}}}`)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		g := callRaw(t, s.Endpoint, "GetItem", `{"TableName":"utf","Key":{"pk":{"S":"k😀"}}}`)
		var out struct{ Item map[string]map[string]string }
		if err := json.Unmarshal(g.Body, &out); err != nil || out.Item["pk"]["S"] != "k😀" {
			t.Fatalf("GetItem: %s", g.Body)
		}
	})
}

// Every response names its server in a Server header, success and error
// alike, as DynamoDB's do (scylladb/scylladb test/alternator/test_http_headers.py,
// run against DynamoDB, asserts the header is present).
func TestHTTPServerHeader(t *testing.T) {
	s := startServer(t)
	for _, target := range []string{"DynamoDB_20120810.ListTables", "DynamoDB_20120810.Nope"} {
		r := doRaw(t, rawRequest(t, s.Endpoint, target, []byte(`{}`), true, nil))
		if got := r.Header.Get("Server"); got != "Server" {
			t.Fatalf("%s: Server %q", target, got)
		}
		if crc := strconv.FormatUint(uint64(crc32.ChecksumIEEE(r.Body)), 10); r.Header.Get("x-amz-crc32") != crc {
			t.Fatalf("crc")
		}
	}
}
