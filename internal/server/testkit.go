package server

import (
	"context"
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/admin"
	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/clock"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/seed"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/workers"
)

// TestkitConfig is the part of Config for test suites
// (docs/testing-with-extenddb.md); every feature is off by default.
type TestkitConfig struct {
	// AdminAPI serves the admin API under /admin/v1/ (internal/admin):
	// snapshots, truncate, the manual clock and TTL expiry on demand.
	AdminAPI bool
	// Clock is "system" (default) or "manual" (internal/clock): time moves
	// only through the admin API.
	Clock string
	// SnapshotRoot is the directory of snapshots; "" = <DataDir>/snapshots,
	// or a temporary directory removed at shutdown (--in-memory, and the
	// other backends).
	SnapshotRoot string
	// Seed is a directory of table definitions and items created before
	// the first request is accepted (internal/seed); "" = none.
	Seed string
}

// testkit is what the server keeps of the test suite features.
type testkit struct {
	clock   clock.Clock
	admin   *admin.Handler
	tempDir string // snapshot directory removed at shutdown
}

// newClock returns the clock of cfg.
func (c Config) newClock() (clock.Clock, error) { return clock.New(c.Testkit.Clock) }

// startTestkit seeds the tables of cfg.Testkit.Seed and builds the admin
// API; it runs before the server accepts its first request.
func (s *Server) startTestkit(engine *api.Engine, pool *workers.Pool, authn *auth.Authenticator) error {
	tk := s.cfg.Testkit
	if tk.Seed != "" {
		p, err := seed.Load(tk.Seed, s.cfg.Region, s.cfg.account())
		if err != nil {
			return err
		}
		caller := protocol.Caller{Account: s.cfg.account(), Region: s.cfg.Region, Namespace: s.cfg.account()}
		if err := seed.Apply(context.Background(), engine, caller, p, s.cfg.Log); err != nil {
			return err
		}
	}
	if !tk.AdminAPI {
		return nil
	}
	root := tk.SnapshotRoot
	if root == "" && s.cfg.DataDir != "" && !s.cfg.InMemory && (s.cfg.Storage == "" || s.cfg.Storage == "sqlite") {
		root = filepath.Join(s.cfg.DataDir, "snapshots")
	}
	if root == "" && s.cfg.memoryDir != "" {
		root = filepath.Join(s.cfg.memoryDir, "snapshots")
	}
	if root == "" {
		dir, err := os.MkdirTemp("", "extenddb-snapshots-")
		if err != nil {
			return err
		}
		root, s.testkit.tempDir = dir, dir
	}
	snaps := admin.NewSnapshots(s.store, root, s.testkit.clock.Now)
	snaps.Forget = engine.ForgetTable
	s.testkit.admin = &admin.Handler{
		Store:            s.store,
		Auth:             authn,
		Clock:            s.testkit.clock,
		Snapshots:        snaps,
		DefaultNamespace: s.cfg.account(),
		Log:              s.cfg.Log,
		Expire:           pool.TTL.ExpireTable,
		ClockMoved: func(ctx context.Context) {
			// Expire first, then trim: records of expiries stamped now are
			// young by the clock and stay.
			_ = pool.TTL.RunOnce(ctx)
			_, _ = s.store.TrimStreams(ctx, s.testkit.clock.Now().Add(-storage.StreamRetention))
		},
	}
	return nil
}

// stopTestkit removes what startTestkit made for this process only.
func (s *Server) stopTestkit() {
	if s.testkit.tempDir != "" {
		_ = os.RemoveAll(s.testkit.tempDir)
	}
}
