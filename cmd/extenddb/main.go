// Command extenddb is a database server that speaks the Amazon DynamoDB API.
//
//	extenddb serve [--listen 127.0.0.1:8000] [--data-dir ./extenddb-data] [--in-memory]
//	extenddb serve --storage postgres --postgres-dsn postgres://...
//
// Every flag can also come from the environment (EXTENDDB_ plus the flag
// name in upper case with '-' as '_', e.g. EXTENDDB_POSTGRES_DSN) or from a
// configuration file given with --config (TOML, YAML or JSON, keys named
// like the flags). Flags win over the environment, which wins over the file.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cast"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/extenddb/extenddb/internal/server"
	"github.com/extenddb/extenddb/internal/storage"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:          "extenddb",
		Short:        "A database server that speaks the Amazon DynamoDB API",
		SilenceUsage: true,
	}
	root.AddCommand(serveCmd())
	root.AddCommand(loadCmd())
	root.AddCommand(authCmd())
	root.AddCommand(certCmd())
	root.AddCommand(watchdogCmd())
	return root
}

func serveCmd() *cobra.Command {
	v := viper.New()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the DynamoDB API (SQLite storage by default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(v, cmd.Flags())
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, nil))
			cfg.Log = log
			cfg.GuardMemoryDir = guardMemoryDir
			ownerOnlyFiles()
			warnUnused(log, cfg)
			// Catch signals before serving, so a signal that arrives right
			// after the endpoint is announced still shuts down gracefully.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := server.Start(cfg)
			if err != nil {
				return err
			}
			log.Info("extenddb serving DynamoDB API", "endpoint", s.Endpoint(), "storage", storageName(cfg), "data", dataDesc(cfg), "auth", s.AuthMode())

			<-ctx.Done()
			log.Info("shutting down")
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w", err)
			}
			log.Info("stopped")
			return nil
		},
	}
	f := cmd.Flags()
	f.String("config", "", "configuration file (TOML, YAML or JSON) with keys named like these flags")
	f.String("listen", "127.0.0.1:8000", "address to listen on (host:port; port 0 picks a free one)")
	f.String("storage", "sqlite", "storage backend: sqlite, postgres or cassandra")
	f.String("data-dir", "./extenddb-data", "SQLite: directory for the database")
	f.String("backup-root", "", "directory of on-demand backups; several servers sharing a backend must share it (default: <data-dir>/backups)")
	f.Bool("in-memory", false, "SQLite: keep all data in memory; nothing survives exit")
	f.String("postgres-dsn", "", "PostgreSQL: connection string, e.g. postgres://user@host:5432/db")
	f.String("postgres-schema", "", "PostgreSQL: schema for extenddb's tables (default: the connection's search_path)")
	f.String("cassandra-hosts", "", "Cassandra: comma-separated contact points, e.g. 127.0.0.1,127.0.0.2")
	f.String("cassandra-keyspace-prefix", "extenddb", "Cassandra: prefix of the keyspaces extenddb creates")
	f.Int("cassandra-replication-factor", 1, "Cassandra: replication factor of the keyspaces extenddb creates")
	f.String("cassandra-datacenter", "", "Cassandra: datacenter for NetworkTopologyStrategy (default SimpleStrategy)")
	f.String("region", "us-east-1", "region reported when a request's credentials name none")
	f.String("account-id", storage.DefaultAccount, "12-digit account id used in ARNs")
	f.Duration("status-delay", 0, "how long tables stay CREATING/UPDATING/DELETING (e.g. 2s); 0 = immediate")
	f.Duration("ttl-interval", 30*time.Second, "how often expired items (Time to Live) are looked for and deleted")
	f.Int("ttl-page-size", 256, "items per Time to Live backfill or drain page")
	f.Duration("ttl-page-delay", 0, "pause before every Time to Live backfill or drain page (to watch ENABLING/DISABLING)")
	f.Duration("index-page-delay", 0, "pause between the pages of an online index build (to watch CREATING)")
	f.Int64("item-collection-limit-bytes", 0, "size limit of one item collection of a table with local secondary indexes, in bytes; 0 = DynamoDB's 10 GB")
	addLimitFlags(f)
	authFlags(f)
	return cmd
}

// loadConfig merges flags, environment and the optional configuration file,
// and refuses values it cannot read exactly (a typo must not silently fall
// back to a default, e.g. to durable storage when in-memory was asked for).
func loadConfig(v *viper.Viper, flags *pflag.FlagSet) (server.Config, error) {
	if err := v.BindPFlags(flags); err != nil {
		return server.Config{}, err
	}
	v.SetEnvPrefix("EXTENDDB")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if path := v.GetString("config"); path != "" {
		if err := checkConfigFile(path, flags); err != nil {
			return server.Config{}, err
		}
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return server.Config{}, fmt.Errorf("read configuration file: %w", err)
		}
	}
	var errs []string
	getBool := func(key string) bool {
		b, err := cast.ToBoolE(v.Get(key))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v is not true or false", key, v.Get(key)))
		}
		return b
	}
	getDuration := func(key string) time.Duration {
		switch raw := v.Get(key).(type) {
		case time.Duration:
			return raw
		case string:
			d, err := time.ParseDuration(raw)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %q is not a duration such as 500ms, 2s or 1m", key, raw))
			}
			return d
		default:
			errs = append(errs, fmt.Sprintf("%s: %v is not a duration with a unit, such as 500ms, 2s or 1m", key, raw))
			return 0
		}
	}
	getInt := func(key string) int {
		n, err := cast.ToIntE(v.Get(key))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v is not a whole number", key, v.Get(key)))
		}
		return n
	}
	cfg := server.Config{
		Listen:         v.GetString("listen"),
		Storage:        v.GetString("storage"),
		DataDir:        v.GetString("data-dir"),
		InMemory:       getBool("in-memory"),
		BackupRoot:     v.GetString("backup-root"),
		PostgresDSN:    v.GetString("postgres-dsn"),
		PostgresSchema: v.GetString("postgres-schema"),

		CassandraHosts:             v.GetString("cassandra-hosts"),
		CassandraKeyspacePrefix:    v.GetString("cassandra-keyspace-prefix"),
		CassandraReplicationFactor: getInt("cassandra-replication-factor"),
		CassandraDatacenter:        v.GetString("cassandra-datacenter"),
		Region:                     v.GetString("region"),
		AccountID:                  v.GetString("account-id"),
		StatusDelay:                getDuration("status-delay"),
		TTLInterval:                getDuration("ttl-interval"),
		TTLPageSize:                getInt("ttl-page-size"),
		TTLPageDelay:               getDuration("ttl-page-delay"),
		IndexPageDelay:             getDuration("index-page-delay"),
		ItemCollectionLimit:        int64(getInt("item-collection-limit-bytes")),
		HTTP: server.HTTPLimits{
			ReadTimeout:    getDuration("http-read-timeout"),
			WriteTimeout:   getDuration("http-write-timeout"),
			IdleTimeout:    getDuration("http-idle-timeout"),
			MaxConnections: getInt("max-connections"),
			MemoryBudget:   int64(getInt("request-memory-mib")) << 20,
			AdmissionWait:  getDuration("admission-wait"),
		},
		Auth: authConfig(v, getBool),
	}
	errs = append(errs, checkLimits(cfg.HTTP)...)
	errs = append(errs, checkPacing(cfg)...)
	if !slices.Contains(server.Backends(), cfg.Storage) {
		errs = append(errs, fmt.Sprintf("storage: %q is not %s", cfg.Storage, strings.Join(server.Backends(), ", ")))
	}
	if !accountIDPattern.MatchString(cfg.AccountID) {
		errs = append(errs, fmt.Sprintf("account-id: %q is not 12 digits", cfg.AccountID))
	}
	if cfg.StatusDelay < 0 {
		errs = append(errs, "status-delay: must not be negative")
	}
	if cfg.TTLInterval < 100*time.Millisecond && !strings.Contains(strings.Join(errs, "\n"), "ttl-interval") {
		errs = append(errs, fmt.Sprintf("ttl-interval: %v is shorter than the minimum of 100ms", cfg.TTLInterval))
	}
	if cfg.CassandraReplicationFactor < 1 {
		errs = append(errs, "cassandra-replication-factor: must be at least 1")
	}
	if len(errs) > 0 {
		return server.Config{}, fmt.Errorf("invalid configuration:\n  %s", strings.Join(errs, "\n  "))
	}
	return cfg, nil
}

var accountIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

// checkPacing refuses pacing of the background workers' pages that they
// cannot follow.
func checkPacing(cfg server.Config) []string {
	var errs []string
	if cfg.TTLPageSize < 1 {
		errs = append(errs, "ttl-page-size: must be at least 1")
	}
	if cfg.TTLPageDelay < 0 || cfg.IndexPageDelay < 0 {
		errs = append(errs, "ttl-page-delay, index-page-delay: must not be negative")
	}
	return errs
}

// checkConfigFile refuses a configuration file with keys that name no flag.
func checkConfigFile(path string, flags *pflag.FlagSet) error {
	f := viper.New()
	f.SetConfigFile(path)
	if err := f.ReadInConfig(); err != nil {
		return fmt.Errorf("read configuration file: %w", err)
	}
	var unknown []string
	for _, k := range f.AllKeys() {
		if k == "config" || flags.Lookup(k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("configuration file %s: unknown keys %s (keys are named like the flags of extenddb serve --help)", path, strings.Join(unknown, ", "))
	}
	return nil
}

// warnUnused logs settings that the chosen storage ignores, such as a
// PostgreSQL DSN while serving from SQLite.
func warnUnused(log *slog.Logger, cfg server.Config) {
	if cfg.Storage != "postgres" && cfg.PostgresDSN != "" {
		log.Warn("postgres-dsn is set but storage is " + cfg.Storage + "; add --storage postgres to use PostgreSQL")
	}
	if cfg.Storage != "cassandra" && cfg.CassandraHosts != "" {
		log.Warn("cassandra-hosts is set but storage is " + cfg.Storage + "; add --storage cassandra to use Cassandra")
	}
}

func storageName(cfg server.Config) string {
	if cfg.Storage == "" {
		return "sqlite"
	}
	return cfg.Storage
}

func dataDesc(cfg server.Config) string {
	switch {
	case cfg.Storage == "postgres":
		return "postgres (" + cfg.PostgresSchemaOrDefault() + ")"
	case cfg.Storage == "cassandra":
		return "cassandra (" + cfg.CassandraHosts + ")"
	case cfg.InMemory:
		return "in-memory"
	}
	return cfg.DataDir
}
