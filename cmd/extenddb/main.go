// Command extenddb is a database server that speaks the Amazon DynamoDB API.
//
//	extenddb serve [--listen 127.0.0.1:8000] [--data-dir ./extenddb-data] [--in-memory]
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/extenddb/extenddb/internal/server"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "extenddb",
		Short:         "A database server that speaks the Amazon DynamoDB API",
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.AddCommand(serveCmd())
	return root
}

func serveCmd() *cobra.Command {
	var cfg server.Config
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the DynamoDB API (SQLite storage by default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			storageDesc := cfg.DataDir
			if cfg.InMemory {
				storageDesc = "in-memory"
			}
			log.Info("extenddb serving DynamoDB API", "endpoint", s.Endpoint(), "storage", "sqlite", "data", storageDesc)

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
	f.StringVar(&cfg.Listen, "listen", "127.0.0.1:8000", "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&cfg.DataDir, "data-dir", "./extenddb-data", "directory for the SQLite database")
	f.BoolVar(&cfg.InMemory, "in-memory", false, "keep all data in memory; nothing survives exit")
	f.StringVar(&cfg.Region, "region", "us-east-1", "region reported when a request's credentials name none")
	f.StringVar(&cfg.AccountID, "account-id", "000000000000", "12-digit account id used in ARNs")
	f.DurationVar(&cfg.StatusDelay, "status-delay", 0, "how long tables stay CREATING/UPDATING/DELETING (e.g. 2s); 0 = immediate")
	return cmd
}
