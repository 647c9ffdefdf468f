package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/extenddb/extenddb/internal/admin"
	"github.com/extenddb/extenddb/internal/clock"
	"github.com/extenddb/extenddb/internal/server"
)

// testkitFlags declares the settings of the test suite features
// (docs/testing-with-extenddb.md).
func testkitFlags(f *pflag.FlagSet) {
	f.Bool("admin-api", false, "serve the admin API under /admin/v1/ (snapshots, truncate, clock, expire-now)")
	f.String("clock", "system", "clock: system, or manual (time moves only through the admin API)")
	f.String("snapshot-dir", "", "directory of snapshots (default: <data-dir>/snapshots; inside the in-memory database's directory with --in-memory)")
	f.String("seed", "", "directory of table definitions and items to create before serving")
}

func testkitConfig(r *reader) server.TestkitConfig {
	tk := server.TestkitConfig{AdminAPI: r.boolean("admin-api"), Clock: r.str("clock"), SnapshotRoot: r.str("snapshot-dir"), Seed: r.str("seed")}
	if _, err := clock.New(tk.Clock); err != nil {
		r.fail("clock: %v", err)
	}
	return tk
}

// adminClient is the admin API client of the client subcommands: the
// endpoint from --endpoint-url (or EXTENDDB_ENDPOINT), the credentials and
// region from the AWS environment variables (any key in local mode).
func adminClient(cmd *cobra.Command) *admin.Client {
	endpoint, _ := cmd.Flags().GetString("endpoint-url")
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" {
		id, secret = "local", "local"
	}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	return &admin.Client{Endpoint: endpoint, Region: region,
		Credentials: aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: os.Getenv("AWS_SESSION_TOKEN")}}
}

// clientCmd makes a client subcommand with --endpoint-url.
func clientCmd(use, short string, args cobra.PositionalArgs, run func(cmd *cobra.Command, c *admin.Client, args []string) (any, error)) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Args: args,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := run(cmd, adminClient(cmd), args)
			if err != nil {
				return err
			}
			if out != nil {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			return nil
		}}
	dflt := os.Getenv("EXTENDDB_ENDPOINT")
	if dflt == "" {
		dflt = "http://127.0.0.1:8000"
	}
	cmd.Flags().String("endpoint-url", dflt, "the server's endpoint (default EXTENDDB_ENDPOINT, else http://127.0.0.1:8000)")
	return cmd
}

func snapshotCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "snapshot", Short: "Save, restore, list and delete snapshots of a running server (admin API)"}
	save := clientCmd("save NAME [--table T]...", "Save every table (or the --table ones) as snapshot NAME", cobra.ExactArgs(1),
		func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			tables, _ := cmd.Flags().GetStringArray("table")
			return c.SaveSnapshot(cmd.Context(), args[0], tables...)
		})
	save.Flags().StringArray("table", nil, "a table to save (repeatable; default every table)")
	cmd.AddCommand(save,
		clientCmd("restore NAME", "Restore snapshot NAME", cobra.ExactArgs(1), func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			return c.RestoreSnapshot(cmd.Context(), args[0])
		}),
		clientCmd("list", "List the snapshots", cobra.NoArgs, func(cmd *cobra.Command, c *admin.Client, _ []string) (any, error) {
			return c.ListSnapshots(cmd.Context())
		}),
		clientCmd("delete NAME", "Delete snapshot NAME", cobra.ExactArgs(1), func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			return nil, c.DeleteSnapshot(cmd.Context(), args[0])
		}))
	return cmd
}

func truncateCmd() *cobra.Command {
	return clientCmd("truncate TABLE", "Remove every item of TABLE, keeping its definition (admin API)", cobra.ExactArgs(1),
		func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			return nil, c.Truncate(cmd.Context(), args[0])
		})
}

func clockCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "clock", Short: "Read or move the clock of a server started with --clock manual (admin API)"}
	cmd.AddCommand(
		clientCmd("now", "Print the server's time", cobra.NoArgs, func(cmd *cobra.Command, c *admin.Client, _ []string) (any, error) {
			return c.Clock(cmd.Context())
		}),
		clientCmd("advance DURATION", "Move the clock forward (e.g. 90s, 1h, 2d)", cobra.ExactArgs(1), func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			return c.AdvanceClock(cmd.Context(), args[0])
		}),
		clientCmd("set TIME", "Set the clock to an RFC 3339 time (e.g. 2026-01-02T03:04:05Z)", cobra.ExactArgs(1), func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			t, err := time.Parse(time.RFC3339Nano, args[0])
			if err != nil {
				return nil, fmt.Errorf("%q is not an RFC 3339 time such as 2026-01-02T03:04:05Z", args[0])
			}
			return c.SetClock(cmd.Context(), t)
		}))
	return cmd
}

func ttlCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "ttl", Short: "Time to Live of a running server (admin API)"}
	cmd.AddCommand(clientCmd("expire-now TABLE", "Delete the expired items of TABLE now", cobra.ExactArgs(1),
		func(cmd *cobra.Command, c *admin.Client, args []string) (any, error) {
			n, err := c.ExpireNow(cmd.Context(), args[0])
			return map[string]any{"TableName": args[0], "ExpiredItems": n}, err
		}))
	return cmd
}
