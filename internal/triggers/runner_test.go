package triggers

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// engineOn returns an engine over a real SQLite file and a Call into it.
func engineOn(t *testing.T) (storage.Backend, Call) {
	t.Helper()
	store, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "t.sqlite"), Synchronous: "OFF"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := api.New(store, api.Config{})
	return store, func(ctx context.Context, service, op string, body []byte) ([]byte, error) {
		resp, err := e.Serve(ctx, &protocol.Request{Service: service, Operation: op, Body: body, Caller: protocol.Caller{Region: "us-east-1"}})
		if err != nil {
			return nil, err
		}
		if a, ok := resp.(protocol.Appender); ok {
			return a.AppendJSON(nil), nil
		}
		return json.Marshal(resp)
	}
}

func mustCall(t *testing.T, call Call, op, body string) map[string]any {
	t.Helper()
	out, err := call(t.Context(), "DynamoDB", op, []byte(body))
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	return m
}

// TestResumeAfterTrim: a checkpoint older than what the stream still
// keeps (its records were trimmed) resumes at the oldest record kept
// instead of failing forever.
func TestResumeAfterTrim(t *testing.T) {
	store, call := engineOn(t)
	mustCall(t, call, "CreateTable", `{"TableName":"Orders","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST",
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}}`)
	arn := mustCall(t, call, "DescribeTable", `{"TableName":"Orders"}`)["Table"].(map[string]any)["LatestStreamArn"].(string)
	out, err := call(t.Context(), "DynamoDBStreams", "DescribeStream", []byte(`{"StreamArn":"`+arn+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ds struct {
		StreamDescription struct{ Shards []struct{ ShardId string } }
	}
	if err := json.Unmarshal(out, &ds); err != nil || len(ds.StreamDescription.Shards) != 1 {
		t.Fatalf("DescribeStream: %s, %v", out, err)
	}
	mustCall(t, call, "PutItem", `{"TableName":"Orders","Item":{"pk":{"S":"old1"}}}`)
	mustCall(t, call, "PutItem", `{"TableName":"Orders","Item":{"pk":{"S":"old2"}}}`)
	dir := t.TempDir()
	cp := checkpoint{StreamArn: arn, ShardID: ds.StreamDescription.Shards[0].ShardId, SequenceNumber: storage.FormatSequenceNumber(1)}
	if err := cp.save(checkpointPath(dir, "Orders")); err != nil {
		t.Fatal(err)
	}
	if _, err := store.TrimStreams(t.Context(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	mustCall(t, call, "PutItem", `{"TableName":"Orders","Item":{"pk":{"S":"new"}}}`)

	var mu sync.Mutex
	var got []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev struct {
			Records []struct {
				Dynamodb struct{ Keys map[string]map[string]string }
			}
		}
		_ = json.Unmarshal(b, &ev)
		mu.Lock()
		for _, rec := range ev.Records {
			got = append(got, rec.Dynamodb.Keys["pk"]["S"])
		}
		mu.Unlock()
	}))
	defer hook.Close()
	cfg := Config{CheckpointDir: dir, Triggers: []Trigger{{Table: "Orders", URL: hook.URL}}}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { New(cfg, call, slog.New(slog.DiscardHandler)).Run(ctx); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "new" {
		t.Fatalf("delivered %v, want [new] (the trimmed records are gone)", got)
	}
}

// TestBatchBytesBounded: records of large items are posted in batches of
// about 6 MB at most, whatever the batch size, in order and all of them.
func TestBatchBytesBounded(t *testing.T) {
	_, call := engineOn(t)
	mustCall(t, call, "CreateTable", `{"TableName":"Large","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST",
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}}`)
	big := strings.Repeat("x", 390<<10)
	for i := range 40 { // about 15.6 MB of images
		mustCall(t, call, "PutItem", `{"TableName":"Large","Item":{"pk":{"S":"k`+strconv.Itoa(i)+`"},"v":{"S":"`+big+`"}}}`)
	}
	var mu sync.Mutex
	var sizes []int
	var keys []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev struct {
			Records []struct {
				Dynamodb struct{ Keys map[string]map[string]string }
			}
		}
		_ = json.Unmarshal(b, &ev)
		mu.Lock()
		sizes = append(sizes, len(b))
		for _, rec := range ev.Records {
			keys = append(keys, rec.Dynamodb.Keys["pk"]["S"])
		}
		mu.Unlock()
	}))
	defer hook.Close()
	cfg := Config{CheckpointDir: t.TempDir(), Triggers: []Trigger{{Table: "Large", URL: hook.URL, BatchSize: 10000}}}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { New(cfg, call, slog.New(slog.DiscardHandler)).Run(ctx); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(keys)
		mu.Unlock()
		if n >= 40 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 40 || len(sizes) < 3 {
		t.Fatalf("%d records in %d batches, want 40 in at least 3", len(keys), len(sizes))
	}
	for i, k := range keys {
		if k != "k"+strconv.Itoa(i) {
			t.Fatalf("record %d is %s", i, k)
		}
	}
	for _, n := range sizes {
		if n > maxBatchBytes+500<<10 {
			t.Fatalf("a batch of %d bytes", n)
		}
	}
}
