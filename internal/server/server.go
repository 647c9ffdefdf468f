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
	"time"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// Config is everything `extenddb serve` can be told.
type Config struct {
	Listen      string        // host:port; port 0 picks a free port
	DataDir     string        // SQLite data directory
	InMemory    bool          // keep everything in memory (nothing survives exit)
	Region      string        // region reported when a request names none
	AccountID   string        // 12-digit account id used in ARNs
	StatusDelay time.Duration // CREATING/UPDATING/DELETING duration; 0 = immediate
	Log         *slog.Logger
}

// Server is a running extenddb.
type Server struct {
	cfg      Config
	store    storage.Backend
	http     *http.Server
	listener net.Listener
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
	engine := api.New(store, api.Config{AccountID: cfg.AccountID, StatusDelay: cfg.StatusDelay, Log: cfg.Log})
	h := &protocol.Server{Handler: engine, Log: cfg.Log, DefaultRegion: cfg.Region}
	s := &Server{
		cfg:      cfg,
		store:    store,
		listener: ln,
		http: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 30 * time.Second,
			IdleTimeout:       120 * time.Second,
			ErrorLog:          slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn),
		},
	}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Error("http server stopped", "error", err)
		}
	}()
	return s, nil
}

func openStorage(cfg Config) (storage.Backend, error) {
	if cfg.InMemory {
		return sqlite.Open("", sqlite.Options{})
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	return sqlite.Open(filepath.Join(cfg.DataDir, "extenddb.sqlite"), sqlite.Options{})
}

// Endpoint is the URL clients use, e.g. http://127.0.0.1:8000.
func (s *Server) Endpoint() string { return "http://" + s.listener.Addr().String() }

// Shutdown stops accepting requests, lets in-flight requests finish (until
// ctx ends), then closes storage cleanly.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if cerr := s.store.Close(); err == nil {
		err = cerr
	}
	return err
}
