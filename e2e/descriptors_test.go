package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A server whose descriptor limit (ulimit -n) is below --max-connections
// plus what its storage needs fits the connections it accepts to the limit,
// and says so in its log: idle connections then wait in the backlog instead
// of taking the descriptors SQLite needs to open a reader, which used to
// make reads fail with 500 ("unable to open database file: too many open
// files").
func TestConnectionsFitDescriptorLimit(t *testing.T) {
	sqliteOnly(t, "SQLite's readers are the descriptors at stake")
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("needs prlimit (util-linux)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, prlimit, "--nofile=200:200", binPath, "serve", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir())
	log := &lockedBuffer{}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if m := endpointRE.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
	}()
	var ep string
	select {
	case ep = <-endpoint:
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start:\n%s", log.String())
	}
	if !strings.Contains(log.String(), `max-connections lowered`) || !strings.Contains(log.String(), "max_connections=100") {
		t.Errorf("no warning that max-connections was fitted to 200 descriptors:\n%s", log.String())
	}
	httpTable(t, ep, "fds")
	for i := range 20 {
		if r := callRaw(t, ep, "PutItem", string(putBody("fds", fmt.Sprintf("k%d", i)))); r.Status != 200 {
			t.Fatalf("PutItem: %d %s", r.Status, r.Body)
		}
	}
	workers := make([]*http.Client, 24)
	for i := range workers {
		workers[i] = &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: time.Minute}
		doWith(t, workers[i], rawRequest(t, ep, "DynamoDB_20120810.ListTables", []byte(`{}`), true, nil))
	}
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 300 {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(ep, "http://"), 2*time.Second)
		if err != nil {
			break
		}
		idle = append(idle, c)
	}
	time.Sleep(500 * time.Millisecond)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := map[int]int{}
	for _, w := range workers {
		wg.Go(func() {
			for range 10 {
				st := doWith(t, w, rawRequest(t, ep, "DynamoDB_20120810.Scan", []byte(`{"TableName":"fds"}`), true, nil))
				if st != 200 {
					mu.Lock()
					failures[st]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("Scans with %d idle connections open: statuses other than 200: %v\n%s", len(idle), failures, log.String())
	}
}

// doWith sends req with client c and returns the status (0 on a failure to
// get a response).
func doWith(t *testing.T, c *http.Client, req *http.Request) int {
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("%v", err)
		return 0
	}
	defer resp.Body.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := resp.Body.Read(buf); err != nil {
			break
		}
	}
	return resp.StatusCode
}
