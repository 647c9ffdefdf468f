package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSoak runs mixed load against one server on SQLite or the suite's
// backend: writers and readers, gzip bodies, clients that send their body
// too slowly, bodies over 16 MB, and kill -9 followed by a restart on the
// same data. It passes only if the server's resident memory stays under a
// ceiling, its descriptors return to their level before the load, no
// acknowledged write is lost, and no request is answered with a 500.
//
// By default it runs for 8 seconds with one kill. EXTENDDB_SOAK=<duration>
// (for example EXTENDDB_SOAK=10m) runs it for that long with a kill every
// 30 seconds.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	duration, killEvery := 8*time.Second, 4*time.Second
	if v := os.Getenv("EXTENDDB_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("EXTENDDB_SOAK=%q is not a duration", v)
		}
		duration, killEvery = d, 30*time.Second
	}
	const rssCeiling = 512 << 20 // bytes; the request memory budget is 128 MiB
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--http-read-timeout", "2s", "--request-memory-mib", "128"}
	s := startServer(t, args...)
	var ep atomic.Pointer[string]
	ep.Store(&s.Endpoint)
	httpTable(t, s.Endpoint, "soak")

	sk := &soaker{t: t, endpoint: &ep, acked: map[string]int{}}
	baseFDs := countFDs(t, s.Pid())
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() { sk.writer(ctx, w) })
	}
	wg.Go(func() { sk.reader(ctx) })
	wg.Go(func() { sk.slowClients(ctx) })
	wg.Go(func() { sk.oversized(ctx) })

	peak := int64(0)
	nextKill := time.Now().Add(killEvery)
	for ctx.Err() == nil {
		peak = max(peak, rss(t, s.Pid()))
		if time.Now().After(nextKill) {
			s.kill()
			s = startServer(t, args...)
			ep.Store(&s.Endpoint)
			sk.kills.Add(1)
			nextKill = time.Now().Add(killEvery)
			baseFDs = countFDs(t, s.Pid())
		}
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	if peak > rssCeiling {
		t.Errorf("resident memory peaked at %d MiB, ceiling %d MiB", peak>>20, rssCeiling>>20)
	}
	for _, e := range sk.failures() {
		t.Error(e)
	}
	sk.checkAcked(s.Endpoint)
	// Descriptors come back once clients are gone and the slow ones timed out.
	rawClient.CloseIdleConnections()
	sk.client.CloseIdleConnections()
	deadline := time.Now().Add(15 * time.Second)
	for {
		n := countFDs(t, s.Pid())
		if n <= baseFDs+8 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("descriptors: %d before the load, %d after it", baseFDs, n)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d writes acknowledged on %d keys, %d kills, peak RSS %d MiB", sk.writes.Load(), sk.ackCount(), sk.kills.Load(), peak>>20)
}

type soaker struct {
	t        *testing.T
	endpoint *atomic.Pointer[string]
	client   http.Client
	kills    atomic.Int64
	writes   atomic.Int64 // writes acknowledged

	mu     sync.Mutex
	acked  map[string]int // key -> highest acknowledged version
	errors []string
}

func (s *soaker) failf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errors) < 20 {
		s.errors = append(s.errors, fmt.Sprintf(format, args...))
	}
}

func (s *soaker) failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errors...)
}

func (s *soaker) ackCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.acked)
}

// do sends one request; a transport error (the server being killed) gives
// status 0. A 500 is a failure of the test.
func (s *soaker) do(op string, body []byte, edit func(*http.Request)) (int, []byte) {
	req := rawRequest(s.t, *s.endpoint.Load(), "DynamoDB_20120810."+op, body, true, edit)
	s.client.Timeout = 20 * time.Second
	s.client.Transport = rawClient.Transport
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		s.failf("%s answered %d: %s", op, resp.StatusCode, b)
	}
	return resp.StatusCode, b
}

// writer puts versions of its own keys, half of them gzip encoded, and
// records the versions acknowledged.
func (s *soaker) writer(ctx context.Context, w int) {
	for v := 1; ctx.Err() == nil; v++ {
		key := fmt.Sprintf("w%d-k%d", w, v%50)
		body := []byte(`{"TableName":"soak","Item":{"pk":{"S":"` + key + `"},"v":{"N":"` + strconv.Itoa(v) +
			`"},"pad":{"S":"` + strings.Repeat("p", 100+v%3000) + `"}}}`)
		var edit func(*http.Request)
		if v%2 == 0 {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(body)
			zw.Close()
			body, edit = buf.Bytes(), withHeader("Content-Encoding", "gzip")
		}
		if st, b := s.do("PutItem", body, edit); st == 200 {
			s.mu.Lock()
			s.acked[key] = max(s.acked[key], v)
			s.mu.Unlock()
			s.writes.Add(1)
		} else if st != 0 && st != 400 {
			s.failf("PutItem %s: %d %s", key, st, b)
		}
	}
}

func (s *soaker) reader(ctx context.Context) {
	for ctx.Err() == nil {
		s.do("Scan", []byte(`{"TableName":"soak","Limit":50}`), nil)
		s.do("GetItem", []byte(`{"TableName":"soak","Key":{"pk":{"S":"w0-k1"}}}`), withHeader("Accept-Encoding", "gzip"))
	}
}

// slowClients keeps connections that declare a body and never finish it.
func (s *soaker) slowClients(ctx context.Context) {
	for ctx.Err() == nil {
		u, _ := url.Parse(*s.endpoint.Load())
		c, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err == nil {
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"+
				"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 10000000\r\n\r\n{\"TableName\":")
			go func() {
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				io.Copy(io.Discard, c)
				c.Close()
			}()
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// oversized sends bodies over 16 MB, which must be refused with 413.
func (s *soaker) oversized(ctx context.Context) {
	body := []byte(`{"TableName":"soak",` + strings.Repeat(" ", 17<<20) + `"Item":{"pk":{"S":"big"}}}`)
	for ctx.Err() == nil {
		if st, b := s.do("PutItem", body, nil); st != 0 && st != 413 {
			s.failf("oversized PutItem: %d %.200s", st, b)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// checkAcked reads every acknowledged key: its version is at least the
// highest acknowledged one (a write whose answer the kill lost may have
// landed after it).
func (s *soaker) checkAcked(endpoint string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, v := range s.acked {
		r := callRaw(s.t, endpoint, "GetItem", `{"TableName":"soak","Key":{"pk":{"S":"`+key+`"}},"ConsistentRead":true}`)
		var out struct{ Item map[string]map[string]string }
		if err := json.Unmarshal(r.Body, &out); err != nil || out.Item == nil {
			s.t.Errorf("acknowledged %s v%d lost: %d %s", key, v, r.Status, r.Body)
			continue
		}
		if got, _ := strconv.Atoi(out.Item["v"]["N"]); got < v {
			s.t.Errorf("%s: version %d stored, %d acknowledged", key, got, v)
		}
	}
}

func countFDs(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return len(ents)
}

// rss is the resident memory of pid in bytes (0 once it is gone).
func rss(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
