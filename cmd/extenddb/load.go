package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/extenddb/extenddb/internal/loadgen"
)

// loadCmd is `extenddb load`: a lean closed-loop load generator for any
// DynamoDB API endpoint that does not verify signatures (extenddb, dynalite).
func loadCmd() *cobra.Command {
	var (
		cfg        loadgen.Config
		setup      bool
		setupConns int
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Measure a DynamoDB API endpoint with a lean load generator",
		Long: `Sends one operation or mixed workload from --concurrency workers, each on its
own keep-alive connection, for --duration (after an unmeasured --warmup), and
prints ops/s, p50/p99/p99.9/max latency of successful requests and the error
count (any non-200 answer is an error; the run aborts if more than 1% fail).

Closed loop (the default), each worker sends its next request when the last
one is answered; --concurrency 1 gives the latency a test suite sees. With
--rate the run is open loop: requests are due at that many per second in all,
and each latency counts from when its request was due, so a server that
stalls is charged for every request it held up (no coordinated omission);
late= counts requests sent more than 1 ms after they were due (raise
--concurrency if many are).

Requests are pre-built JSON bodies in which only the key changes, with a
static Authorization header in AWS SigV4 shape that is not a valid signature:
for local implementations that do not verify signatures, not for DynamoDB.
With --access-key-id and --secret-access-key every request is signed with
SigV4 instead (region us-east-1), for servers that verify signatures.

The table has string keys pk (hash) and sk (range). --setup creates it
(unless it exists), waits until it is ACTIVE and writes --items items, 10 per
partition. GetItem and UpdateItem address a random preloaded item, Query reads
a random preloaded partition (10 items), Scan reads a page of 100 items from a
random preloaded item on, BatchGetItem reads 25 consecutive preloaded items,
PutItem, BatchWriteItem (25 items) and TransactWriteItems (4 Puts) write
fresh keys. YCSB-A (50% GetItem, 50% UpdateItem) and YCSB-B (95% GetItem)
draw preloaded items with zipfian popularity, as YCSB's core workloads do.

With --pid the server process's CPU time (user + system, from /proc/PID/stat)
during the measured period is reported per operation (server-cpu-us/op);
with --storage-pid that of the storage's processes (PostgreSQL's backends
serving the server, Cassandra's JVM) is storage-cpu-us/op; the generator's
own CPU time per operation is client-cpu-us/op.`,
		Example: `  extenddb load --endpoint http://127.0.0.1:8000 --table load --setup --op GetItem --duration 10s --concurrency 16`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			out := cmd.OutOrStdout()
			if setup {
				c := loadgen.NewClient(cfg.Endpoint, setupConns)
				if cfg.AccessKeyID != "" {
					c.SignWith(cfg.AccessKeyID, cfg.SecretAccessKey)
				}
				start := time.Now()
				err := loadgen.Setup(ctx, c, cfg.Table, cfg.Items, setupConns)
				c.Close()
				if err != nil {
					return fmt.Errorf("setup: %w", err)
				}
				fmt.Fprintf(out, "setup: table %s ACTIVE, %d items written in %.1fs\n", cfg.Table, cfg.Items, time.Since(start).Seconds())
			}
			if cfg.Op == "" {
				if setup {
					return nil
				}
				return fmt.Errorf("--op is required (one of %s)", strings.Join(loadgen.Ops, ", "))
			}
			res, err := loadgen.Run(ctx, cfg)
			if res.Ops+res.Errors > 0 {
				fmt.Fprintln(out, res)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Endpoint, "endpoint", "http://127.0.0.1:8000", "endpoint URL")
	f.StringVar(&cfg.Op, "op", "", "operation: "+strings.Join(loadgen.Ops, ", ")+" (empty with --setup: only set up)")
	f.StringVar(&cfg.Table, "table", "load", "table name")
	f.DurationVar(&cfg.Duration, "duration", 10*time.Second, "measured period")
	f.DurationVar(&cfg.Warmup, "warmup", time.Second, "unmeasured period before it")
	f.IntVar(&cfg.Concurrency, "concurrency", 1, "workers (one connection each)")
	f.Float64Var(&cfg.Rate, "rate", 0, "open loop: requests per second in all (0: closed loop)")
	f.IntVar(&cfg.Items, "items", 10000, "preloaded items (written by --setup; read and updated by the run)")
	f.IntVar(&cfg.ServerPID, "pid", 0, "server process id: also report its CPU time per operation (Linux)")
	f.IntSliceVar(&cfg.StoragePIDs, "storage-pid", nil, "storage process ids (comma-separated): also report their CPU time per operation (Linux)")
	f.StringVar(&cfg.AccessKeyID, "access-key-id", "", "sign requests with SigV4 with this access key (with --secret-access-key)")
	f.StringVar(&cfg.SecretAccessKey, "secret-access-key", "", "secret of --access-key-id")
	f.BoolVar(&setup, "setup", false, "create the table, wait for ACTIVE and write --items items first")
	f.IntVar(&setupConns, "setup-concurrency", 16, "concurrent writers for --setup")
	return cmd
}
