package main

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/extenddb/extenddb/internal/server"
)

// DynamoDB Local's command-line options, accepted by `extenddb serve` with
// the same meaning, as documented in
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.UsageNotes.html
// Each maps to a flag of its own (so also to an environment variable and a
// configuration-file key); -dbPath and -inMemory map to --data-dir and
// --in-memory, -sharedDb to --shared-db (internal/auth's namespaces).
var localOptions = map[string]string{
	"-port":                    "--port",
	"-inMemory":                "--in-memory",
	"-sharedDb":                "--shared-db",
	"-dbPath":                  "--db-path",
	"-delayTransientStatuses":  "--delay-transient-statuses",
	"-cors":                    "--cors",
	"-disableTelemetry":        "--disable-telemetry",
	"-optimizeDbBeforeStartup": "--optimize-db-before-startup",
	"-help":                    "--help",
}

// localStatusDelay is how long tables stay in a transient status with
// -delayTransientStatuses (DynamoDB Local does not document its delays).
const localStatusDelay = 2 * time.Second

func localFlags(f *pflag.FlagSet) {
	f.Int("port", 0, "DynamoDB Local's -port: the port to listen on, on --listen's host (0 = --listen's port)")
	f.String("db-path", "", "DynamoDB Local's -dbPath: the SQLite data directory (same as --data-dir)")
	f.Bool("delay-transient-statuses", false, "DynamoDB Local's -delayTransientStatuses: tables stay CREATING/UPDATING/DELETING for 2s unless --status-delay says otherwise")
	f.String("cors", "", "DynamoDB Local's -cors: comma-separated origins browsers may call from (default any, as DynamoDB)")
	f.Bool("disable-telemetry", false, "DynamoDB Local's -disableTelemetry: accepted; extenddb sends no telemetry")
	f.Bool("optimize-db-before-startup", false, "DynamoDB Local's -optimizeDbBeforeStartup: needs -dbPath; extenddb's SQLite needs no optimizing and starts as is")
}

// translateLocalArgs rewrites DynamoDB Local's single-dash options into the
// flags above, so that a command written for DynamoDB Local, e.g.
// `-jar DynamoDBLocal.jar -sharedDb -port 8001`, works unchanged. Java's own
// arguments (-jar FILE, -Dname=value, -Xmx...) are dropped.
func translateLocalArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "-jar" && i+1 < len(args) && strings.HasSuffix(args[i+1], ".jar"):
			i++
		case strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-Xm") || strings.HasPrefix(a, "-Xs"):
		case localOptions[a] != "":
			out = append(out, localOptions[a])
		default:
			out = append(out, a)
		}
	}
	return out
}

// applyLocal folds DynamoDB Local's options into the configuration and
// refuses their combinations that DynamoDB Local refuses.
func applyLocal(r *reader, cfg *server.Config) {
	if port := r.integer("port"); port != 0 {
		if port < 1 || port > 65535 {
			r.fail("port: %d is not between 1 and 65535", port)
		} else if host, _, err := net.SplitHostPort(cfg.Listen); err == nil {
			cfg.Listen = net.JoinHostPort(host, strconv.Itoa(port))
			r.values["listen"] = cfg.Listen
		}
	}
	if dbPath := r.str("db-path"); dbPath != "" {
		if cfg.InMemory {
			r.fail("db-path: -dbPath and -inMemory cannot be used together")
		}
		cfg.DataDir = dbPath
		r.values["data-dir"] = dbPath
	}
	if cfg.OptimizeDBBeforeStartup && r.values["db-path"] == "" {
		r.fail("optimize-db-before-startup: -optimizeDbBeforeStartup needs -dbPath")
	}
	if r.boolean("delay-transient-statuses") && !r.v.IsSet("status-delay") {
		cfg.StatusDelay = localStatusDelay
		r.values["status-delay"] = localStatusDelay
	}
}

// printLocalBanner writes DynamoDB Local's start-up lines with extenddb's
// values, for the tools that wait for them on standard output.
func printLocalBanner(w io.Writer, cfg server.Config, endpoint, version string) {
	port := endpoint[strings.LastIndexByte(endpoint, ':')+1:]
	dbPath := "null"
	if !cfg.InMemory && cfg.Storage == "sqlite" {
		dbPath = cfg.DataDir
	}
	cors := "null"
	if cfg.CORS != "" {
		cors = cfg.CORS
	}
	fmt.Fprintf(w, "Initializing DynamoDB Local with the following configuration:\n"+
		"Port:\t%s\nInMemory:\t%t\nVersion:\t%s\nDbPath:\t%s\nSharedDb:\t%t\n"+
		"shouldDelayTransientStatuses:\t%t\nCorsParams:\t%s\n\n",
		port, cfg.InMemory, version, dbPath, cfg.Auth.SharedDB, cfg.StatusDelay > 0, cors)
}
