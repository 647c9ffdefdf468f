package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// peakRSS is the highest resident memory of process pid so far, in bytes
// (VmHWM in /proc/<pid>/status).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// The items a response returns count against the memory budget of requests
// in flight, as request bodies do: twelve clients each asking BatchGetItem
// for 17 MB of items at once (the server's answer stops at 16 MB) get their
// items (those past the 16 MB or past the room the budget has left come
// back in UnprocessedKeys) or DynamoDB's retryable ThrottlingException, and the server's
// resident memory stays near its 64 MiB budget instead of growing by about
// 60 MB per client. The 16 MB response limit:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func TestResponsesWithinMemoryBudget(t *testing.T) {
	sqliteOnly(t, "the memory measured is the server process's")
	s := startServer(t, "--request-memory-mib", "64", "--admission-wait", "5s")
	httpTable(t, s.Endpoint, "wide")
	big := strings.Repeat("w", 390_000)
	var keys []string
	for i := range 45 {
		pk := fmt.Sprintf("k%02d", i)
		if r := callRaw(t, s.Endpoint, "PutItem", `{"TableName":"wide","Item":{"pk":{"S":"`+pk+`"},"v":{"S":"`+big+`"}}}`); r.Status != 200 {
			t.Fatalf("PutItem: %d %s", r.Status, r.Body)
		}
		keys = append(keys, `{"pk":{"S":"`+pk+`"}}`)
	}
	body := []byte(`{"RequestItems":{"wide":{"Keys":[` + strings.Join(keys, ",") + `]}}}`)
	before := peakRSS(t, s.Pid())
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	for range 12 {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{}, Timeout: 2 * time.Minute}
			resp, err := c.Do(rawRequest(t, s.Endpoint, "DynamoDB_20120810.BatchGetItem", body, true, nil))
			key := ""
			if err != nil {
				key = err.Error()
			} else {
				var out struct {
					Type      string `json:"__type"`
					Responses map[string][]json.RawMessage
					Left      map[string]struct {
						Keys []json.RawMessage
					} `json:"UnprocessedKeys"`
				}
				err := json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				switch {
				case err != nil:
					key = fmt.Sprintf("%d undecodable: %v", resp.StatusCode, err)
				case resp.StatusCode == 200 && len(out.Responses["wide"]) > 0:
					key = "200"
					if got := len(out.Responses["wide"]) + len(out.Left["wide"].Keys); got != 45 {
						key = fmt.Sprintf("200 with %d items and unprocessed keys of 45", got)
					}
				default:
					key = fmt.Sprintf("%d %s", resp.StatusCode, out.Type)
				}
			}
			mu.Lock()
			statuses[key]++
			mu.Unlock()
		})
	}
	wg.Wait()
	for k := range statuses {
		if k != "200" && k != "400 com.amazon.coral.availability#ThrottlingException" {
			t.Errorf("answers: %v; want only 200 with items or ThrottlingException", statuses)
		}
	}
	if statuses["200"] == 0 {
		t.Errorf("no BatchGetItem served: %v", statuses)
	}
	peak := peakRSS(t, s.Pid())
	t.Logf("answers %v; peak RSS %d MiB before, %d MiB after", statuses, before>>20, peak>>20)
	if limit := max(before, 64<<20) + 320<<20; peak > limit {
		t.Fatalf("peak RSS %d MiB with a 64 MiB budget, want under %d MiB", peak>>20, limit>>20)
	}
}
