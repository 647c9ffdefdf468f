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
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/extenddb/extenddb/internal/server"
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
			// Catch signals before serving, so a signal that arrives right
			// after the endpoint is announced still shuts down gracefully.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := server.Start(cfg)
			if err != nil {
				return err
			}
			log.Info("extenddb serving DynamoDB API", "endpoint", s.Endpoint(), "storage", storageName(cfg), "data", dataDesc(cfg))

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
	f.Bool("in-memory", false, "SQLite: keep all data in memory; nothing survives exit")
	f.String("postgres-dsn", "", "PostgreSQL: connection string, e.g. postgres://user@host:5432/db")
	f.String("postgres-schema", "", "PostgreSQL: schema for extenddb's tables (default: the connection's search_path)")
	f.String("cassandra-hosts", "", "Cassandra: comma-separated contact points, e.g. 127.0.0.1,127.0.0.2")
	f.String("cassandra-keyspace-prefix", "extenddb", "Cassandra: prefix of the keyspaces extenddb creates")
	f.Int("cassandra-replication-factor", 1, "Cassandra: replication factor of the keyspaces extenddb creates")
	f.String("cassandra-datacenter", "", "Cassandra: datacenter for NetworkTopologyStrategy (default SimpleStrategy)")
	f.String("region", "us-east-1", "region reported when a request's credentials name none")
	f.String("account-id", "000000000000", "12-digit account id used in ARNs")
	f.Duration("status-delay", 0, "how long tables stay CREATING/UPDATING/DELETING (e.g. 2s); 0 = immediate")
	f.Duration("ttl-interval", 30*time.Second, "how often expired items (Time to Live) are looked for and deleted")
	return cmd
}

// loadConfig merges flags, environment and the optional configuration file.
func loadConfig(v *viper.Viper, flags *pflag.FlagSet) (server.Config, error) {
	if err := v.BindPFlags(flags); err != nil {
		return server.Config{}, err
	}
	v.SetEnvPrefix("EXTENDDB")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if path := v.GetString("config"); path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return server.Config{}, fmt.Errorf("read configuration file: %w", err)
		}
	}
	return server.Config{
		Listen:         v.GetString("listen"),
		Storage:        v.GetString("storage"),
		DataDir:        v.GetString("data-dir"),
		InMemory:       v.GetBool("in-memory"),
		PostgresDSN:    v.GetString("postgres-dsn"),
		PostgresSchema: v.GetString("postgres-schema"),

		CassandraHosts:             v.GetString("cassandra-hosts"),
		CassandraKeyspacePrefix:    v.GetString("cassandra-keyspace-prefix"),
		CassandraReplicationFactor: v.GetInt("cassandra-replication-factor"),
		CassandraDatacenter:        v.GetString("cassandra-datacenter"),
		Region:                     v.GetString("region"),
		AccountID:                  v.GetString("account-id"),
		StatusDelay:                v.GetDuration("status-delay"),
		TTLInterval:                v.GetDuration("ttl-interval"),
	}, nil
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
