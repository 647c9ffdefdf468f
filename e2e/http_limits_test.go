package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
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

// A client that never reads its response does not hold the server's memory
// and connection past the write timeout: 16 MB of BatchGetItem response
// unread, the connection is closed after about a second, and the client
// can read only part of the response.
func TestHTTPUnreadResponseTimesOut(t *testing.T) {
	s := startServer(t, "--http-write-timeout", "1s")
	httpTable(t, s.Endpoint, "wide")
	big := strings.Repeat("z", 390_000)
	var keys []string
	for i := range 40 {
		pk := fmt.Sprintf("k%02d", i)
		if r := callRaw(t, s.Endpoint, "PutItem", `{"TableName":"wide","Item":{"pk":{"S":"`+pk+`"},"v":{"S":"`+big+`"}}}`); r.Status != 200 {
			t.Fatalf("PutItem: %d %s", r.Status, r.Body)
		}
		keys = append(keys, `{"pk":{"S":"`+pk+`"}}`)
	}
	c := dialServer(t, s.Endpoint)
	req := rawRequest(t, s.Endpoint, "DynamoDB_20120810.BatchGetItem",
		[]byte(`{"RequestItems":{"wide":{"Keys":[`+strings.Join(keys, ",")+`]}}}`), true, nil)
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // read nothing past the write timeout
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection still open after the write timeout (%d bytes read)", n)
	}
	if n >= 40*390_000 {
		t.Fatalf("read the whole response (%d bytes) from a client that stalled past the write timeout", n)
	}
}

// Compressed bodies that inflate to nearly 16 MB each, sent 16 at once,
// stay within the request memory budget: some wait or are throttled with
// DynamoDB's retryable ThrottlingException, none is answered with a 500,
// and the server's resident memory stays far below 16 decoded bodies.
func TestHTTPInflatingBodiesWithinBudget(t *testing.T) {
	s := startServer(t, "--request-memory-mib", "64", "--admission-wait", "200ms")
	httpTable(t, s.Endpoint, "inflate")
	body := gzipBytes([]byte(`{"TableName":"inflate",` + strings.Repeat(" ", 15<<20) + `"Item":{"pk":{"S":"x"}}}`))
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak.Store(max(peak.Load(), rss(t, s.Pid())))
			}
		}
	}()
	var wg sync.WaitGroup
	var ok, throttled atomic.Int64
	for range 16 {
		wg.Go(func() {
			r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.PutItem", body, true, withHeader("Content-Encoding", "gzip")))
			switch {
			case r.Status == 200:
				ok.Add(1)
			case r.Status == 400 && strings.Contains(string(r.Body), "#ThrottlingException"):
				throttled.Add(1)
			default:
				t.Errorf("got %d %.200s", r.Status, r.Body)
			}
		})
	}
	wg.Wait()
	close(stop)
	if ok.Load() == 0 {
		t.Fatalf("no request admitted (%d throttled)", throttled.Load())
	}
	if p := peak.Load(); p > 256<<20 {
		t.Fatalf("resident memory peaked at %d MiB for a 64 MiB budget", p>>20)
	}
	t.Logf("%d admitted, %d throttled, peak RSS %d MiB", ok.Load(), throttled.Load(), peak.Load()>>20)
}
