package loadgen

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The batch and transaction bodies are valid JSON with distinct keys.
func TestBatchTemplates(t *testing.T) {
	b := newBodies("tbl", "abc")
	bw := b.batchWrite.clone()
	bw.setFresh(7, 99)
	var w struct {
		RequestItems map[string][]struct {
			PutRequest struct{ Item map[string]map[string]any }
		}
	}
	if err := json.Unmarshal(bw.buf, &w); err != nil {
		t.Fatalf("BatchWriteItem body %s: %v", bw.buf, err)
	}
	puts := w.RequestItems["tbl"]
	if len(puts) != BatchSize {
		t.Fatalf("BatchWriteItem carries %d items, want %d", len(puts), BatchSize)
	}
	seen := map[string]bool{}
	for _, p := range puts {
		it := p.PutRequest.Item
		if it["pk"]["S"] != "wabc-0007-000000000099" || len(it) != 7 {
			t.Errorf("BatchWriteItem item %v", it)
		}
		seen[it["sk"]["S"].(string)] = true
	}
	if len(seen) != BatchSize {
		t.Errorf("BatchWriteItem has %d distinct keys, want %d", len(seen), BatchSize)
	}

	tw := b.transact.clone()
	tw.setFresh(1, 2)
	var tx struct {
		TransactItems []struct {
			Put struct {
				TableName string
				Item      map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(tw.buf, &tx); err != nil || len(tx.TransactItems) != TransactSize || tx.TransactItems[0].Put.TableName != "tbl" {
		t.Fatalf("TransactWriteItems body %s: %v", tw.buf, err)
	}

	bg := b.batchGet.clone()
	bg.setKeys(95, 100) // wraps around: items 95..99 and 0..19
	var g struct {
		RequestItems map[string]struct {
			Keys []map[string]map[string]string
		}
	}
	if err := json.Unmarshal(bg.buf, &g); err != nil {
		t.Fatalf("BatchGetItem body %s: %v", bg.buf, err)
	}
	keys := g.RequestItems["tbl"].Keys
	if len(keys) != BatchSize || keys[0]["pk"]["S"] != PartitionKey(9) || keys[0]["sk"]["S"] != SortKey(5) ||
		keys[5]["pk"]["S"] != PartitionKey(0) || keys[5]["sk"]["S"] != SortKey(0) {
		t.Errorf("BatchGetItem keys %v", keys)
	}

	sc := b.scan.clone()
	sc.set(0, 3)
	sc.set(1, 4)
	var s struct {
		Limit             int
		ExclusiveStartKey map[string]map[string]string
	}
	if err := json.Unmarshal(sc.buf, &s); err != nil || s.Limit != ScanLimit || s.ExclusiveStartKey["pk"]["S"] != PartitionKey(3) {
		t.Errorf("Scan body %s: %v", sc.buf, err)
	}
}

// Zipfian keys stay in range and favour a few items: the most drawn tenth
// of the items takes most of the draws.
func TestZipfKeys(t *testing.T) {
	const items, draws = 1000, 100_000
	key := zipfKeys(rand.New(rand.NewPCG(1, 2)), items)
	counts := make([]int, items)
	for range draws {
		i := key()
		if i < 0 || i >= items {
			t.Fatalf("key %d out of range", i)
		}
		counts[i]++
	}
	top := 0
	for range items / 10 {
		best := 0
		for i, c := range counts {
			if c > counts[best] {
				best = i
			}
		}
		top += counts[best]
		counts[best] = -1
	}
	if share := float64(top) / draws; share < 0.6 {
		t.Errorf("the most popular tenth of the items got %.2f of the draws, want more than 0.6", share)
	}
}

// stallingServer answers at once, except that one request after the first
// 100 is held for stall.
func stallingServer(t *testing.T, stall time.Duration) string {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".DescribeTable") {
			_, _ = w.Write([]byte(`{"Table":{"TableStatus":"ACTIVE"}}`))
			return
		}
		if n.Add(1) == 100 {
			time.Sleep(stall)
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A server that stalls once for 400 ms: closed loop, only the stalled
// request is slow, so p99 stays small; open loop at 500 requests/s, the
// requests due during the stall are charged for it, so p99 shows it.
func TestOpenLoopCountsStalls(t *testing.T) {
	const stall = 400 * time.Millisecond
	cfg := Config{Op: OpGetItem, Table: "t", Items: 100, Duration: 1500 * time.Millisecond, Concurrency: 1}

	cfg.Endpoint = stallingServer(t, stall)
	closed, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if closed.P99 >= stall/4 || closed.Max < stall {
		t.Errorf("closed loop: p99 %s, max %s; want p99 below %s and max at least %s", closed.P99, closed.Max, stall/4, stall)
	}

	cfg.Endpoint = stallingServer(t, stall)
	cfg.Rate = 500
	open, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("closed: %v\nopen:   %v", closed, open)
	if open.P99 < stall/2 || open.Late == 0 {
		t.Errorf("open loop: p99 %s, %d late; want p99 at least %s and late requests", open.P99, open.Late, stall/2)
	}
	if rate := open.OpsPerSec(); rate < 400 || rate > 550 {
		t.Errorf("open loop ran at %.0f requests/s, want about 500", rate)
	}
	if !strings.Contains(open.String(), " rate=500 late=") {
		t.Errorf("result line %q", open.String())
	}
}
