package loadgen

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/server"
)

// startServer runs an in-process extenddb with durable storage in a temp dir.
func startServer(t *testing.T) string {
	t.Helper()
	srv, err := server.Start(server.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("start extenddb: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return srv.Endpoint()
}

func TestRunAgainstExtenddb(t *testing.T) {
	endpoint := startServer(t)
	ctx := context.Background()
	const table, items = "loadgen-test", 95 // the last partition holds 5 items

	c := NewClient(endpoint, 4)
	defer c.Close()
	if err := Setup(ctx, c, table, items, 4); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	// Setup again on the existing table is fine (the table is reused).
	if err := Setup(ctx, c, table, 0, 1); err != nil {
		t.Fatalf("second Setup: %v", err)
	}

	// Every preloaded item is there, 10 to a partition.
	out, err := c.Call(ctx, "Scan", `{"TableName":"`+table+`","Select":"COUNT"}`)
	if err != nil {
		t.Fatal(err)
	}
	var scan struct{ Count int }
	if err := json.Unmarshal(out, &scan); err != nil {
		t.Fatal(err)
	}
	if scan.Count != items {
		t.Fatalf("Scan count after setup = %d, want %d", scan.Count, items)
	}

	pid := os.Getpid() // the server runs in this process
	for _, op := range Ops {
		for _, conc := range []int{1, 4} {
			res, err := Run(ctx, Config{
				Endpoint: endpoint, Op: op, Table: table, Items: items,
				Duration: 600 * time.Millisecond, Warmup: 50 * time.Millisecond,
				Concurrency: conc, ServerPID: pid, StoragePIDs: []int{pid, pid},
			})
			if err != nil {
				t.Fatalf("%s/%d: %v (%v)", op, conc, err, res)
			}
			t.Logf("%v", res)
			if res.Ops == 0 || res.Errors != 0 || res.OpsPerSec() <= 0 {
				t.Errorf("%s/%d: %v", op, conc, res)
			}
			if res.P50 <= 0 || res.P99 < res.P50 || res.P999 < res.P99 || res.Max < res.P999 {
				t.Errorf("%s/%d: latencies out of order: %v", op, conc, res)
			}
			if res.ServerCPU < 0 || !strings.Contains(res.String(), "server-cpu-us/op=") {
				t.Errorf("%s/%d: no server CPU figure: %v", op, conc, res)
			}
			// The two processes are read one after the other: a few ticks apart.
			if d := res.StorageCPU - 2*res.ServerCPU; d < -50*time.Millisecond || d > 50*time.Millisecond || !strings.Contains(res.String(), "storage-cpu-us/op=") {
				t.Errorf("%s/%d: storage CPU of the server's process twice is %s, want about twice %s", op, conc, res.StorageCPU, res.ServerCPU)
			}
			if !strings.HasPrefix(res.String(), "op="+op+" concurrency="+strconv.Itoa(conc)+" ") {
				t.Errorf("result line %q", res.String())
			}
		}
	}

	// PutItem wrote fresh items next to the preloaded ones; UpdateItem
	// changed preloaded ones.
	if n := scanCount(t, c, table, ""); n <= items {
		t.Errorf("Scan count after PutItem runs = %d, want > %d", n, items)
	}
	updated := scanCount(t, c, table, `,"FilterExpression":"attribute_exists(hits) AND #c = :c",`+
		`"ExpressionAttributeNames":{"#c":"count"},"ExpressionAttributeValues":{":c":{"N":"42.5"}}`)
	if updated == 0 || updated > items {
		t.Errorf("updated items = %d, want 1..%d", updated, items)
	}
	// Query returns a whole preloaded partition.
	out, err = c.Call(ctx, OpQuery, `{"TableName":"`+table+`","KeyConditionExpression":"pk = :pk",`+
		`"ExpressionAttributeValues":{":pk":{"S":"`+PartitionKey(3)+`"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &scan); err != nil {
		t.Fatal(err)
	}
	if scan.Count != ItemsPerPartition {
		t.Errorf("Query partition 3: %d items, want %d", scan.Count, ItemsPerPartition)
	}
}

// scanCount counts the items of table matching the Scan parameters in
// params (a JSON fragment starting with a comma, or ""), page by page.
func scanCount(t *testing.T, c *Client, table, params string) int {
	t.Helper()
	total, start := 0, ""
	for {
		out, err := c.Call(context.Background(), "Scan", `{"TableName":"`+table+`","Select":"COUNT"`+params+start+`}`)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Count            int
			LastEvaluatedKey json.RawMessage
		}
		if err := json.Unmarshal(out, &page); err != nil {
			t.Fatal(err)
		}
		total += page.Count
		if len(page.LastEvaluatedKey) == 0 {
			return total
		}
		start = `,"ExclusiveStartKey":` + string(page.LastEvaluatedKey)
	}
}

func TestRunMissingTable(t *testing.T) {
	endpoint := startServer(t)
	_, err := Run(context.Background(), Config{
		Endpoint: endpoint, Op: OpGetItem, Table: "no-such-table", Items: 10,
		Duration: 100 * time.Millisecond, Concurrency: 1,
	})
	if err == nil || !strings.Contains(err.Error(), "ResourceNotFoundException") {
		t.Fatalf("err = %v, want ResourceNotFoundException", err)
	}
}

func TestRunAbortsOnErrors(t *testing.T) {
	// A server that is ACTIVE for DescribeTable but fails every 10th request.
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" || r.Header.Get("X-Amz-Date") == "" {
			http.Error(w, "unsigned", http.StatusForbidden)
			return
		}
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".DescribeTable") {
			_, _ = w.Write([]byte(`{"Table":{"TableStatus":"ACTIVE"}}`))
			return
		}
		if n.Add(1)%10 == 0 {
			http.Error(w, `{"__type":"ThrottlingException"}`, http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer ts.Close()
	start := time.Now()
	res, err := Run(context.Background(), Config{
		Endpoint: ts.URL, Op: OpPutItem, Table: "t", Duration: 10 * time.Second, Concurrency: 2,
	})
	if err == nil || !strings.Contains(err.Error(), "aborted") || !strings.Contains(err.Error(), "ThrottlingException") {
		t.Fatalf("err = %v, want abort naming the first error", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("abort took %s", time.Since(start))
	}
	if res.Errors == 0 {
		t.Errorf("no errors counted: %v", res)
	}
}

func TestRunValidates(t *testing.T) {
	for _, cfg := range []Config{
		{Op: "DeleteItem", Duration: time.Second, Concurrency: 1, Items: 1},
		{Op: OpBatchGetItem, Duration: time.Second, Concurrency: 1, Items: BatchSize - 1},
		{Op: WorkloadYCSBA, Duration: time.Second, Concurrency: 1, Items: 0},
		{Op: OpGetItem, Duration: time.Second, Concurrency: 1, Items: 1, Rate: -1},
		{Op: OpGetItem, Duration: time.Second, Concurrency: 0, Items: 1},
		{Op: OpGetItem, Duration: 0, Concurrency: 1, Items: 1},
		{Op: OpGetItem, Duration: time.Second, Concurrency: 1, Items: 0},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v) succeeded", cfg)
		}
	}
}

func TestTemplates(t *testing.T) {
	b := newBodies("tbl", "abc")
	get := b.get.clone()
	get.set(0, 1234)
	get.set(1, 7)
	var g struct {
		TableName string
		Key       map[string]map[string]string
	}
	if err := json.Unmarshal(get.buf, &g); err != nil {
		t.Fatalf("GetItem body %s: %v", get.buf, err)
	}
	if g.TableName != "tbl" || g.Key["pk"]["S"] != PartitionKey(1234) || g.Key["sk"]["S"] != SortKey(7) {
		t.Errorf("GetItem body %s", get.buf)
	}
	if string(b.get.buf) == string(get.buf) {
		t.Error("clone shares the buffer")
	}

	put := b.put.clone()
	put.set(0, 3)
	put.set(1, 42)
	var p struct{ Item map[string]map[string]any }
	if err := json.Unmarshal(put.buf, &p); err != nil {
		t.Fatalf("PutItem body %s: %v", put.buf, err)
	}
	if got := p.Item["pk"]["S"]; got != "wabc-0003-000000000042" {
		t.Errorf("PutItem pk = %v", got)
	}
	if len(p.Item) != 7 {
		t.Errorf("PutItem item has %d attributes, want 7", len(p.Item))
	}

	for name, tm := range map[string]template{"query": b.query, "update": b.update, "preload": newBodies("tbl", "").put} {
		if !json.Valid(tm.buf) {
			t.Errorf("%s body is not JSON: %s", name, tm.buf)
		}
	}
	if PartitionKey(5) != "p000000005" || SortKey(12) != "s012" {
		t.Errorf("keys %s %s", PartitionKey(5), SortKey(12))
	}
}

func TestParseStatCPU(t *testing.T) {
	// Field 2 with spaces and a parenthesis; utime 250, stime 50 ticks.
	stat := "1234 (node (x) y) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 100 0 0"
	d, ok := parseStatCPU(stat)
	if !ok || d != 3*time.Second {
		t.Errorf("parseStatCPU = %v, %v; want 3s", d, ok)
	}
	if _, ok := parseStatCPU("garbage"); ok {
		t.Error("garbage parsed")
	}
	if _, ok := ProcessCPU(0); ok {
		t.Error("pid 0")
	}
	if d, ok := ProcessCPU(os.Getpid()); !ok || d < 0 {
		t.Errorf("own CPU = %v, %v", d, ok)
	}
}

// TestRunSigned: with credentials the generator signs every request with
// SigV4, so it can measure a server that verifies signatures; without
// them that server refuses every request and the run aborts.
func TestRunSigned(t *testing.T) {
	const key, secret = "AKIALOADGEN000000000", "loadgen-secret"
	srv, err := server.Start(server.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(),
		Auth: server.AuthConfig{RootAccessKeyID: key, RootSecretAccessKey: secret}})
	if err != nil {
		t.Fatalf("start extenddb: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	ctx := context.Background()
	c := NewClient(srv.Endpoint(), 2)
	defer c.Close()
	c.SignWith(key, secret)
	if err := Setup(ctx, c, "signed", 20, 2); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	cfg := Config{Endpoint: srv.Endpoint(), Op: OpGetItem, Table: "signed", Items: 20,
		Duration: 300 * time.Millisecond, Concurrency: 2, AccessKeyID: key, SecretAccessKey: secret}
	res, err := Run(ctx, cfg)
	if err != nil || res.Ops == 0 || res.Errors != 0 {
		t.Fatalf("signed run: %v %v", res, err)
	}
	cfg.AccessKeyID, cfg.SecretAccessKey = "", ""
	if res, err := Run(ctx, cfg); err == nil {
		t.Fatalf("an unsigned run against a verifying server succeeded: %v", res)
	}
}
