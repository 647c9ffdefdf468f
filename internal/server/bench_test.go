package server

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// call sends one API request over HTTP and returns the status and body.
func call(tb testing.TB, c *http.Client, endpoint, op, body string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Date", "20240101T000000Z")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if _, err := io.Copy(&out, resp.Body); err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, out.String()
}

func startBench(tb testing.TB, metricsOn bool) (*Server, *http.Client) {
	s, err := Start(Config{Listen: "127.0.0.1:0", InMemory: true, Metrics: metricsOn,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Shutdown(tb.Context()) })
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	if st, b := call(tb, c, s.Endpoint(), "CreateTable", `{"TableName":"Bench","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`); st != 200 {
		tb.Fatalf("CreateTable: %d %s", st, b)
	}
	if st, b := call(tb, c, s.Endpoint(), "PutItem", `{"TableName":"Bench","Item":{"pk":{"S":"a"},"v":{"S":"hello"}}}`); st != 200 {
		tb.Fatalf("PutItem: %d %s", st, b)
	}
	return s, c
}

// BenchmarkGetItem measures one GetItem over HTTP on an in-memory server,
// with metrics off and on, to show what the metrics cost:
//
//	go test -run '^$' -bench BenchmarkGetItem -count 6 ./internal/server/
func BenchmarkGetItem(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		if on {
			name = "metrics=on"
		}
		b.Run(name, func(b *testing.B) {
			s, c := startBench(b, on)
			const body = `{"TableName":"Bench","Key":{"pk":{"S":"a"}}}`
			b.ReportAllocs()
			for b.Loop() {
				if st, out := call(b, c, s.Endpoint(), "GetItem", body); st != 200 {
					b.Fatalf("GetItem: %d %s", st, out)
				}
			}
		})
	}
}

// The metrics a server exposes count the requests it served.
func TestMetricsCountRequests(t *testing.T) {
	s, c := startBench(t, true)
	for range 3 {
		if st, out := call(t, c, s.Endpoint(), "GetItem", `{"TableName":"Bench","Key":{"pk":{"S":"a"}}}`); st != 200 {
			t.Fatalf("GetItem: %d %s", st, out)
		}
	}
	call(t, c, s.Endpoint(), "GetItem", `{"TableName":"Nope","Key":{"pk":{"S":"a"}}}`)
	resp, err := c.Get(s.Endpoint() + PathMetrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`extenddb_requests_total{operation="GetItem",outcome="success"} 3`,
		`extenddb_requests_total{operation="GetItem",outcome="client_error"} 1`,
		`extenddb_requests_total{operation="CreateTable",outcome="success"} 1`,
		`extenddb_errors_total{type="ResourceNotFoundException"} 1`,
	} {
		if !strings.Contains(string(text), want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	// CreateTable and PutItem each went through a SQLite group commit.
	m := regexp.MustCompile(`(?m)^extenddb_sqlite_commit_batch_size_count (\d+)$`).FindStringSubmatch(string(text))
	if m == nil || m[1] == "0" || m[1] == "1" {
		t.Errorf("SQLite group commits not counted: %v", m)
	}
}

// BenchmarkGetItemHandler is BenchmarkGetItem without the network: the
// request goes straight to the server's HTTP handler, so that the cost of
// the metrics is not lost in the noise of the loopback.
//
//	go test -run '^$' -bench BenchmarkGetItemHandler -count 6 ./internal/server/
func BenchmarkGetItemHandler(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		if on {
			name = "metrics=on"
		}
		b.Run(name, func(b *testing.B) {
			s, _ := startBench(b, on)
			h := s.http.Handler
			const body = `{"TableName":"Bench","Key":{"pk":{"S":"a"}}}`
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
				req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
				req.Header.Set("Content-Type", "application/x-amz-json-1.0")
				req.Header.Set("X-Amz-Date", "20240101T000000Z")
				req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("GetItem: %d %s", w.Code, w.Body)
				}
			}
		})
	}
}
