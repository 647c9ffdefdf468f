package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func dialServer(t *testing.T, endpoint string) net.Conn {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// writeListTables sends one signed ListTables request on c.
func writeListTables(t *testing.T, c net.Conn, endpoint string) {
	t.Helper()
	req := rawRequest(t, endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, nil)
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
}

func readStatus(t *testing.T, br *bufio.Reader, timeout time.Duration, c net.Conn) (int, error) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(timeout))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A client that sends its body too slowly is disconnected after the read
// timeout instead of holding the connection forever.
func TestHTTPSlowBodyTimesOut(t *testing.T) {
	s := startServer(t, "--http-read-timeout", "1s")
	c := dialServer(t, s.Endpoint)
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"+
		"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n{")
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection still open after %v", time.Since(start))
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("closed after %v, want about 1s", waited)
	}
}

// At the connection limit a new connection waits to be accepted while the
// connections already open keep being served; when one closes, the waiting
// one is served.
func TestHTTPConnectionLimit(t *testing.T) {
	s := startServer(t, "--max-connections", "2")
	var held []net.Conn
	var readers []*bufio.Reader
	for range 2 {
		c := dialServer(t, s.Endpoint)
		br := bufio.NewReader(c)
		writeListTables(t, c, s.Endpoint)
		if st, err := readStatus(t, br, 10*time.Second, c); err != nil || st != 200 {
			t.Fatalf("connection under the limit: %d %v", st, err)
		}
		held, readers = append(held, c), append(readers, br)
	}
	waiting := dialServer(t, s.Endpoint)
	wbr := bufio.NewReader(waiting)
	writeListTables(t, waiting, s.Endpoint)
	if _, err := readStatus(t, wbr, 500*time.Millisecond, waiting); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("third connection answered past the limit of 2 (%v)", err)
	}
	for i, c := range held {
		writeListTables(t, c, s.Endpoint)
		if st, err := readStatus(t, readers[i], 10*time.Second, c); err != nil || st != 200 {
			t.Fatalf("open connection %d at the limit: %d %v", i, st, err)
		}
	}
	held[0].Close()
	if st, err := readStatus(t, wbr, 10*time.Second, waiting); err != nil || st != 200 {
		t.Fatalf("waiting connection after one closed: %d %v", st, err)
	}
}
