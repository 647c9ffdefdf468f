// Package extenddbtest starts an extenddb server inside a Go test: in
// memory, on a free loopback port, with the admin API on, and stopped when
// the test ends. Its methods wrap the admin API (snapshots, truncate, the
// manual clock, TTL expiry on demand), failing the test on error. See
// docs/testing-with-extenddb.md.
//
//	func TestOrders(t *testing.T) {
//		srv := extenddbtest.Start(t, extenddbtest.Options{ManualClock: true})
//		db := srv.Client()
//		// ... create tables, write, read with db ...
//		srv.Advance(24 * time.Hour)
//	}
package extenddbtest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/extenddb/extenddb/internal/admin"
	"github.com/extenddb/extenddb/internal/server"
)

// Credentials and region of the clients Client returns: the server runs in
// local mode, where any well-formed signature is accepted.
const (
	AccessKeyID     = "test"
	SecretAccessKey = "test"
	Region          = "us-east-1"
)

// Options tune the server Start starts. The zero value works.
type Options struct {
	// ManualClock starts the clock at the current time and moves it only
	// through Advance and SetClock.
	ManualClock bool
	// Seed is a directory of tables and items to create first
	// (`extenddb serve --seed`).
	Seed string
	// PerAccessKey gives every access key its own tables.
	PerAccessKey bool
	// Log receives the server's log; nil discards it.
	Log io.Writer
}

// Server is a running server.
type Server struct {
	// Endpoint is the server's URL, e.g. http://127.0.0.1:41234.
	Endpoint string
	t        testing.TB
	admin    *admin.Client
}

// Start starts a server for the test t and stops it when t ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	w := o.Log
	if w == nil {
		w = io.Discard
	}
	cfg := server.Config{
		Listen: "127.0.0.1:0", Storage: "sqlite", InMemory: true, Region: Region, AccountID: "000000000000",
		TTLInterval: 30 * time.Second, TTLPageSize: 256, Metrics: false,
		Auth:    server.AuthConfig{PerAccessKey: o.PerAccessKey},
		Testkit: server.TestkitConfig{AdminAPI: true, Seed: o.Seed},
		Log:     slog.New(slog.NewTextHandler(w, nil)),
		HTTP:    server.DefaultHTTPLimits,
	}
	if o.ManualClock {
		cfg.Testkit.Clock = "manual"
	}
	s, err := server.Start(cfg)
	if err != nil {
		t.Fatalf("extenddbtest: start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("extenddbtest: shutdown: %v", err)
		}
	})
	return &Server{Endpoint: s.Endpoint(), t: t, admin: &admin.Client{Endpoint: s.Endpoint(), Region: Region,
		Credentials: aws.Credentials{AccessKeyID: AccessKeyID, SecretAccessKey: SecretAccessKey}}}
}

// Client returns a DynamoDB client of the server.
func (s *Server) Client() *dynamodb.Client {
	return s.ClientAs(AccessKeyID, SecretAccessKey)
}

// ClientAs returns a DynamoDB client signing with the given key: with
// Options.PerAccessKey each key has its own tables.
func (s *Server) ClientAs(accessKeyID, secret string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKeyID, secret, ""),
		HTTPClient:   &http.Client{Timeout: time.Minute},
	})
}

func (s *Server) check(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("extenddbtest: %v", err)
	}
}

// SaveSnapshot saves the named tables (every table when none) as name.
func (s *Server) SaveSnapshot(name string, tables ...string) {
	s.t.Helper()
	_, err := s.admin.SaveSnapshot(context.Background(), name, tables...)
	s.check(err)
}

// RestoreSnapshot puts the tables of snapshot name back as they were saved
// (a snapshot of every table also deletes the tables created since).
func (s *Server) RestoreSnapshot(name string) {
	s.t.Helper()
	_, err := s.admin.RestoreSnapshot(context.Background(), name)
	s.check(err)
}

// Truncate removes every item of table and keeps its definition.
func (s *Server) Truncate(table string) {
	s.t.Helper()
	s.check(s.admin.Truncate(context.Background(), table))
}

// ExpireNow deletes the expired items of table now and returns how many.
func (s *Server) ExpireNow(table string) int {
	s.t.Helper()
	n, err := s.admin.ExpireNow(context.Background(), table)
	s.check(err)
	return n
}

// Now is the server's time.
func (s *Server) Now() time.Time {
	s.t.Helper()
	st, err := s.admin.Clock(context.Background())
	s.check(err)
	return st.Now
}

// Advance moves the manual clock forward by d; expired items are deleted
// and stream records past their retention removed before it returns.
func (s *Server) Advance(d time.Duration) time.Time {
	s.t.Helper()
	st, err := s.admin.AdvanceClock(context.Background(), d.String())
	s.check(err)
	return st.Now
}

// SetClock sets the manual clock to at.
func (s *Server) SetClock(at time.Time) {
	s.t.Helper()
	_, err := s.admin.SetClock(context.Background(), at)
	s.check(err)
}
