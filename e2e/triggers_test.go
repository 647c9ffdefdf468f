package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// hookRecord is a record of a posted event, as a Lambda function reads
// it. https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
type hookRecord struct {
	EventID        string `json:"eventID"`
	EventName      string `json:"eventName"`
	EventVersion   string `json:"eventVersion"`
	EventSource    string `json:"eventSource"`
	AwsRegion      string `json:"awsRegion"`
	EventSourceARN string `json:"eventSourceARN"`
	Dynamodb       struct {
		Keys           map[string]map[string]string
		NewImage       map[string]map[string]string
		SequenceNumber string
		SizeBytes      int64
		StreamViewType string
	} `json:"dynamodb"`
}

// webhook is a real HTTP server receiving trigger events; fail makes it
// answer HTTP 500 (and not record the batch).
type webhook struct {
	srv *httptest.Server

	mu       sync.Mutex
	fail     int    // how many of the next posts fail; -1 = all
	poison   string // a batch holding this key fails
	acked    [][]hookRecord
	attempts int
}

func newWebhook(t *testing.T) *webhook {
	h := &webhook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev struct{ Records []hookRecord }
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Errorf("webhook body %s: %v", body, err)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.attempts++
		poisoned := false
		for _, r := range ev.Records {
			poisoned = poisoned || h.poison != "" && r.Dynamodb.Keys["pk"]["S"] == h.poison
		}
		if h.fail != 0 || poisoned {
			if h.fail > 0 {
				h.fail--
			}
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		h.acked = append(h.acked, ev.Records)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *webhook) setFail(n int) {
	h.mu.Lock()
	h.fail = n
	h.mu.Unlock()
}

// records returns the acknowledged records, in the order received.
func (h *webhook) records() (all []hookRecord, batches [][]hookRecord, attempts int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.acked {
		all = append(all, b...)
	}
	return all, append([][]hookRecord(nil), h.acked...), h.attempts
}

// waitRecords waits until n records were acknowledged.
func (h *webhook) waitRecords(t *testing.T, n int) []hookRecord {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		all, _, _ := h.records()
		if len(all) >= n {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook got %d records, want %d", len(all), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// triggersFile writes a triggers file of one trigger for table with the
// extra settings (TOML lines) and returns its path.
func triggersFile(t *testing.T, table, url string, extra ...string) string {
	dir := t.TempDir()
	body := "checkpoint-dir = " + strconv.Quote(filepath.Join(dir, "checkpoints")) + "\npoll-interval = \"50ms\"\n\n[[triggers]]\n" +
		"table = " + strconv.Quote(table) + "\nurl = " + strconv.Quote(url) + "\n" + strings.Join(extra, "\n") + "\n"
	path := filepath.Join(dir, "triggers.toml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// createStreamTable creates a table keyed by pk with a NEW_IMAGE stream.
func createTriggerTable(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		BillingMode:         types.BillingModePayPerRequest,
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.TableDescription.LatestStreamArn)
}

// wantInOrder asserts the records are the puts of keys k0, k1, ... in
// order, with increasing sequence numbers and the Lambda event's fields.
func wantInOrder(t *testing.T, recs []hookRecord, arn string, from int) {
	t.Helper()
	prev := ""
	for i, r := range recs {
		if r.EventName != "INSERT" || r.EventVersion != "1.1" || r.EventSource != "aws:dynamodb" || r.AwsRegion != testRegion ||
			r.EventSourceARN != arn || r.Dynamodb.StreamViewType != "NEW_IMAGE" || r.Dynamodb.SizeBytes <= 0 || r.EventID == "" {
			t.Fatalf("record %d: %+v", i, r)
		}
		if want := "k" + strconv.Itoa(from+i); r.Dynamodb.Keys["pk"]["S"] != want || r.Dynamodb.NewImage["pk"]["S"] != want {
			t.Fatalf("record %d is of %v, want %s (out of order or lost)", i, r.Dynamodb.Keys, want)
		}
		seq := r.Dynamodb.SequenceNumber
		if prev != "" && (len(seq) < len(prev) || len(seq) == len(prev) && seq <= prev) {
			t.Fatalf("record %d: sequence number %s after %s", i, seq, prev)
		}
		prev = seq
	}
}

func putKeys(t *testing.T, c *dynamodb.Client, table string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		putItem(t, c, table, item{"pk": avS("k" + strconv.Itoa(i))})
	}
}

// TestTriggerBatchesInOrder: records reach the webhook in stream order, in
// batches of at most batch-size, gathered for the batching window.
func TestTriggerBatchesInOrder(t *testing.T) {
	h := newWebhook(t)
	name := tableName("trig")
	_, c := startClient(t, "--triggers", triggersFile(t, name, h.srv.URL, "batch-size = 3", `batching-window = "1s"`))
	arn := createTriggerTable(t, c, name)
	putKeys(t, c, name, 0, 7)
	recs := h.waitRecords(t, 7)
	wantInOrder(t, recs, arn, 0)
	_, batches, _ := h.records()
	full := 0
	for _, b := range batches {
		if len(b) > 3 {
			t.Fatalf("a batch of %d records, batch-size 3", len(b))
		}
		if len(b) == 3 {
			full++
		}
	}
	if full == 0 {
		t.Fatalf("no full batch among %d batches: the batching window gathered nothing", len(batches))
	}
}

// TestTriggerRetriesAfter500: a batch the webhook answers with HTTP 500 is
// posted again until acknowledged, and nothing after it overtakes it.
func TestTriggerRetriesAfter500(t *testing.T) {
	h := newWebhook(t)
	h.setFail(2)
	name := tableName("trig")
	_, c := startClient(t, "--triggers", triggersFile(t, name, h.srv.URL, `retry-delay = "50ms"`, "max-retries = 5"))
	arn := createTriggerTable(t, c, name)
	putKeys(t, c, name, 0, 3)
	recs := h.waitRecords(t, 3)
	wantInOrder(t, recs, arn, 0)
	if _, _, attempts := h.records(); attempts < 3 {
		t.Fatalf("%d posts: the two failures were not retried", attempts)
	}
}

// TestTriggerOnFailure: a batch still failing after max-retries is
// recorded in the on-failure file and the trigger moves past it, as
// Lambda's on-failure destination does.
// https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
func TestTriggerOnFailure(t *testing.T) {
	h := newWebhook(t)
	h.setFail(-1)
	name := tableName("trig")
	failed := filepath.Join(t.TempDir(), "failed.jsonl")
	_, c := startClient(t, "--triggers", triggersFile(t, name, h.srv.URL, `retry-delay = "20ms"`, "max-retries = 1",
		"on-failure = "+strconv.Quote(failed)))
	arn := createTriggerTable(t, c, name)
	putKeys(t, c, name, 0, 1)
	var line []byte
	deadline := time.Now().Add(30 * time.Second)
	for len(line) == 0 && time.Now().Before(deadline) {
		line, _ = os.ReadFile(failed)
		time.Sleep(50 * time.Millisecond)
	}
	var f struct {
		RequestContext struct {
			Condition              string
			ApproximateInvokeCount int
		} `json:"requestContext"`
		Info struct {
			BatchSize int
			StreamArn string
			ShardID   string `json:"shardId"`
		} `json:"DDBStreamBatchInfo"`
	}
	if err := json.Unmarshal(line, &f); err != nil || f.RequestContext.Condition != "RetryAttemptsExhausted" ||
		f.RequestContext.ApproximateInvokeCount != 2 || f.Info.BatchSize != 1 || f.Info.StreamArn != arn || f.Info.ShardID == "" {
		t.Fatalf("on-failure record %s: %+v, %v", line, f, err)
	}
	h.setFail(0)
	putKeys(t, c, name, 1, 2)
	recs := h.waitRecords(t, 1)
	wantInOrder(t, recs, arn, 1)
}

// TestTriggerBisectOnError: with bisect-on-error a failing batch is split
// until the record that fails is alone; the others are delivered, in
// order, and only it goes to the on-failure file, as Lambda's
// BisectBatchOnFunctionError does.
// https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
func TestTriggerBisectOnError(t *testing.T) {
	h := newWebhook(t)
	h.poison = "k1"
	name := tableName("trig")
	failed := filepath.Join(t.TempDir(), "failed.jsonl")
	_, c := startClient(t, "--triggers", triggersFile(t, name, h.srv.URL, "batch-size = 4", `batching-window = "2s"`,
		"max-retries = 0", "bisect-on-error = true", "on-failure = "+strconv.Quote(failed)))
	arn := createTriggerTable(t, c, name)
	putKeys(t, c, name, 0, 4)
	recs := h.waitRecords(t, 3)
	if len(recs) != 3 {
		t.Fatalf("%d records delivered, want 3", len(recs))
	}
	wantInOrder(t, recs[:1], arn, 0)
	wantInOrder(t, recs[1:], arn, 2)
	line, err := os.ReadFile(failed)
	var f struct {
		Info struct{ BatchSize int } `json:"DDBStreamBatchInfo"`
	}
	if err != nil || strings.Count(string(line), "\n") != 1 || json.Unmarshal(line, &f) != nil || f.Info.BatchSize != 1 {
		t.Fatalf("on-failure file: %s (%v)", line, err)
	}
}

// TestTriggerResumesAfterRestart: a restarted server resumes after the
// last acknowledged batch: nothing acknowledged is posted again, and a
// batch not acknowledged before the stop is posted after the restart.
func TestTriggerResumesAfterRestart(t *testing.T) {
	h := newWebhook(t)
	name := tableName("trig")
	dir := t.TempDir()
	file := triggersFile(t, name, h.srv.URL, `retry-delay = "50ms"`)
	s, c := startClient(t, "--data-dir", dir, "--triggers", file)
	arn := createTriggerTable(t, c, name)
	putKeys(t, c, name, 0, 3)
	h.waitRecords(t, 3)
	h.setFail(-1)
	putKeys(t, c, name, 3, 4)
	for {
		if _, _, attempts := h.records(); attempts >= 2 || t.Failed() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	h.setFail(0)
	_, c = startClient(t, "--data-dir", dir, "--triggers", file)
	putKeys(t, c, name, 4, 6)
	recs := h.waitRecords(t, 6)
	time.Sleep(300 * time.Millisecond) // room for a wrongful re-delivery
	recs, _, _ = h.records()
	if len(recs) != 6 {
		t.Fatalf("%d records acknowledged, want 6 (re-delivered or lost)", len(recs))
	}
	wantInOrder(t, recs, arn, 0)
}

// TestTriggersFileErrors: a bad triggers file stops the server at start.
func TestTriggersFileErrors(t *testing.T) {
	sqliteOnly(t, "command-line only")
	file := triggersFile(t, "t", "ftp://x", "")
	out, err := runBinary(t, nil, "serve", "--in-memory", "--listen", "127.0.0.1:0", "--triggers", file)
	if err == nil || !strings.Contains(out, `trigger 1 (table "t"): url "ftp://x" is not an http or https URL`) {
		t.Fatalf("serve --triggers with a bad URL: %v\n%s", err, out)
	}
}
