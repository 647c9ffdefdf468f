package e2e

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// A body that cannot be read to its end (broken chunked framing, or a
// client that stops sending before its Content-Length) is never answered
// 200: the write it carried was not applied, and an empty 200 would tell
// the SDK it was. The connection is closed without an answer (or answered
// with an error), and nothing is written.
func TestHTTPUnreadableBodyNotAcknowledged(t *testing.T) {
	s := startServer(t)
	httpTable(t, s.Endpoint, "framing")
	head := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n" +
		"Content-Type: application/x-amz-json-1.0\r\nX-Amz-Date: 20260101T000000Z\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/dynamodb/aws4_request, " +
		"SignedHeaders=host;x-amz-date, Signature=0000000000000000000000000000000000000000000000000000000000000000\r\n"
	cases := []struct {
		name, pk string
		send     func(c net.Conn, body []byte)
	}{
		{"bad chunk size", "chunk", func(c net.Conn, body []byte) {
			fmt.Fprintf(c, "%sTransfer-Encoding: chunked\r\n\r\nzz\r\n%s\r\n0\r\n\r\n", head, body)
		}},
		{"chunked without end", "chunkeof", func(c net.Conn, body []byte) {
			fmt.Fprintf(c, "%sTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", head, len(body), body)
			c.(*net.TCPConn).CloseWrite()
		}},
		{"short body", "short", func(c net.Conn, body []byte) {
			fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", head, len(body)+10, body)
			c.(*net.TCPConn).CloseWrite()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialServer(t, s.Endpoint)
			tc.send(c, putBody("framing", tc.pk))
			st, err := readStatus(t, bufio.NewReader(c), 10*time.Second, c)
			if err == nil && st < 400 {
				t.Fatalf("unreadable body answered %d", st)
			}
			wantNoItem(t, s.Endpoint, "framing", tc.pk)
		})
	}
}

// Headers are bounded at 64 KiB (HTTP 431 past it), so that connections
// cannot hold memory in headers outside the request memory budget; a
// request with a few KB of headers is served. DynamoDB refuses a 17,000-byte
// request line with HTTP 400: https://github.com/scylladb/scylladb/pull/23442
// (test_manual_requests.py, run against DynamoDB).
func TestHTTPHeadersBounded(t *testing.T) {
	s := startServer(t)
	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true,
		withHeader("X-Padding", strings.Repeat("p", 8<<10))))
	if r.Status != 200 {
		t.Errorf("8 KB of headers: HTTP %d, want 200", r.Status)
	}
	// Past the bound the server answers 431 and closes; the client may see
	// the connection reset before it reads the answer. Never a 200.
	resp, err := rawClient.Do(rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true,
		withHeader("X-Padding", strings.Repeat("p", 100<<10))))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != 431 {
			t.Errorf("100 KB of headers: HTTP %d, want 431", resp.StatusCode)
		}
	}
}
