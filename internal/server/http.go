package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/admin"
	"github.com/extenddb/extenddb/internal/admission"
	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/console"
	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// Operational paths served beside the DynamoDB API. The API itself is
// POST /, so a GET on these never reaches it.
const (
	PathMetrics = "/metrics" // Prometheus exposition (when metrics are on)
	PathHealth  = "/health"  // liveness: the process serves HTTP
	PathReady   = "/ready"   // readiness: storage answers, migrations applied, not shutting down
)

// readyProbeTimeout bounds the storage round trip of GET /ready.
const readyProbeTimeout = 2 * time.Second

// routes puts the operational endpoints in front of the API handler.
func (s *Server) routes(api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.testkit.admin != nil && strings.HasPrefix(r.URL.Path, admin.Prefix) {
			s.testkit.admin.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			switch r.URL.Path {
			case PathHealth:
				writeText(w, http.StatusOK, "ok\n")
				return
			case PathReady:
				s.serveReady(w, r)
				return
			case PathMetrics:
				if s.metrics != nil {
					s.metricsHandler.ServeHTTP(w, r)
					return
				}
			}
		}
		api.ServeHTTP(w, r)
	})
}

// serveReady answers 200 when storage answers a catalog read within
// readyProbeTimeout (opening storage applied its migrations, so a server
// that got this far has them) and the server is not shutting down; 503
// with the reason otherwise.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	if s.stopping.Load() {
		writeText(w, http.StatusServiceUnavailable, "shutting down\n")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyProbeTimeout)
	defer cancel()
	// A name DynamoDB never allows (it has a space), so the probe reads the
	// catalog without ever finding a table.
	_, err := s.store.GetTable(ctx, s.cfg.account(), "extenddb ready probe")
	if err != nil && !errors.Is(err, storage.ErrTableNotFound) {
		writeText(w, http.StatusServiceUnavailable, "storage unavailable: "+err.Error()+"\n")
		return
	}
	writeText(w, http.StatusOK, "ready\n")
}

func writeText(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// observer is the protocol layer's per-request hook: metrics and, when
// asked for, one access-log line per API request.
func observer(m *metrics.Metrics, accessLog *slog.Logger) func(string, int, string, time.Duration) {
	if m == nil && accessLog == nil {
		return nil
	}
	return func(op string, status int, errType string, elapsed time.Duration) {
		m.ObserveRequest(op, status, errType, elapsed)
		if accessLog != nil {
			accessLog.Info("request", "operation", op, "status", status, "error", errType,
				"duration_ms", float64(elapsed.Microseconds())/1000)
		}
	}
}

// newHTTP builds the HTTP server: the operational endpoints in front of
// the API handler, with the configured limits, authentication and hooks;
// guard is the authentication mode's wrapper (setupAuth).
func (s *Server) newHTTP(engine protocol.Handler, authn protocol.Authenticator, guard func(http.Handler) http.Handler, limits HTTPLimits) *http.Server {
	var access *slog.Logger
	if s.cfg.AccessLog {
		access = s.cfg.Log.With("log", "access")
	}
	if s.metrics != nil {
		s.metricsHandler = s.metrics.Handler()
	}
	observe := observer(s.metrics, access)
	var web *console.Console
	if s.cfg.Console {
		web = console.New(console.Config{Engine: engine, Auth: authn, Region: s.cfg.Region, Secure: s.cfg.Auth.TLSCert != "", Log: s.cfg.Log})
		observe = alsoObserve(observe, web.Observe)
	}
	api := &protocol.Server{
		Handler:       engine,
		Log:           s.cfg.Log,
		DefaultRegion: s.cfg.Region,
		Budget:        admission.New(limits.MemoryBudget, limits.AdmissionWait),
		Auth:          authn,
		Observe:       observe,
		CORSOrigins:   corsOrigins(s.cfg.CORS),
	}
	return &http.Server{
		Handler:           s.withConsole(web, authn, guard(s.routes(api))),
		ReadHeaderTimeout: limits.ReadHeaderTimeout,
		ReadTimeout:       limits.ReadTimeout,
		WriteTimeout:      limits.WriteTimeout,
		IdleTimeout:       limits.IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
}

// corsOrigins splits -cors' comma-separated list.
func corsOrigins(list string) []string {
	var out []string
	for _, o := range strings.Split(list, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// abort stops what Start started, for a start that fails.
func (s *Server) abort() {
	s.stopWorkers()
	<-s.workersDone
	s.listener.Close()
	s.store.Close()
	removeOwnBackupRoot(s.ownBackupRoot)
}

// startPprof serves net/http/pprof on its own address when one is
// configured, never on the API's. On failure it stops what Start started.
func (s *Server) startPprof() error {
	if s.cfg.PprofListen == "" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.PprofListen)
	if err != nil {
		s.abort()
		return fmt.Errorf("pprof: listen on %s: %w", s.cfg.PprofListen, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s.pprof = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.pprofListener = ln
	go func() {
		if err := s.pprof.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cfg.Log.Error("pprof server stopped", "error", err)
		}
	}()
	return nil
}

// withConsole serves the web console (--console) under /console in front
// of next, outside the STS wrapper (the console's forms are form-encoded
// POSTs too) but, in local mode on loopback, behind the same loopback Host
// guard as the API.
func (s *Server) withConsole(web *console.Console, authn protocol.Authenticator, next http.Handler) http.Handler {
	if web == nil {
		return next
	}
	var h http.Handler = web
	if !authn.Verifies() && isLoopback(s.listener.Addr()) {
		h = auth.LoopbackHostOnly(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if console.Handles(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// alsoObserve calls both request hooks (either may be nil).
func alsoObserve(a, b func(string, int, string, time.Duration)) func(string, int, string, time.Duration) {
	if a == nil {
		return b
	}
	return func(op string, status int, errType string, elapsed time.Duration) {
		a(op, status, errType, elapsed)
		b(op, status, errType, elapsed)
	}
}
