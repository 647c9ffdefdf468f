// Package e2e runs extenddb as a real process and talks to it over HTTP with
// the AWS SDK for Go v2, the AWS CLI and boto3, the way users do. Nothing is
// mocked: every test starts `extenddb serve` built from this checkout.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
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

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
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
	DataDir  string
	cmd      *exec.Cmd
	log      *lockedBuffer
	done     chan struct{} // closed when the process has exited
	waitErr  error         // valid after done is closed
	stopOnce sync.Once
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

var endpointRE = regexp.MustCompile(`msg="extenddb serving DynamoDB API" endpoint=(http://\S+)`)

// startServer starts `extenddb serve --listen 127.0.0.1:0` with its data in a
// fresh t.TempDir() (unless args name --data-dir or --in-memory), waits until
// it answers, and stops it with SIGTERM when the test ends, failing the test
// if it does not exit 0.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	full := []string{"serve", "--listen", "127.0.0.1:0"}
	dataDir := ""
	hasStorage := false
	for i, a := range args {
		switch {
		case a == "--in-memory":
			hasStorage = true
		case a == "--data-dir" && i+1 < len(args):
			hasStorage = true
			dataDir = args[i+1]
		case strings.HasPrefix(a, "--data-dir="):
			hasStorage = true
			dataDir = strings.TrimPrefix(a, "--data-dir=")
		}
	}
	if !hasStorage {
		dataDir = t.TempDir()
		full = append(full, "--data-dir", dataDir)
	}
	full = append(full, args...)

	s := &server{t: t, DataDir: dataDir, log: &lockedBuffer{}, done: make(chan struct{})}
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

// waitReady polls the endpoint until the HTTP server answers.
func (s *server) waitReady() {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
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
		Retryer:      aws.NopRetryer{},
		HTTPClient:   &http.Client{Timeout: 60 * time.Second},
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
