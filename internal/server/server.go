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
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/triggers"
	"github.com/extenddb/extenddb/internal/workers"
)

// Config is everything `extenddb serve` can be told.
type Config struct {
	Listen    string          // host:port; port 0 picks a free port
	Storage   string          // "sqlite" (default), "postgres" or "cassandra"
	DataDir   string          // SQLite data directory
	InMemory  bool            // SQLite: keep everything in memory (nothing survives exit)
	Postgres  PostgresConfig  // --storage postgres (backends.go)
	Cassandra CassandraConfig // --storage cassandra (backends.go)

	Region      string        // region reported when a request names none
	AccountID   string        // 12-digit account id used in ARNs
	StatusDelay time.Duration // CREATING/UPDATING/DELETING duration; 0 = immediate
	TTLInterval time.Duration // how often expired items are deleted; 0 = 30 s
	Auth        AuthConfig    // authentication, namespaces and TLS (auth.go)

	// Pacing of the background workers' pages, for tests and demos that
	// watch a table in ENABLING, DISABLING or an index in CREATING.
	TTLPageSize    int           // items per TTL backfill or drain page; 0 = 256
	TTLPageDelay   time.Duration // pause before every TTL page; 0 = none
	IndexPageDelay time.Duration // pause between online index build pages; 0 = none

	// ItemCollectionLimit is the size limit in bytes of one item collection
	// of a table with local secondary indexes; 0 = DynamoDB's 10 GB.
	ItemCollectionLimit int64

	// BackupRoot is the directory of on-demand backups (docs/backups.md);
	// "" = <DataDir>/backups, or a directory under the system's temporary
	// directory when there is no DataDir.
	BackupRoot string

	// ExportDir is the directory standing for S3 in exports and imports:
	// bucket B is the directory <ExportDir>/B and an object key a path
	// under it (docs/backups.md); "" = <DataDir>/exports, or a directory
	// under the system's temporary directory when there is no DataDir.
	ExportDir string
	// ExportMinIncrementalPeriod is the shortest incremental export period;
	// 0 = DynamoDB's 15 minutes.
	ExportMinIncrementalPeriod time.Duration
	// ExportPageDelay is a pause after every 1,000 items an export writes;
	// 0 = none.
	ExportPageDelay time.Duration

	// Operations (docs/operations.md).
	LogFormat   string // "text" (default) or "json"; cmd/extenddb builds Log from it
	LogLevel    string // "debug", "info" (default), "warn" or "error"
	AccessLog   bool   // one log line per API request
	Metrics     bool   // serve GET /metrics (Prometheus)
	PprofListen string // host:port for net/http/pprof; "" = off
	Console     bool   // serve the web console under /console (docs/console.md)

	// DynamoDB Local's options without a meaning of their own elsewhere
	// (docs/configuration.md, "Coming from DynamoDB Local"); -sharedDb is
	// Auth.SharedDB.
	CORS                    string // -cors: comma-separated allowed origins ("*" = any)
	DisableTelemetry        bool   // -disableTelemetry: extenddb sends no telemetry in any case
	OptimizeDBBeforeStartup bool   // -optimizeDbBeforeStartup

	Log *slog.Logger

	// GuardMemoryDir, when set, arranges for the --in-memory directory to
	// be removed if the process dies without shutting down (the extenddb
	// command sets it to internal/watchdog's Guard); nil leaves that to
	// the next --in-memory start.
	GuardMemoryDir func(dir string) error

	HTTP HTTPLimits // timeouts, connections and memory of the HTTP front end

	Testkit TestkitConfig // admin API, clock, snapshots and seeding (testkit.go)

	// Realism turns on the realism effects (docs/realism-and-triggers.md);
	// its zero value leaves them off.
	Realism realism.Options
	// Triggers is a file of stream triggers posting tables' stream
	// records to webhooks (internal/triggers); "" = none.
	Triggers string

	registry *metrics.Metrics // set by Start when Metrics is on, for the backends' hooks
	now      func() time.Time // set by Start: the clock (Testkit.Clock), for the backends
	// memoryDir is set by Start to the directory of an --in-memory
	// database, removed with it however the server ends: the default home
	// of its backups, exports, snapshots and trigger checkpoints, so that
	// nothing outlives the server and no two servers share them.
	memoryDir string
}

// Server is a running extenddb.
type Server struct {
	cfg      Config
	store    storage.Backend
	http     *http.Server
	listener net.Listener
	auth     *auth.Authenticator
	serving  net.Listener // listener, at most MaxConnections connections at once

	metrics        *metrics.Metrics // nil when metrics are off
	metricsHandler http.Handler
	stopping       atomic.Bool // set when Shutdown begins: /ready answers 503
	pprof          *http.Server
	pprofListener  net.Listener

	stopWorkers context.CancelFunc
	workersDone chan struct{}

	testkit testkit

	ownBackupRoot string // the --in-memory backup root, removed at Shutdown
}

// Start opens storage and begins serving. The returned server is listening.
func Start(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.Metrics {
		cfg.registry = metrics.New()
	}
	clk, err := cfg.newClock()
	if err != nil {
		return nil, err
	}
	cfg.now = clk.Now
	store, err := openStorage(cfg)
	if err != nil {
		return nil, err
	}
	if m, ok := store.(interface{ MemoryDir() string }); ok && cfg.InMemory {
		cfg.memoryDir = m.MemoryDir()
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	actx, cancel := context.WithTimeout(context.Background(), authTimeout)
	authn, guard, err := setupAuth(actx, cfg, store, ln)
	cancel()
	if err != nil {
		ln.Close()
		store.Close()
		return nil, err
	}
	engine := newEngine(cfg, store, clk.Now)
	pool := workers.New(store, cfg.workersConfig())
	engine.SetIndexWorker(pool.Indexes.Kick)
	engine.SetTTLWorker(pool.TTL.Kick)
	engine.SetTTLSettler(pool.TTL.Settle)
	ownRoot, err := ownBackupRoot(&cfg)
	if err != nil {
		ln.Close()
		store.Close()
		return nil, err
	}
	runner := startBackups(cfg, store, engine)
	hooks, err := startTriggers(cfg, engine)
	if err != nil {
		ln.Close()
		store.Close()
		removeOwnBackupRoot(ownRoot)
		return nil, err
	}
	stopWorkers, workersDone := runWorkers(pool, runner, hooks)
	limits := cfg.httpLimits()
	s := &Server{
		cfg:         cfg,
		store:       store,
		listener:    ln,
		auth:        authn,
		serving:     netutil.LimitListener(ln, limits.MaxConnections),
		stopWorkers: stopWorkers,
		workersDone: workersDone,
		metrics:     cfg.registry,
		testkit:     testkit{clock: clk},

		ownBackupRoot: ownRoot,
	}
	if err := s.startTestkit(engine, pool, authn); err != nil {
		s.abort()
		return nil, err
	}
	s.http = s.newHTTP(engine, authn, guard, limits)
	if err := s.startPprof(); err != nil {
		s.stopTestkit()
		return nil, err
	}
	go func() {
		if err := s.serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Error("http server stopped", "error", err)
		}
	}()
	return s, nil
}

// newEngine builds the API engine from cfg, with the metrics hooks and
// realism it asks for.
func newEngine(cfg Config, store storage.Backend, now func() time.Time) *api.Engine {
	acfg := api.Config{AccountID: cfg.AccountID, StatusDelay: cfg.StatusDelay, ItemCollectionLimit: cfg.ItemCollectionLimit, Log: cfg.Log, Now: now}
	if cfg.registry != nil {
		acfg.OnTableUse = cfg.registry.ObserveTable
		acfg.OnStreamRecords = cfg.registry.StreamRecordsWritten
		acfg.OnTableDeleted = cfg.registry.ForgetTable
	}
	if cfg.Realism.Enabled {
		acfg.Realism = realism.New(cfg.Realism, now)
	}
	return api.New(store, acfg)
}

// runWorkers runs the background workers, the job runner and the stream
// triggers (hooks may be nil) until the returned cancel is called; done
// closes once they have all returned.
func runWorkers(pool *workers.Pool, runner *jobs.Runner, hooks *triggers.Runner) (cancel context.CancelFunc, done chan struct{}) {
	wctx, cancel := context.WithCancel(context.Background())
	done = make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Go(func() { runner.Run(wctx) })
		if hooks != nil {
			wg.Go(func() { hooks.Run(wctx) })
		}
		pool.Run(wctx)
		wg.Wait()
	}()
	return cancel, done
}

// httpLimits is cfg's HTTP limits with defaults, the connection limit
// lowered (and logged) to fit the process's descriptor limit.
func (cfg Config) httpLimits() HTTPLimits {
	limits := cfg.HTTP.withDefaults()
	nofile := descriptorLimit()
	if n := fitConnections(limits.MaxConnections, nofile); n < limits.MaxConnections {
		cfg.Log.Warn("max-connections lowered to fit the process's file descriptor limit (raise it with ulimit -n)",
			"max_connections", n, "configured", limits.MaxConnections, "nofile", nofile)
		limits.MaxConnections = n
	}
	return limits
}

// Endpoint is the URL clients use, e.g. http://127.0.0.1:8000.
func (s *Server) Endpoint() string {
	if s.cfg.Auth.TLSCert != "" {
		return "https://" + s.listener.Addr().String()
	}
	return "http://" + s.listener.Addr().String()
}

// serve serves HTTP, or HTTPS (HTTP/1.1 and HTTP/2) when a certificate is
// configured.
func (s *Server) serve() error {
	if s.cfg.Auth.TLSCert != "" {
		return s.http.ServeTLS(s.serving, s.cfg.Auth.TLSCert, s.cfg.Auth.TLSKey)
	}
	return s.http.Serve(s.serving)
}

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
	removeOwnBackupRoot(s.ownBackupRoot)
	s.stopTestkit()
	return err
}

// PprofEndpoint is the URL of the pprof index, or "" when pprof is off.
func (s *Server) PprofEndpoint() string {
	if s.pprofListener == nil {
		return ""
	}
	return "http://" + s.pprofListener.Addr().String() + "/debug/pprof/"
}

// workersConfig is the configuration of the background workers.
func (c Config) workersConfig() workers.Config {
	return workers.Config{
		Accounts:       []string{c.account()},
		TTLInterval:    c.TTLInterval,
		TTLPageSize:    c.TTLPageSize,
		TTLPageDelay:   c.TTLPageDelay,
		IndexPageDelay: c.IndexPageDelay,
		Log:            c.Log,
		Metrics:        c.registry,
		Now:            c.now,
	}
}

// account is the account the server's catalog probes and workers use.
func (c Config) account() string {
	if c.AccountID == "" {
		return storage.DefaultAccount
	}
	return c.AccountID
}

// PostgresSchemaOrDefault names the schema extenddb uses on PostgreSQL.
func (c Config) PostgresSchemaOrDefault() string {
	if c.Postgres.Schema == "" {
		return "search_path"
	}
	return c.Postgres.Schema
}
