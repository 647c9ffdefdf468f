package protocol

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/admission"
)

// echoHandler answers every known operation with the length of its body.
type echoHandler struct{}

func (echoHandler) Serve(_ context.Context, r *Request) (any, error) {
	return map[string]int{"Length": len(r.Body)}, nil
}
func (echoHandler) Known(service, op string) bool { return op == "Echo" }

const signed = "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc"

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.Echo")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Authorization", signed)
	req.Header.Set("X-Amz-Date", "20240101T000000Z")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// stallingClients opens n connections that each declare a body of
// declared bytes, send only a few of them, and wait.
func stallingClients(t *testing.T, addr string, n int, declared int) {
	t.Helper()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.Echo\r\n"+
			"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n{\"a\":", declared)
	}
}

// Memory is taken as a body's bytes arrive, never from the length it
// declares: 20 connections that declare 15 MB and send 5 bytes hold next
// to nothing, and a small budget still admits a normal request beside them.
func TestBodyMemoryFollowsArrivingBytes(t *testing.T) {
	s := &Server{Handler: echoHandler{}, DefaultRegion: "us-east-1", Budget: admission.New(8<<20, 200*time.Millisecond)}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close) // after the stalled clients' Cleanup
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stallingClients(t, ts.Listener.Addr().String(), 20, 15<<20)
	time.Sleep(200 * time.Millisecond) // let the server read every header
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 32<<20 {
		t.Fatalf("20 stalled 15 MB declarations hold %d MB of heap", grown>>20)
	}
	if status, body := post(t, ts.URL, `{"x":1}`); status != 200 || body != `{"Length":7}` {
		t.Fatalf("beside stalled clients: %d %s", status, body)
	}
}

// Past the memory budget a request waits, then gets ThrottlingException;
// requests already admitted are served.
func TestBudgetThrottlesLargeBodies(t *testing.T) {
	s := &Server{Handler: echoHandler{}, DefaultRegion: "us-east-1", Budget: admission.New(16<<20, 50*time.Millisecond)}
	ts := httptest.NewServer(s)
	defer ts.Close()
	// One client sends 3 MB of a 6 MB body and stalls: it holds 3 times its
	// 4 MB buffer, most of the budget.
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // before ts.Close, which waits for it
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.Echo\r\n"+
		"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n{\"a\":\"%s", 6<<20, strings.Repeat("x", 3<<20))
	time.Sleep(200 * time.Millisecond)
	status, body := post(t, ts.URL, `{"b":"`+strings.Repeat("y", 1<<20)+`"}`)
	want := `{"__type":"com.amazon.coral.availability#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}`
	if status != 400 || body != want {
		t.Fatalf("past the budget: %d %.200s\nwant 400 %s", status, body, want)
	}
	if status, body := post(t, ts.URL, `{"x":1}`); status != 200 || body != `{"Length":7}` {
		t.Fatalf("small request beside it: %d %s", status, body)
	}
}

// Accept-Encoding is read as DynamoDB reads it. The cases and DynamoDB's
// choices are from scylladb/scylladb test/alternator/test_compressed_response.py
// test_compressed_response_accept_encodings, run against DynamoDB.
func TestNegotiateEncoding(t *testing.T) {
	for accept, want := range map[string]string{
		"identity": "", "": "", "br": "", "zstd": "", "compress": "", "x-gzip": "",
		"gzip, deflate":                                 "gzip",
		"br, identity, deflate, gzip":                   "deflate",
		"GZIP, identity":                                "gzip",
		"dog, gzip ,, cat":                              "gzip",
		"gzip;q=0.8, deflate;q=0.5":                     "gzip",
		"br, gzip;q=0, deflate; q = 0.5 , identity;q=0": "deflate",
		"*":                               "gzip",
		"*, deflate;q=0.5":                "gzip",
		"*, deflate":                      "deflate",
		"*, identity":                     "gzip",
		"*, gzip;q=0.5":                   "deflate",
		"gzip ;q=0":                       "",
		"identity;q=0":                    "",
		"*;q=0":                           "",
		"*;q=0.5,identity":                "gzip",
		"gzip;q=0.5,identity;q=0.8":       "gzip",
		"br;q=0.8,identity;q=0.5,*;q=0":   "",
		`"gzip"`:                          "",
		"gzip br":                         "",
		"gzip:q=1":                        "",
		"deflate;q=0.5, gzip;q=31":        "gzip",
		"gzip;q=31,deflate;q=51":          "gzip",
		"deflate;q=0.5, gzip;q=0.2":       "deflate",
		"deflate;q=0.5, gzip;q=1;q=0.2":   "gzip",
		"deflate;q=0.5,gzip;q=0.":         "deflate",
		"deflate;q=0.5,gzip;q=0.x":        "gzip",
		"deflate;q=-0.5,gzip;q=0.2":       "gzip",
		"gzip;nq=1;q=0 ":                  "",
		"gzip;q=0, gzip;q=1, gzip;q=0":    "gzip",
		"br,identity;q=0.5,gzip;q=0.0001": "gzip",
	} {
		if got := negotiateEncoding(accept); got != want {
			t.Errorf("Accept-Encoding %q: %q, DynamoDB chooses %q", accept, got, want)
		}
	}
}

// A \u escape of half a surrogate pair is refused; a pair, an escaped
// backslash before "u" and plain text are not.
func TestLoneSurrogates(t *testing.T) {
	for body, lone := range map[string]bool{
		`{"k":"\ud800"}`:         true,
		`{"k":"\udc00"}`:         true,
		`{"k":"\ud800\u0041"}`:   true,
		`{"k":"\ud800x"}`:        true,
		`{"k":"\ud83d\ude00"}`:   false,
		`{"k":"\\ud800"}`:        false,
		`{"k":"\\\ud83d\ude00"}`: false,
		`{"k":"\u00e9\n"}`:       false,
		`{"k":"plain"}`:          false,
		`{"k":"\ud8`:             false, // not JSON: the operation refuses it
	} {
		if got := hasLoneSurrogate([]byte(body)); got != lone {
			t.Errorf("%s: lone surrogate %v, want %v", body, got, lone)
		}
	}
}

// No body can make the front door's check panic.
func FuzzCheckJSONBody(f *testing.F) {
	for _, s := range []string{`{}`, `[`, `"\u`, `{"a":"\ud800\`, "\xff", `\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { _ = checkJSONBody(b) })
}
