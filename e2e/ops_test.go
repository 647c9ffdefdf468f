package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// httpGet returns the status and body of GET url.
func httpGet(t testing.TB, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(body), resp.Header
}

// GET / answers as DynamoDB Local does: HTTP 400 with MissingAuthenticationToken.
// Its answer is quoted in https://github.com/localstack/localstack/issues/3131
// and https://github.com/99x/serverless-dynamodb-local/issues/236; wait scripts
// for DynamoDB Local poll GET / until it answers 400.
func TestGetRootAnswersAsDynamoDBLocal(t *testing.T) {
	s := startServer(t)
	status, body, h := httpGet(t, s.Endpoint+"/")
	want := `{"__type":"com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken","message":"Request must contain either a valid (registered) AWS access key ID or X.509 certificate."}`
	if status != http.StatusBadRequest || body != want {
		t.Errorf("GET / = %d %s, want 400 %s", status, body, want)
	}
	if ct := h.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
		t.Errorf("Content-Type = %q", ct)
	}
}

// /health and /ready answer GET, and POST to them is still the API's
// (an unsigned POST gets the API's error, not the probe).
func TestHealthAndReady(t *testing.T) {
	s := startServer(t)
	if status, body, _ := httpGet(t, s.Endpoint+"/health"); status != 200 || body != "ok\n" {
		t.Errorf("GET /health = %d %q", status, body)
	}
	if status, body, _ := httpGet(t, s.Endpoint+"/ready"); status != 200 || body != "ready\n" {
		t.Errorf("GET /ready = %d %q", status, body)
	}
	resp, err := http.Post(s.Endpoint+"/health", "application/x-amz-json-1.0", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == 200 || strings.Contains(string(body), "ok") {
		t.Errorf("POST /health = %d %s, want the API's answer", resp.StatusCode, body)
	}
}

var metricLine = regexp.MustCompile(`^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$`)

// scrape returns the samples of GET /metrics by name plus labels.
func scrape(t testing.TB, endpoint string) map[string]float64 {
	t.Helper()
	status, body, _ := httpGet(t, endpoint+"/metrics")
	if status != 200 {
		t.Fatalf("GET /metrics = %d %s", status, body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if m := metricLine.FindStringSubmatch(sc.Text()); m != nil {
			v, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				t.Fatalf("metric line %q: %v", sc.Text(), err)
			}
			out[m[1]+m[2]] = v
		}
	}
	return out
}

// Requests under concurrent load move the request, latency and error
// counters by exactly the number of requests sent.
func TestMetricsUnderLoad(t *testing.T) {
	s, c := startClient(t)
	ctx := ctxT(t)
	table := tableName("metrics")
	createHashTable(t, c, table, "S")
	before := scrape(t, s.Endpoint)

	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				key := map[string]types.AttributeValue{"pk": avS(fmt.Sprintf("k%d-%d", w, i))}
				if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: key}); err != nil {
					t.Error(err)
				}
				if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// Scrapes while the load runs must not disturb it.
	for range 5 {
		scrape(t, s.Endpoint)
	}
	wg.Wait()
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("NoSuchTable"),
		Key: map[string]types.AttributeValue{"pk": avS("x")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")

	after := scrape(t, s.Endpoint)
	n := float64(workers * perWorker)
	for name, want := range map[string]float64{
		`extenddb_requests_total{operation="PutItem",outcome="success"}`:          n,
		`extenddb_requests_total{operation="GetItem",outcome="success"}`:          n,
		`extenddb_requests_total{operation="GetItem",outcome="client_error"}`:     1,
		`extenddb_request_duration_seconds_count{operation="GetItem"}`:            n + 1,
		`extenddb_errors_total{type="ResourceNotFoundException"}`:                 1,
		`extenddb_request_duration_seconds_bucket{operation="PutItem",le="+Inf"}`: n,
		// Per table, as DynamoDB would charge: 1 WCU a small put, 0.5 RCU
		// an eventually consistent small read.
		`extenddb_items_total{kind="write",table="` + table + `"}`:                   n,
		`extenddb_items_total{kind="read",table="` + table + `"}`:                    n,
		`extenddb_consumed_capacity_units_total{kind="write",table="` + table + `"}`: n,
		`extenddb_consumed_capacity_units_total{kind="read",table="` + table + `"}`:  n / 2,
	} {
		if got := after[name] - before[name]; got != want {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
	if after["go_goroutines"] == 0 || after["process_resident_memory_bytes"] == 0 {
		t.Errorf("Go runtime and process metrics missing")
	}
	switch s.Backend {
	case backendSQLite:
		// Every PutItem is in a group commit; batches can hold several.
		if got := after["extenddb_sqlite_commit_batch_size_sum"] - before["extenddb_sqlite_commit_batch_size_sum"]; got < n {
			t.Errorf("SQLite group commits counted %v writes, want at least %v", got, n)
		}
	case backendPostgres:
		if got := after["extenddb_postgres_pool_acquires_total"] - before["extenddb_postgres_pool_acquires_total"]; got < n {
			t.Errorf("PostgreSQL pool acquisitions moved by %v, want at least %v", got, n)
		}
		if after["extenddb_postgres_pool_max_connections"] < 1 {
			t.Errorf("PostgreSQL pool size missing")
		}
	}
}

func TestMetricsOff(t *testing.T) {
	s := startServer(t, "--metrics=false")
	if status, _, _ := httpGet(t, s.Endpoint+"/metrics"); status != http.StatusNotFound {
		t.Errorf("GET /metrics with metrics off = %d, want the API's 404", status)
	}
}

// DynamoDB Local's options start a server as DynamoDB Local would, and its
// start-up lines are printed on standard output (tools wait for the first).
func TestDynamoDBLocalCommandLine(t *testing.T) {
	sqliteOnly(t, "-dbPath names a SQLite directory")
	dir := t.TempDir()
	port := freePort(t)
	s := startServer(t, "-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath", dir, "-port", strconv.Itoa(port),
		"-delayTransientStatuses", "-disableTelemetry", "-optimizeDbBeforeStartup")
	if want := "http://127.0.0.1:" + strconv.Itoa(port); s.Endpoint != want {
		t.Errorf("endpoint %s, want %s", s.Endpoint, want)
	}
	banner := "Initializing DynamoDB Local with the following configuration:\nPort:\t" + strconv.Itoa(port) +
		"\nInMemory:\tfalse\n"
	if !strings.Contains(s.log.String(), banner) || !strings.Contains(s.log.String(), "SharedDb:\ttrue\nshouldDelayTransientStatuses:\ttrue\n") {
		t.Errorf("start-up lines missing; log:\n%s", s.log.String())
	}
	c := newClient(t, s.Endpoint)
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String("Local"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: keySchema("pk"), AttributeDefinitions: attrDefs("pk", "S"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.TableDescription.TableStatus != types.TableStatusCreating {
		t.Errorf("status %s, want CREATING with -delayTransientStatuses", out.TableDescription.TableStatus)
	}
	if _, err := os.Stat(filepath.Join(dir, "extenddb.sqlite")); err != nil {
		t.Errorf("-dbPath: %v", err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// run runs the binary to completion and returns its combined output.
func runBinary(t testing.TB, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestPrintConfigAndVersion(t *testing.T) {
	sqliteOnly(t, "command-line only")
	out, err := runBinary(t, []string{"EXTENDDB_STORAGE=postgres", "EXTENDDB_POSTGRES_DSN=postgres://app:s3cret@db:5432/x"},
		"serve", "--print-config", "-inMemory")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"storage = \"postgres\"\n", "postgres-dsn = \"postgres://app:xxxxx@db:5432/x\"\n", "in-memory = true\n", "listen = \"127.0.0.1:8000\"\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("print-config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("print-config shows the password:\n%s", out)
	}
	out, err = runBinary(t, nil, "version")
	if err != nil || !regexp.MustCompile(`^extenddb \S+ go1\.\d+\S* \w+/\w+\n$`).MatchString(out) {
		t.Errorf("version: %v %q", err, out)
	}
}

// --log-format json writes one JSON object a line; --access-log adds one
// line per API request with its operation and status.
func TestJSONAccessLog(t *testing.T) {
	sqliteOnly(t, "logging does not depend on the backend, and the server runs --in-memory")
	cmd := exec.Command(binPath, "serve", "--in-memory", "--listen", "127.0.0.1:0", "--log-format", "json", "--access-log", "--metrics=false")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"bad": sc.Text()}
			}
			lines <- m
		}
		close(lines)
	}()
	next := func() map[string]any {
		select {
		case m := <-lines:
			return m
		case <-time.After(30 * time.Second):
			t.Fatal("no log line within 30s")
			return nil
		}
	}
	start := next()
	for start["level"] == "WARN" { // settings of another storage in the environment
		start = next()
	}
	endpoint, _ := start["endpoint"].(string)
	if start["msg"] != "extenddb serving DynamoDB API" || endpoint == "" {
		t.Fatalf("first line %v", start)
	}
	c := newClient(t, endpoint)
	if _, err := c.ListTables(ctxT(t), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	access := next()
	if access["msg"] != "request" || access["operation"] != "ListTables" || access["status"] != float64(200) || access["log"] != "access" {
		t.Errorf("access line %v", access)
	}
}

func TestPprofOnItsOwnAddress(t *testing.T) {
	port := freePort(t)
	s := startServer(t, "--pprof-listen", "127.0.0.1:"+strconv.Itoa(port))
	if status, body, _ := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", port)); status != 200 || !strings.Contains(body, "goroutine") {
		t.Errorf("pprof index = %d", status)
	}
	if status, _, _ := httpGet(t, s.Endpoint+"/debug/pprof/"); status == 200 {
		t.Errorf("pprof served on the API address")
	}
}

// A data directory that exists but cannot be written is named as such, not
// reported as "no such file or directory". As root, the server runs as
// nobody, for whom a root-owned 0555 directory is read-only.
func TestUnwritableDataDir(t *testing.T) {
	sqliteOnly(t, "a SQLite data directory")
	bin, cred := binPath, (*syscall.Credential)(nil)
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		bin = worldCopy(t, binPath)
	}
	dir, err := os.MkdirTemp("", "extenddb-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "data directory "+dir+" is not writable") {
		t.Errorf("err %v, output:\n%s", err, out)
	}
}

// worldCopy copies the binary into a directory everyone may enter.
func worldCopy(t testing.TB, src string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "extenddb-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "extenddb")
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// Background work shows in the metrics: an index build (its pages and its
// completion), a backup job and Time to Live expiry (the items it deleted).
func TestMetricsBackgroundWork(t *testing.T) {
	s, c := startClient(t, "--ttl-interval", "200ms", "--backup-root", t.TempDir())
	ctx := ctxT(t)
	name := seedTable(t, c, 30)
	created, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("metrics")})
	if err != nil {
		t.Fatal(err)
	}
	waitBackup(t, c, aws.ToString(created.BackupDetails.BackupArn))
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("g", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createGSIUpdate("byG", "g")}}); err != nil {
		t.Fatal(err)
	}
	waitIndex(t, c, name, "byG", false)
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	past := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	for i := range 3 {
		putItem(t, c, name, item{"pk": avS(fmt.Sprintf("gone%d", i)), "exp": avN(past)})
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		m := scrape(t, s.Endpoint)
		if m[`extenddb_ttl_expired_items_total`] >= 3 {
			if m[`extenddb_jobs_total{kind="index",state="ACTIVE"}`] != 1 || m[`extenddb_backfill_pages_total{kind="index"}`] < 1 {
				t.Errorf("index build not counted: jobs %v, pages %v", m[`extenddb_jobs_total{kind="index",state="ACTIVE"}`], m[`extenddb_backfill_pages_total{kind="index"}`])
			}
			if m[`extenddb_jobs_total{kind="backup",state="SUCCEEDED"}`] != 1 {
				t.Errorf("backup job not counted: %v", m[`extenddb_jobs_total{kind="backup",state="SUCCEEDED"}`])
			}
			if lag := m[`extenddb_ttl_expiry_lag_seconds`]; lag < 3000 {
				t.Errorf("expiry lag %v s, want about an hour", lag)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("TTL expiry not counted within 60s: %v", m[`extenddb_ttl_expired_items_total`])
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// DynamoDB Local's -cors lists the origins a browser may call from: a
// listed origin is echoed back, any other gets no CORS header (so the
// browser refuses the answer), and a preflight from it is not granted.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.UsageNotes.html
func TestLocalCORSAllowList(t *testing.T) {
	s := startServer(t, "-cors", "https://app.example, https://admin.example")
	from := func(origin string) func(*http.Request) {
		return func(r *http.Request) {
			r.Header.Set("Origin", origin)
			r.Header.Set("Access-Control-Request-Method", "POST")
		}
	}
	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, from("https://admin.example")))
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://admin.example" || r.Header.Get("Vary") != "Origin" {
		t.Errorf("listed origin: %d %v", r.Status, r.Header)
	}
	r = doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, from("https://evil.example")))
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("unlisted origin: %d %v", r.Status, r.Header)
	}
	pre := rawRequest(t, s.Endpoint, "", nil, false, from("https://evil.example"))
	pre.Method = http.MethodOptions
	if r := doRaw(t, pre); r.Status == 200 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of an unlisted origin granted: %d %v", r.Status, r.Header)
	}
}

// An --in-memory server keeps its backups in a directory of its own that
// goes when it stops: like its tables, they neither outlive it nor show in
// the ListBackups of the next --in-memory server, as with DynamoDB Local's
// -inMemory, where nothing is written to disk.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.UsageNotes.html
func TestInMemoryBackupsGoWithTheServer(t *testing.T) {
	sqliteOnly(t, "--in-memory is SQLite's")
	first, c := startClient(t, "--in-memory")
	ctx := ctxT(t)
	name := tableName("mem_backup")
	createHashTable(t, c, name, "S")
	out, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("nightly")})
	if err != nil {
		t.Fatal(err)
	}
	waitBackup(t, c, aws.ToString(out.BackupDetails.BackupArn))
	first.stop()

	_, c = startClient(t, "--in-memory")
	lb, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lb.BackupSummaries) != 0 {
		t.Fatalf("a fresh --in-memory server lists %d backups, want none: first %s",
			len(lb.BackupSummaries), aws.ToString(lb.BackupSummaries[0].BackupArn))
	}
}
