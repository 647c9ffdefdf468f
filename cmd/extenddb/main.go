// Command extenddb is a database server that speaks the Amazon DynamoDB API.
//
//	extenddb serve [--listen 127.0.0.1:8000] [--data-dir ./extenddb-data] [--in-memory]
//	extenddb serve --storage postgres --postgres-dsn postgres://...
//	extenddb serve -port 8000 -sharedDb -inMemory    (DynamoDB Local's options)
//	extenddb serve --print-config                    (the effective settings)
//	extenddb version
//
// Every flag can also come from the environment (EXTENDDB_ plus the flag
// name in upper case with '-' as '_', e.g. EXTENDDB_POSTGRES_DSN) or from a
// configuration file given with --config (TOML, YAML or JSON, keys named
// like the flags). Flags win over the environment, which wins over the file.
// See docs/configuration.md and docs/operations.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/extenddb/extenddb/internal/server"
)

func main() {
	root := rootCmd()
	root.SetArgs(commandArgs(os.Args[1:]))
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}

// commandArgs turns DynamoDB Local's options after `serve` into extenddb's
// flags (translateLocalArgs).
func commandArgs(args []string) []string {
	if len(args) > 0 && args[0] == "serve" {
		return append([]string{"serve"}, translateLocalArgs(args[1:])...)
	}
	return args
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
	root.AddCommand(versionCmd())
	root.AddCommand(healthCmd())
	root.AddCommand(watchdogCmd())
	root.AddCommand(snapshotCmd(), truncateCmd(), clockCmd(), ttlCmd())
	root.AddCommand(backupCmd())
	root.AddCommand(importCmd())
	root.AddCommand(exportCmd())
	return root
}

func serveCmd() *cobra.Command {
	v := viper.New()
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve the DynamoDB API (SQLite storage by default)",
		Long: `Serve the DynamoDB API on --listen (127.0.0.1:8000 by default).

Every flag can also be set in the environment (EXTENDDB_ and the flag's name
in upper case with '-' as '_', e.g. EXTENDDB_POSTGRES_DSN) or in the file named
by --config. DynamoDB Local's options (-port, -inMemory, -sharedDb, -dbPath,
-delayTransientStatuses, -cors, -disableTelemetry, -optimizeDbBeforeStartup,
-help) are accepted with their meaning there.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := loadConfig(v, cmd.Flags())
			if err != nil {
				return err
			}
			if print, _ := cmd.Flags().GetBool("print-config"); print || v.GetBool("print-config") {
				printConfig(cmd.OutOrStdout(), cmd.Flags(), l.values)
				return nil
			}
			cfg := l.cfg
			cfg.Log = newLogger(cmd.ErrOrStderr(), cfg.LogFormat, cfg.LogLevel)
			cfg.GuardMemoryDir = guardMemoryDir
			ownerOnlyFiles()
			for _, msg := range unusedSettings(v, cmd.Flags(), cfg.Storage) {
				cfg.Log.Warn(msg)
			}
			return serve(cmd, cfg)
		},
	}
	serveFlags(cmd.Flags())
	return cmd
}

// serve runs the server until SIGINT or SIGTERM, then shuts it down.
func serve(cmd *cobra.Command, cfg server.Config) error {
	log := cfg.Log
	// Catch signals before serving, so a signal that arrives right after the
	// endpoint is announced still shuts down gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := server.Start(cfg)
	if err != nil {
		return err
	}
	printLocalBanner(cmd.OutOrStdout(), cfg, s.Endpoint(), buildVersion())
	log.Info("extenddb serving DynamoDB API", "endpoint", s.Endpoint(), "storage", storageName(cfg),
		"data", dataDesc(cfg), "auth", s.AuthMode(), "region", cfg.Region, "account", cfg.AccountID, "version", buildVersion())
	if p := s.PprofEndpoint(); p != "" {
		log.Info("pprof serving", "endpoint", p)
	}
	<-ctx.Done()
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
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
		return "cassandra (" + cfg.Cassandra.Hosts + ")"
	case cfg.InMemory:
		return "in-memory"
	}
	return cfg.DataDir
}
