// Package e2e runs extenddb as a real process and talks to it over HTTP with
// the AWS SDK for Go v2, the AWS CLI and boto3, the way users do. Nothing is
// mocked: every test starts `extenddb serve` built from this checkout.
//
// The suite runs on one storage backend at a time, chosen by
// EXTENDDB_E2E_STORAGE: "sqlite" (the default), "postgres", which needs
// EXTENDDB_POSTGRES_DSN (scripts/postgres.sh start prints one), or
// "cassandra", which needs EXTENDDB_CASSANDRA_HOSTS (comma-separated contact
// points; scripts/cassandra.sh start prints them). On PostgreSQL every server
// gets a fresh schema of its own, on Cassandra a fresh keyspace prefix, both
// dropped when the test ends; see startServer for how the SQLite-only flags
// are carried over.
//
//	go test ./e2e/
//	EXTENDDB_E2E_STORAGE=postgres EXTENDDB_POSTGRES_DSN=$(scripts/postgres.sh start) go test ./e2e/
//	EXTENDDB_E2E_STORAGE=cassandra EXTENDDB_CASSANDRA_HOSTS=$(scripts/cassandra.sh start) go test ./e2e/
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/jackc/pgx/v5"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Credentials and region every client uses. extenddb does not check
// signatures, so any values work; these are the AWS documentation's examples.
const (
	testAccessKey = "AKIAIOSFODNN7EXAMPLE"
	testSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	testRegion    = "us-east-1"
	testAccount   = "000000000000"
)

// binPath is the extenddb binary built once by TestMain.
var binPath string

// Storage backends a server can run on.
const (
	backendSQLite    = "sqlite"
	backendPostgres  = "postgres"
	backendCassandra = "cassandra"
)

// e2eBackend is the backend startServer uses (EXTENDDB_E2E_STORAGE),
// postgresDSN the database for PostgreSQL servers (EXTENDDB_POSTGRES_DSN) and
// cassandraHosts the contact points of Cassandra servers
// (EXTENDDB_CASSANDRA_HOSTS).
var (
	e2eBackend     = backendSQLite
	postgresDSN    string
	cassandraHosts string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	postgresDSN = os.Getenv("EXTENDDB_POSTGRES_DSN")
	cassandraHosts = os.Getenv("EXTENDDB_CASSANDRA_HOSTS")
	defer closeCassandra()
	switch b := os.Getenv("EXTENDDB_E2E_STORAGE"); b {
	case "", backendSQLite:
	case backendPostgres:
		e2eBackend = backendPostgres
		if postgresDSN == "" {
			fmt.Fprintln(os.Stderr, "e2e: EXTENDDB_E2E_STORAGE=postgres needs EXTENDDB_POSTGRES_DSN (export EXTENDDB_POSTGRES_DSN=$(scripts/postgres.sh start))")
			return 1
		}
		if err := pingPostgres(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: EXTENDDB_E2E_STORAGE=postgres: cannot reach EXTENDDB_POSTGRES_DSN: %v\n", err)
			return 1
		}
	case backendCassandra:
		e2eBackend = backendCassandra
		if cassandraHosts == "" {
			fmt.Fprintln(os.Stderr, "e2e: EXTENDDB_E2E_STORAGE=cassandra needs EXTENDDB_CASSANDRA_HOSTS (export EXTENDDB_CASSANDRA_HOSTS=$(scripts/cassandra.sh start))")
			return 1
		}
		if _, err := cassandraSession(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: EXTENDDB_E2E_STORAGE=cassandra: cannot reach EXTENDDB_CASSANDRA_HOSTS=%s: %v\n", cassandraHosts, err)
			return 1
		}
		// Whatever a test's cleanup missed (a failed drop, a test that
		// stopped the run) goes at the end of the run.
		defer func() {
			if err := dropKeyspaces(keyspaceRun); err != nil {
				fmt.Fprintf(os.Stderr, "e2e: dropping this run's Cassandra keyspaces (%s*): %v\n", keyspaceRun, err)
			}
		}()
	default:
		fmt.Fprintf(os.Stderr, "e2e: EXTENDDB_E2E_STORAGE=%q: want sqlite, postgres or cassandra\n", b)
		return 1
	}
	dir, err := os.MkdirTemp("", "extenddb-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	binPath = filepath.Join(dir, "extenddb")
	build := exec.Command("go", "build", "-o", binPath, "./cmd/extenddb")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building extenddb failed: %v\n%s\n", err, out)
		return 1
	}
	return m.Run()
}

// server is one running `extenddb serve` process.
type server struct {
	t        testing.TB
	Endpoint string
	Backend  string // backendSQLite, backendPostgres or backendCassandra
	DataDir  string // SQLite's directory; on PostgreSQL and Cassandra the --data-dir a test named, if any
	Schema   string // PostgreSQL schema or Cassandra keyspace prefix ("" on SQLite)
	// dropOnExit: the schema (keyspaces) stands for --in-memory and goes
	// with the process.
	dropOnExit bool
	cmd        *exec.Cmd
	log        *lockedBuffer
	done       chan struct{} // closed when the process has exited
	waitErr    error         // valid after done is closed
	stopOnce   sync.Once
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var endpointRE = regexp.MustCompile(`msg="extenddb serving DynamoDB API" endpoint=(https?://\S+)`)

// startServer starts `extenddb serve --listen 127.0.0.1:0` on the suite's
// backend (EXTENDDB_E2E_STORAGE), waits until it answers, and stops it with
// SIGTERM when the test ends, failing the test if it does not exit 0.
//
// On SQLite its data is in a fresh t.TempDir() unless args name --data-dir
// or --in-memory. On PostgreSQL the SQLite flags keep their meaning:
//   - no storage flag: a fresh schema, so the server starts empty;
//   - --in-memory: a fresh schema, dropped as soon as the process exits, so
//     nothing it stored survives it;
//   - --data-dir DIR: the schema belonging to DIR, the same for every server
//     the test starts with that DIR, so a restart (after SIGTERM or kill -9)
//     finds the data again, as it would in the directory;
//   - --postgres-schema S: exactly S (several processes on one schema).
//
// Every schema the harness makes is dropped when the test ends. On
// Cassandra the same holds with a keyspace prefix for the schema (the
// keyspaces <prefix>_catalog and <prefix>_a<account>), and
// --cassandra-keyspace-prefix P for --postgres-schema S.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	return startServerOn(t, e2eBackend, args...)
}

// startServerOn is startServer on a given backend, whatever the suite's.
// A --storage flag in args overrides backend.
func startServerOn(t testing.TB, backend string, args ...string) *server {
	t.Helper()
	full := []string{"serve", "--listen", "127.0.0.1:0"}
	dataDir, schema := "", ""
	inMemory, hasDSN, hasHosts, explicitSchema := false, false, false, false
	var rest []string // args other than the storage flags
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		switch name {
		case "--data-dir", "--storage", "--postgres-schema", "--cassandra-keyspace-prefix":
			if !hasVal && i+1 < len(args) {
				val, hasVal = args[i+1], true
				i++
			}
		}
		switch {
		case args[i] == "--in-memory":
			inMemory = true
		case name == "--data-dir" && hasVal:
			dataDir = val
		case name == "--storage" && hasVal:
			backend = val
		case (name == "--postgres-schema" || name == "--cassandra-keyspace-prefix") && hasVal:
			schema = val
		default:
			hasDSN = hasDSN || name == "--postgres-dsn"
			hasHosts = hasHosts || name == "--cassandra-hosts"
			rest = append(rest, args[i])
		}
	}
	switch backend {
	case backendSQLite:
		full = append(full, "--storage", backendSQLite)
		switch {
		case inMemory:
			full = append(full, "--in-memory")
		case dataDir == "":
			dataDir = t.TempDir()
			fallthrough
		default:
			full = append(full, "--data-dir", dataDir)
		}
	case backendPostgres:
		if postgresDSN == "" && !hasDSN {
			t.Fatalf("a PostgreSQL-backed server needs EXTENDDB_POSTGRES_DSN (export EXTENDDB_POSTGRES_DSN=$(scripts/postgres.sh start))")
		}
		explicitSchema = schema != ""
		switch {
		case explicitSchema:
		case dataDir != "" && !inMemory:
			schema = dataDirSchema(t, backendPostgres, dataDir)
		default:
			schema = newSchema(t)
		}
		full = append(full, "--storage", backendPostgres, "--postgres-schema", schema)
		if !hasDSN {
			full = append(full, "--postgres-dsn", postgresDSN)
		}
	case backendCassandra:
		if cassandraHosts == "" && !hasHosts {
			t.Fatalf("a Cassandra-backed server needs EXTENDDB_CASSANDRA_HOSTS (export EXTENDDB_CASSANDRA_HOSTS=$(scripts/cassandra.sh start))")
		}
		explicitSchema = schema != ""
		switch {
		case explicitSchema:
		case dataDir != "" && !inMemory:
			schema = dataDirSchema(t, backendCassandra, dataDir)
		default:
			schema = newKeyspacePrefix(t)
		}
		full = append(full, "--storage", backendCassandra, "--cassandra-keyspace-prefix", schema)
		if !hasHosts {
			full = append(full, "--cassandra-hosts", cassandraHosts)
		}
	default:
		t.Fatalf("unknown storage backend %q (want sqlite, postgres or cassandra)", backend)
	}
	if backend != backendSQLite {
		full = append(full, fileRoots(t, dataDir, rest)...)
	}
	full = append(full, rest...)

	s := &server{t: t, Backend: backend, DataDir: dataDir, Schema: schema, log: &lockedBuffer{}, done: make(chan struct{})}
	s.dropOnExit = (backend == backendPostgres || backend == backendCassandra) && inMemory && !explicitSchema
	s.cmd = exec.Command(binPath, full...)
	s.cmd.Stdout = s.log
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatalf("stderr pipe: %v", err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting extenddb: %v", err)
	}
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		found := false
		for sc.Scan() {
			line := sc.Text()
			s.log.Write([]byte(line + "\n"))
			if !found {
				if m := endpointRE.FindStringSubmatch(line); m != nil {
					found = true
					endpoint <- m[1]
				}
			}
		}
		_, _ = io.Copy(s.log, stderr)
		s.waitErr = s.cmd.Wait()
		if s.dropOnExit {
			drop := dropSchema
			if s.Backend == backendCassandra {
				drop = func(prefix string) error { return dropKeyspaces(prefix + "_") }
			}
			if err := drop(s.Schema); err != nil {
				fmt.Fprintf(s.log, "e2e: dropping the --in-memory schema %s: %v\n", s.Schema, err)
			}
		}
		close(s.done)
	}()
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("extenddb log (%s):\n%s", strings.Join(full, " "), s.log.String())
		}
	})

	select {
	case s.Endpoint = <-endpoint:
	case <-s.done:
		t.Fatalf("extenddb exited before serving (%v); log:\n%s", s.waitErr, s.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("extenddb did not log its endpoint within 30s; log:\n%s", s.log.String())
	}
	s.waitReady()
	return s
}

var readyClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// waitReady polls the endpoint until the HTTP server answers.
func (s *server) waitReady() {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// Readiness only: an HTTPS server's certificate is checked by the
		// tests themselves.
		resp, err := readyClient.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("extenddb at %s never answered: %v", s.Endpoint, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and fails the test unless the process exits 0 within 30s.
// It does nothing if the process has already been stopped or killed.
func (s *server) stop() {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
			if s.waitErr != nil {
				s.t.Errorf("extenddb exited on its own: %v", s.waitErr)
			}
			return
		default:
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
			s.t.Errorf("extenddb did not exit within 30s of SIGTERM")
			return
		}
		if s.waitErr != nil {
			s.t.Errorf("extenddb did not exit cleanly after SIGTERM: %v", s.waitErr)
		}
	})
}

// signal sends sig to the process without waiting.
func (s *server) signal(sig os.Signal) {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("signal %v: %v", sig, err)
	}
}

// wait waits for the process to exit and returns its exit error; it marks the
// server stopped so the cleanup does not signal it again.
func (s *server) wait(timeout time.Duration) error {
	var err error
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
			err = s.waitErr
		case <-time.After(timeout):
			_ = s.cmd.Process.Kill()
			<-s.done
			err = fmt.Errorf("no exit within %v", timeout)
		}
	})
	return err
}

// kill sends SIGKILL (no chance to clean up) and waits for the process to go.
func (s *server) kill() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
}

// newClient returns an SDK client for endpoint with static credentials and
// region us-east-1. Retries are off so each call is exactly one request.
func newClient(t testing.TB, endpoint string) *dynamodb.Client {
	t.Helper()
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(endpoint),
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		// Only transport failures are retried (never API errors, whose exact
		// codes and messages the tests assert): the SDK for Go v2 can see
		// "use of closed network connection" on a reused keep-alive
		// connection, against DynamoDB too
		// (https://github.com/aws/aws-sdk-go-v2/issues/2737).
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.Retryables = []retry.IsErrorRetryable{retry.RetryableConnectionError{}}
			o.RateLimiter = ratelimit.None
		}),
		HTTPClient: &http.Client{Timeout: 60 * time.Second},
	})
}

// startClient starts a server with args and returns a client for it.
func startClient(t testing.TB, args ...string) (*server, *dynamodb.Client) {
	t.Helper()
	s := startServer(t, args...)
	return s, newClient(t, s.Endpoint)
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// wantAPIError asserts err is a DynamoDB error with exactly this code and
// message. An empty message asserts only the code.
func wantAPIError(t testing.TB, err error, code, message string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s %q, got success", code, message)
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s %q, got non-API error: %v", code, message, err)
	}
	if ae.ErrorCode() != code {
		t.Fatalf("error code: want %s, got %s (message %q)", code, ae.ErrorCode(), ae.ErrorMessage())
	}
	if message != "" && ae.ErrorMessage() != message {
		t.Fatalf("%s message:\nwant %q\ngot  %q", code, message, ae.ErrorMessage())
	}
}

// wantAPIErrorMatch is wantAPIError with a regular expression for the message.
func wantAPIErrorMatch(t testing.TB, err error, code string, message *regexp.Regexp) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s %v, got success", code, message)
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s, got non-API error: %v", code, err)
	}
	if ae.ErrorCode() != code {
		t.Fatalf("error code: want %s, got %s (message %q)", code, ae.ErrorCode(), ae.ErrorMessage())
	}
	if !message.MatchString(ae.ErrorMessage()) {
		t.Fatalf("%s message:\nwant match %v\ngot  %q", code, message, ae.ErrorMessage())
	}
}

// ---- PostgreSQL ----

var (
	schemaSeq atomic.Int64
	// schemaRun makes schema names unique across concurrent runs of the
	// suite on one database.
	schemaRun = fmt.Sprintf("%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)

	dirSchemasMu sync.Mutex
	dirSchemas   = map[[2]string]string{} // {backend, --data-dir} -> schema or keyspace prefix, while its test runs
)

// newSchema names a fresh PostgreSQL schema (the server creates it) and
// drops it, with everything in it, when the test ends, after the servers
// started later in the test have stopped.
func newSchema(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("e2e_%s_%d", schemaRun, schemaSeq.Add(1))
	t.Cleanup(func() {
		if err := dropSchema(name); err != nil {
			t.Errorf("drop PostgreSQL schema %s: %v", name, err)
		}
	})
	return name
}

// dataDirSchema is the PostgreSQL schema or Cassandra keyspace prefix
// (backend) standing in for the SQLite data directory dir: every server a
// test starts on backend with --data-dir dir uses the same one.
func dataDirSchema(t testing.TB, backend, dir string) string {
	t.Helper()
	dirSchemasMu.Lock()
	defer dirSchemasMu.Unlock()
	key := [2]string{backend, dir}
	if s, ok := dirSchemas[key]; ok {
		return s
	}
	var s string
	if backend == backendCassandra {
		s = newKeyspacePrefix(t)
	} else {
		s = newSchema(t)
	}
	dirSchemas[key] = s
	t.Cleanup(func() {
		dirSchemasMu.Lock()
		delete(dirSchemas, key)
		dirSchemasMu.Unlock()
	})
	return s
}

func pgConnect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.Connect(ctx, postgresDSN)
}

func pingPostgres() error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := pgConnect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}

func dropSchema(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgConnect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	return err
}

// requirePostgres is for tests that need a PostgreSQL server whatever the
// suite's backend: without EXTENDDB_POSTGRES_DSN, or when it cannot be
// reached, they fail if EXTENDDB_REQUIRE_BACKENDS=1 or CI=true
// (scripts/test.sh sets the first) and skip otherwise.
func requirePostgres(t testing.TB) {
	t.Helper()
	why := ""
	if postgresDSN == "" {
		why = "EXTENDDB_POSTGRES_DSN is not set (export EXTENDDB_POSTGRES_DSN=$(scripts/postgres.sh start))"
	} else if err := pingPostgres(); err != nil {
		why = fmt.Sprintf("cannot reach EXTENDDB_POSTGRES_DSN: %v", err)
	}
	if why == "" {
		return
	}
	if os.Getenv("EXTENDDB_REQUIRE_BACKENDS") == "1" || os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL required: %s", why)
	}
	t.Skipf("PostgreSQL not available: %s", why)
}

// ---- Cassandra ----

var (
	keyspaceSeq atomic.Int64
	// keyspaceRun starts every keyspace prefix of this run, making them
	// unique across concurrent runs of the suite on one cluster: "e2e", 8
	// random hex digits and "n". The sequence number that follows it ends
	// the prefix, so no prefix followed by "_" starts another prefix.
	keyspaceRun = fmt.Sprintf("e2e%08xn", rand.Uint32())

	cassMu      sync.Mutex
	cassSession *gocql.Session
)

// newKeyspacePrefix names a fresh Cassandra keyspace prefix (a letter, then
// at most 23 letters, digits or underscores; the server creates the
// keyspaces <prefix>_catalog and <prefix>_a<account>) and drops its
// keyspaces when the test ends, after the servers started later in the
// test have stopped.
func newKeyspacePrefix(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("%s%d", keyspaceRun, keyspaceSeq.Add(1))
	t.Cleanup(func() {
		if err := dropKeyspaces(name + "_"); err != nil {
			t.Errorf("drop the Cassandra keyspaces %s_*: %v", name, err)
		}
	})
	return name
}

// cassandraSession returns a session on EXTENDDB_CASSANDRA_HOSTS, made on
// first use and shared by the run. While the node is still starting it
// retries for up to 30 seconds.
func cassandraSession() (*gocql.Session, error) {
	cassMu.Lock()
	defer cassMu.Unlock()
	if cassSession != nil {
		return cassSession, nil
	}
	if cassandraHosts == "" {
		return nil, errors.New("EXTENDDB_CASSANDRA_HOSTS is not set")
	}
	c := gocql.NewCluster(strings.Split(cassandraHosts, ",")...)
	c.Timeout = 30 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.Quorum
	c.MaxWaitSchemaAgreement = 2 * time.Minute
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := c.CreateSession()
		if err == nil {
			var v string
			if err = s.Query(`SELECT release_version FROM system.local`).Scan(&v); err == nil {
				cassSession = s
				return s, nil
			}
			s.Close()
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(2 * time.Second)
	}
}

func closeCassandra() {
	cassMu.Lock()
	defer cassMu.Unlock()
	if cassSession != nil {
		cassSession.Close()
		cassSession = nil
	}
}

// dropKeyspaces drops every Cassandra keyspace whose name starts with
// prefix (a keyspace prefix and "_" for one server's keyspaces).
func dropKeyspaces(prefix string) error {
	s, err := cassandraSession()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	iter := s.Query(`SELECT keyspace_name FROM system_schema.keyspaces`).WithContext(ctx).Iter()
	var names []string
	var name string
	for iter.Scan(&name) {
		if strings.HasPrefix(name, strings.ToLower(prefix)) {
			names = append(names, name)
		}
	}
	if err := iter.Close(); err != nil {
		return err
	}
	for _, ks := range names {
		if err := s.Query(`DROP KEYSPACE IF EXISTS "` + ks + `"`).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("DROP KEYSPACE %s: %w", ks, err)
		}
	}
	return nil
}

// sqliteOnly marks a test about SQLite itself (its files, its flags): it runs
// only when the suite runs on SQLite.
func sqliteOnly(t testing.TB, why string) {
	t.Helper()
	if e2eBackend != backendSQLite {
		t.Skipf("SQLite only (%s); this run's backend is %s", why, e2eBackend)
	}
}

// fileRoots gives a server on PostgreSQL or Cassandra directories of its
// own for backups and exports (--backup-root, --export-dir) unless args
// name them: under the test's --data-dir, so that servers of one test share
// them, or else under a fresh temporary directory. Without them the server
// would default to ./extenddb-data in the test's working directory.
func fileRoots(t testing.TB, dataDir string, args []string) []string {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	var out []string
	for flag, sub := range map[string]string{"--backup-root": "backups", "--export-dir": "exports"} {
		named := slices.ContainsFunc(args, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
		if !named {
			out = append(out, flag, filepath.Join(dataDir, sub))
		}
	}
	return out
}
