package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestGracefulShutdown sends SIGTERM while requests are still arriving: the
// server stops accepting connections, finishes the requests it has begun,
// and exits 0; the writes it acknowledged are there after a restart.
func TestGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	name := tableName("shutdown")
	createHashTable(t, c, name, "S")
	host := strings.TrimPrefix(s.Endpoint, "http://")

	// Each connection sends its headers and half of a PutItem body, so the
	// server is inside the request when the signal arrives.
	const n = 8
	conns := make([]net.Conn, n)
	rest := make([]string, n)
	for i := range conns {
		body := fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"inflight-%d"},"v":{"N":"%d"}}}`, name, i, i)
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		head := "POST / HTTP/1.1\r\nHost: " + host + "\r\n" +
			"X-Amz-Target: DynamoDB_20120810.PutItem\r\n" +
			"Content-Type: application/x-amz-json-1.0\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=" + testAccessKey + "/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0000\r\n" +
			"X-Amz-Date: 20240101T000000Z\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
		if _, err := conn.Write([]byte(head + body[:len(body)/2])); err != nil {
			t.Fatal(err)
		}
		conns[i], rest[i] = conn, body[len(body)/2:]
	}
	// The listener hands out connections in the order they arrived, so once
	// a request on a ninth connection is answered, the server has accepted
	// all eight: closing the listener can no longer drop one of them, and
	// net/http's Shutdown waits for an accepted connection for 5 s even
	// before it has read a byte of it.
	probeAccepted(t, host)
	time.Sleep(300 * time.Millisecond) // let the server read the first halves
	s.signal(syscall.SIGTERM)
	time.Sleep(500 * time.Millisecond)

	// New connections are refused once shutdown has begun.
	if conn, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		conn.Close()
		t.Error("server accepted a new connection after SIGTERM")
	}

	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range conns {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conn := conns[i]
			conn.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := conn.Write([]byte(rest[i])); err != nil {
				errs <- fmt.Errorf("conn %d: finishing body: %v", i, err)
				return
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				errs <- fmt.Errorf("conn %d: reading response: %v", i, err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("conn %d: status %d", i, resp.StatusCode)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.wait(30 * time.Second); err != nil {
		t.Fatalf("extenddb after SIGTERM: %v (want exit status 0)\n%s", err, s.log.String())
	}
	if !strings.Contains(s.log.String(), `msg=stopped`) {
		t.Errorf("no \"stopped\" log line after SIGTERM:\n%s", s.log.String())
	}

	// Everything acknowledged is there after a restart on the same data.
	_, c2 := startClient(t, "--data-dir", dir)
	for i := 0; i < n; i++ {
		wantItem(t, getItem(t, c2, name, item{"pk": avS(fmt.Sprintf("inflight-%d", i))}),
			item{"pk": avS(fmt.Sprintf("inflight-%d", i)), "v": avN(fmt.Sprint(i))})
	}
}

// probeAccepted sends a whole ListTables request on a new connection and
// reads its answer.
func probeAccepted(t *testing.T, host string) {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	body := "{}"
	req := "POST / HTTP/1.1\r\nHost: " + host + "\r\n" +
		"X-Amz-Target: DynamoDB_20120810.ListTables\r\n" +
		"Content-Type: application/x-amz-json-1.0\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=" + testAccessKey + "/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0000\r\n" +
		"X-Amz-Date: 20240101T000000Z\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("probe: status %d", resp.StatusCode)
	}
}

// TestSIGINTShutdown: Ctrl-C in a terminal stops the server cleanly too.
func TestSIGINTShutdown(t *testing.T) {
	s, c := startClient(t)
	if _, err := c.ListTables(ctxT(t), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	s.signal(syscall.SIGINT)
	if err := s.wait(30 * time.Second); err != nil {
		t.Fatalf("extenddb after SIGINT: %v (want exit status 0)", err)
	}
}

// TestDurabilityAfterKill kills the server with SIGKILL in the middle of a
// write load from several clients, restarts it on the same data directory,
// and checks that every PutItem that was acknowledged is there.
func TestDurabilityAfterKill(t *testing.T) {
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	name := tableName("durable")
	createHashTable(t, c, name, "S")

	const writers = 4
	const maxPerWriter = 20000 // bound the load even if the kill never lands
	var (
		mu    sync.Mutex
		acked [][2]int // writer, sequence
		total atomic.Int64
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			wc := newClient(t, s.Endpoint)
			for i := 0; i < maxPerWriter && !stop.Load(); i++ {
				key := fmt.Sprintf("w%d-%06d", w, i)
				_, err := wc.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name),
					Item: item{"pk": avS(key), "w": avN(fmt.Sprint(w)), "i": avN(fmt.Sprint(i)), "pad": avS(strings.Repeat("p", 200))}})
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked = append(acked, [2]int{w, i})
				mu.Unlock()
				total.Add(1)
			}
		}(w)
	}
	deadline := time.Now().Add(20 * time.Second)
	for total.Load() < 400 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s.kill()
	stop.Store(true)
	wg.Wait()
	if len(acked) < 400 {
		t.Fatalf("only %d writes acknowledged before the kill", len(acked))
	}

	_, c2 := startClient(t, "--data-dir", dir)
	missing := 0
	for _, a := range acked {
		key := fmt.Sprintf("w%d-%06d", a[0], a[1])
		want := item{"pk": avS(key), "w": avN(fmt.Sprint(a[0])), "i": avN(fmt.Sprint(a[1])), "pad": avS(strings.Repeat("p", 200))}
		got := getItem(t, c2, name, item{"pk": avS(key)})
		if itemText(got) != itemText(want) {
			missing++
			if missing <= 10 {
				t.Errorf("acknowledged PutItem %s after kill -9 and restart:\nwant %s\ngot  %s", key, itemText(want), itemText(got))
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged writes lost or wrong", missing, len(acked))
	}
	t.Logf("%d acknowledged writes all present after kill -9", len(acked))
}
