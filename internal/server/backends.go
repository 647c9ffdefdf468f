package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/cassandra"
	"github.com/extenddb/extenddb/internal/storage/postgres"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// backend is an entry of the registry of storage backends: how long its
// start-up may take, and its opener, which turns the server's
// configuration into the backend package's Options and calls its
// Open(ctx, Options). Adding a backend is adding its entry and opener (and
// its settings, a struct of their own, to Config); the rest of the server
// only sees a storage.Backend.
type backend struct {
	startup time.Duration
	open    func(ctx context.Context, cfg Config) (storage.Backend, error)
}

// PostgresConfig is the PostgreSQL backend's part of Config.
type PostgresConfig struct {
	DSN    string // connection string (URL or key=value)
	Schema string // schema holding extenddb's tables; "" = search_path
}

// CassandraConfig is the Cassandra backend's part of Config.
type CassandraConfig struct {
	Hosts             string // comma-separated contact points
	KeyspacePrefix    string // keyspace names start with it (default "extenddb")
	ReplicationFactor int    // replication factor of created keyspaces (default 1)
	Datacenter        string // NetworkTopologyStrategy datacenter; "" = SimpleStrategy
}

// backends is the registry, by the name Config.Storage gives.
var backends = map[string]backend{
	"sqlite":   {startup: 30 * time.Second, open: openSQLite},
	"postgres": {startup: 30 * time.Second, open: openPostgres},
	// Schema changes on Cassandra are slow: give start-up time.
	"cassandra": {startup: 3 * time.Minute, open: openCassandra},
}

// Backends returns the names of the storage backends, sorted.
func Backends() []string {
	names := make([]string, 0, len(backends))
	for name := range backends {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// openStorage opens the backend cfg.Storage names ("" is sqlite).
func openStorage(cfg Config) (storage.Backend, error) {
	name := cfg.Storage
	if name == "" {
		name = "sqlite"
	}
	b, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("unknown storage %q (want %s)", cfg.Storage, strings.Join(Backends(), ", "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.startup)
	defer cancel()
	return b.open(ctx, cfg)
}

func openSQLite(ctx context.Context, cfg Config) (storage.Backend, error) {
	opts := sqlite.Options{Now: cfg.now}
	if cfg.registry != nil {
		opts.OnCommit = cfg.registry.SQLiteCommit
	}
	if cfg.InMemory {
		opts.Guard = cfg.GuardMemoryDir
		return sqlite.Open(ctx, opts)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	if err := checkWritable(cfg.DataDir); err != nil {
		return nil, err
	}
	opts.Path = filepath.Join(cfg.DataDir, "extenddb.sqlite")
	return sqlite.Open(ctx, opts)
}

func openPostgres(ctx context.Context, cfg Config) (storage.Backend, error) {
	if cfg.Postgres.DSN == "" {
		return nil, errors.New("--storage postgres needs --postgres-dsn (or EXTENDDB_POSTGRES_DSN)")
	}
	b, err := postgres.Open(ctx, postgres.Options{DSN: cfg.Postgres.DSN, Schema: cfg.Postgres.Schema, Now: cfg.now})
	if err != nil {
		return nil, err
	}
	cfg.registry.RegisterPool(func() metrics.PoolStats {
		st := b.PoolStat()
		return metrics.PoolStats{Total: st.TotalConns(), Idle: st.IdleConns(), Acquired: st.AcquiredConns(),
			Max: st.MaxConns(), Acquires: st.AcquireCount(), EmptyAcquires: st.EmptyAcquireCount(),
			AcquireWait: st.AcquireDuration()}
	})
	return b, nil
}

func openCassandra(ctx context.Context, cfg Config) (storage.Backend, error) {
	if cfg.Cassandra.Hosts == "" {
		return nil, errors.New("--storage cassandra needs --cassandra-hosts (or EXTENDDB_CASSANDRA_HOSTS)")
	}
	return cassandra.Open(ctx, cassandra.Options{
		Hosts:             strings.Split(cfg.Cassandra.Hosts, ","),
		KeyspacePrefix:    cfg.Cassandra.KeyspacePrefix,
		ReplicationFactor: cfg.Cassandra.ReplicationFactor,
		Datacenter:        cfg.Cassandra.Datacenter,
		OnRetry:           cfg.registry.CassandraRetry,
		OnRepair:          cfg.registry.CassandraRepair,
		Log:               cfg.Log,
	})
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
