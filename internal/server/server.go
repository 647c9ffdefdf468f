// Package server wires a storage backend, the API engine and the HTTP
// protocol layer into a running extenddb server with graceful shutdown.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/cassandra"
	"github.com/extenddb/extenddb/internal/storage/postgres"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
	"github.com/extenddb/extenddb/internal/workers"
)

// Config is everything `extenddb serve` can be told.
type Config struct {
	Listen         string // host:port; port 0 picks a free port
	Storage        string // "sqlite" (default), "postgres" or "cassandra"
	DataDir        string // SQLite data directory
	InMemory       bool   // SQLite: keep everything in memory (nothing survives exit)
	PostgresDSN    string // PostgreSQL connection string (URL or key=value)
	PostgresSchema string // PostgreSQL schema holding extenddb's tables; "" = search_path

	CassandraHosts             string // comma-separated contact points
	CassandraKeyspacePrefix    string // keyspace names start with it (default "extenddb")
	CassandraReplicationFactor int    // replication factor of created keyspaces (default 1)
	CassandraDatacenter        string // NetworkTopologyStrategy datacenter; "" = SimpleStrategy

	Region      string        // region reported when a request names none
	AccountID   string        // 12-digit account id used in ARNs
	StatusDelay time.Duration // CREATING/UPDATING/DELETING duration; 0 = immediate
	TTLInterval time.Duration // how often expired items are deleted; 0 = 30 s

	// Operations (docs/operations.md).
	LogFormat   string // "text" (default) or "json"; cmd/extenddb builds Log from it
	LogLevel    string // "debug", "info" (default), "warn" or "error"
	AccessLog   bool   // one log line per API request
	Metrics     bool   // serve GET /metrics (Prometheus)
	PprofListen string // host:port for net/http/pprof; "" = off

	// DynamoDB Local's options without a storage meaning of their own here
	// (docs/configuration.md, "Coming from DynamoDB Local").
	SharedDB                bool   // -sharedDb: one database for every access key and region
	CORS                    string // -cors: comma-separated allowed origins ("*" = any)
	DisableTelemetry        bool   // -disableTelemetry: extenddb sends no telemetry in any case
	OptimizeDBBeforeStartup bool   // -optimizeDbBeforeStartup

	Log *slog.Logger
}

// Server is a running extenddb.
type Server struct {
	cfg      Config
	store    storage.Backend
	http     *http.Server
	listener net.Listener

	stopWorkers context.CancelFunc
	workersDone chan struct{}

	metrics        *metrics.Metrics // nil when metrics are off
	metricsHandler http.Handler
	stopping       atomic.Bool // set when Shutdown begins: /ready answers 503
	pprof          *http.Server
	pprofListener  net.Listener
}

// Start opens storage and begins serving. The returned server is listening.
func Start(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	store, err := openStorage(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	var m *metrics.Metrics
	if cfg.Metrics {
		m = metrics.New()
	}
	engine := api.New(store, api.Config{AccountID: cfg.AccountID, StatusDelay: cfg.StatusDelay, Log: cfg.Log})
	// Background workers: online index builds and drops (they resume at
	// start-up from the durable cursors in the catalog).
	account := cfg.AccountID
	if account == "" {
		account = "000000000000"
	}
	indexes := workers.NewIndexes(store, workers.IndexConfig{Accounts: []string{account}, Log: cfg.Log, Metrics: m})
	engine.SetIndexWorker(indexes.Kick)
	// Time to Live (backfill, drain, expiry) and stream retention.
	ttl := workers.NewTTL(store, workers.TTLConfig{Accounts: []string{account}, Interval: cfg.TTLInterval, Log: cfg.Log, Metrics: m})
	engine.SetTTLWorker(ttl.Kick)
	trimmer := workers.NewStreamTrimmer(store, 0, cfg.Log)
	if trimmer != nil {
		trimmer.Metrics = m
	}
	// Dead ClientRequestToken records of TransactWriteItems.
	sweeper := workers.NewTokenSweeper(store, 0, cfg.Log)
	// Writes that stopped frontends left without their index rows, stream
	// records and expiry rows (Cassandra).
	recoverer := workers.NewRecoverer(store, 0, cfg.Log)
	wctx, stopWorkers := context.WithCancel(context.Background())
	workersDone := make(chan struct{})
	go func() {
		defer close(workersDone)
		var wg sync.WaitGroup
		wg.Go(func() { ttl.Run(wctx) })
		wg.Go(func() { trimmer.Run(wctx) })
		wg.Go(func() { sweeper.Run(wctx) })
		wg.Go(func() { recoverer.Run(wctx) })
		indexes.Run(wctx)
		wg.Wait()
	}()
	s := &Server{
		cfg:         cfg,
		store:       store,
		listener:    ln,
		stopWorkers: stopWorkers,
		workersDone: workersDone,
	}
	if m != nil {
		s.metrics = m
		s.metricsHandler = m.Handler()
	}
	s.http = &http.Server{
		Handler:           s.routes(s.newProtocol(engine)),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn),
	}
	if cfg.PprofListen != "" {
		if s.pprof, s.pprofListener, err = startPprof(cfg.PprofListen, cfg.Log); err != nil {
			s.stopWorkers()
			<-s.workersDone
			ln.Close()
			store.Close()
			return nil, fmt.Errorf("pprof: listen on %s: %w", cfg.PprofListen, err)
		}
	}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Error("http server stopped", "error", err)
		}
	}()
	return s, nil
}

func openStorage(cfg Config) (storage.Backend, error) {
	switch cfg.Storage {
	case "", "sqlite":
	case "postgres":
		if cfg.PostgresDSN == "" {
			return nil, errors.New("--storage postgres needs --postgres-dsn (or EXTENDDB_POSTGRES_DSN)")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return postgres.Open(ctx, cfg.PostgresDSN, postgres.Options{Schema: cfg.PostgresSchema})
	case "cassandra":
		if cfg.CassandraHosts == "" {
			return nil, errors.New("--storage cassandra needs --cassandra-hosts (or EXTENDDB_CASSANDRA_HOSTS)")
		}
		// Schema changes on Cassandra are slow: give start-up time.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		return cassandra.Open(ctx, cassandra.Options{
			Hosts:             strings.Split(cfg.CassandraHosts, ","),
			KeyspacePrefix:    cfg.CassandraKeyspacePrefix,
			ReplicationFactor: cfg.CassandraReplicationFactor,
			Datacenter:        cfg.CassandraDatacenter,
		})
	default:
		return nil, fmt.Errorf("unknown storage %q (want sqlite, postgres or cassandra)", cfg.Storage)
	}
	if cfg.InMemory {
		return sqlite.Open("", sqlite.Options{})
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	if err := checkWritable(cfg.DataDir); err != nil {
		return nil, err
	}
	return sqlite.Open(filepath.Join(cfg.DataDir, "extenddb.sqlite"), sqlite.Options{})
}

// checkWritable reports a data directory extenddb cannot write in, by its
// name, rather than as the database's later "unable to open" error.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".extenddb-write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Endpoint is the URL clients use, e.g. http://127.0.0.1:8000.
func (s *Server) Endpoint() string { return "http://" + s.listener.Addr().String() }

// Shutdown stops accepting requests, lets in-flight requests finish (until
// ctx ends), then closes storage cleanly.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopping.Store(true)
	if s.pprof != nil {
		_ = s.pprof.Close()
	}
	err := s.http.Shutdown(ctx)
	s.stopWorkers()
	<-s.workersDone
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// PprofEndpoint is the URL of the pprof index, or "" when pprof is off.
func (s *Server) PprofEndpoint() string {
	if s.pprofListener == nil {
		return ""
	}
	return "http://" + s.pprofListener.Addr().String() + "/debug/pprof/"
}

// account is the account the server's catalog probes and workers use.
func (s *Server) account() string {
	if s.cfg.AccountID == "" {
		return "000000000000"
	}
	return s.cfg.AccountID
}

// PostgresSchemaOrDefault names the schema extenddb uses on PostgreSQL.
func (c Config) PostgresSchemaOrDefault() string {
	if c.PostgresSchema == "" {
		return "search_path"
	}
	return c.PostgresSchema
}
