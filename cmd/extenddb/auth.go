package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/extenddb/extenddb/internal/auth"
	"github.com/extenddb/extenddb/internal/server"
)

var envReplacer = strings.NewReplacer("-", "_")

// authFlags adds the authentication, namespace and TLS flags of serve.
func authFlags(f *pflag.FlagSet) {
	f.String("root-access-key-id", "", "access key ID of the first admin user (turns authentication on)")
	f.String("root-secret-access-key", "", "secret access key of the first admin user")
	f.String("root-credentials-file", "", `JSON file {"AccessKeyId": ..., "SecretAccessKey": ...} instead of the two above`)
	f.String("server-key", "", "key sealing secrets at rest: 64 hex digits (default: <data-dir>/server.key on SQLite)")
	f.String("server-key-file", "", "file holding the server key")
	f.Bool("insecure", false, "allow a non-loopback listen address without authentication")
	f.Bool("shared-db", false, "one namespace for every access key and region (DynamoDB Local's -sharedDb)")
	f.Bool("per-access-key", false, "without credentials, one namespace per access key and region (DynamoDB Local's default)")
	f.String("tls-cert", "", "PEM certificate (chain) to serve HTTPS, HTTP/1.1 and HTTP/2")
	f.String("tls-key", "", "PEM private key of --tls-cert")
}

func authConfig(v *viper.Viper, getBool func(string) bool) server.AuthConfig {
	return server.AuthConfig{
		RootAccessKeyID:     v.GetString("root-access-key-id"),
		RootSecretAccessKey: v.GetString("root-secret-access-key"),
		RootCredentialsFile: v.GetString("root-credentials-file"),
		ServerKey:           v.GetString("server-key"),
		ServerKeyFile:       v.GetString("server-key-file"),
		Insecure:            getBool("insecure"),
		SharedDB:            getBool("shared-db"),
		PerAccessKey:        getBool("per-access-key"),
		TLSCert:             v.GetString("tls-cert"),
		TLSKey:              v.GetString("tls-key"),
	}
}

// ownerOnlyFiles makes every file and directory the server creates (the
// database, its journal, the server key) readable by its owner only.
func ownerOnlyFiles() { syscall.Umask(0o077) }

// authCmd is `extenddb auth`: accounts, users and access keys in a
// server's storage.
func authCmd() *cobra.Command {
	v := viper.New()
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Manage accounts, users and access keys in a server's storage",
	}
	f := cmd.PersistentFlags()
	f.String("storage", "sqlite", "storage backend: sqlite, postgres or cassandra")
	f.String("data-dir", "./extenddb-data", "SQLite: directory for the database")
	f.String("postgres-dsn", "", "PostgreSQL: connection string")
	f.String("postgres-schema", "", "PostgreSQL: schema for extenddb's tables")
	f.String("cassandra-hosts", "", "Cassandra: comma-separated contact points")
	f.String("cassandra-keyspace-prefix", "extenddb", "Cassandra: prefix of extenddb's keyspaces")
	f.String("server-key", "", "key sealing secrets at rest (64 hex digits)")
	f.String("server-key-file", "", "file holding the server key")
	run := func(fn func(ctx context.Context, st *auth.Store, args []string) (any, error)) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			out, err := withStore(v, c.Flags(), func(ctx context.Context, st *auth.Store) (any, error) { return fn(ctx, st, args) })
			if err != nil || out == nil {
				return err
			}
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
	}
	cmd.AddCommand(accountCmd(run), userCmd(run), keyCmd(run), roleCmd(run), policyCmd(run))
	return cmd
}

type storeFn = func(ctx context.Context, st *auth.Store, args []string) (any, error)
type runner = func(storeFn) func(*cobra.Command, []string) error

func withStore(v *viper.Viper, flags *pflag.FlagSet, fn func(ctx context.Context, st *auth.Store) (any, error)) (any, error) {
	if err := v.BindPFlags(flags); err != nil {
		return nil, err
	}
	v.SetEnvPrefix("EXTENDDB")
	v.AutomaticEnv()
	v.SetEnvKeyReplacer(envReplacer)
	ownerOnlyFiles()
	cfg := server.Config{
		Storage: v.GetString("storage"), DataDir: v.GetString("data-dir"),
		Postgres: server.PostgresConfig{DSN: v.GetString("postgres-dsn"), Schema: v.GetString("postgres-schema")},
		Cassandra: server.CassandraConfig{Hosts: v.GetString("cassandra-hosts"),
			KeyspacePrefix: v.GetString("cassandra-keyspace-prefix"), ReplicationFactor: 1},
		Auth: server.AuthConfig{ServerKey: v.GetString("server-key"), ServerKeyFile: v.GetString("server-key-file")},
	}
	store, err := server.OpenStorage(cfg)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err := server.OpenCredentials(ctx, cfg, store)
	if err != nil {
		return nil, err
	}
	return fn(ctx, st)
}

// nameCmd is a subcommand whose one argument is a name, that prints what
// fn returns.
func nameCmd(run runner, use, short string, fn func(ctx context.Context, st *auth.Store, name string) (any, error)) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1),
		RunE: run(func(ctx context.Context, st *auth.Store, args []string) (any, error) { return fn(ctx, st, args[0]) })}
}

// deleteCmd is a subcommand that deletes what its one argument names and
// prints nothing.
func deleteCmd(run runner, use, short string, del func(ctx context.Context, st *auth.Store, name string) error) *cobra.Command {
	return nameCmd(run, use, short, func(ctx context.Context, st *auth.Store, name string) (any, error) {
		return nil, del(ctx, st, name)
	})
}

// listCmd is a subcommand, list, that prints what list returns.
func listCmd(run runner, short string, list func(ctx context.Context, st *auth.Store) (any, error)) *cobra.Command {
	return &cobra.Command{Use: "list", Short: short, Args: cobra.NoArgs,
		RunE: run(func(ctx context.Context, st *auth.Store, _ []string) (any, error) { return list(ctx, st) })}
}

// requireAccount gives cmd and its subcommands the required --account
// flag, read into account.
func requireAccount(cmd *cobra.Command, account *string) {
	cmd.PersistentFlags().StringVar(account, "account", "", "12-digit account ID (required)")
	_ = cmd.MarkPersistentFlagRequired("account")
}

func accountCmd(run runner) *cobra.Command {
	cmd := &cobra.Command{Use: "account", Short: "Create, list and delete accounts"}
	var id, name string
	create := &cobra.Command{Use: "create", Short: "Create an account (a random 12-digit ID unless --id)", Args: cobra.NoArgs,
		RunE: run(func(ctx context.Context, st *auth.Store, _ []string) (any, error) {
			return st.CreateAccount(ctx, id, name)
		})}
	create.Flags().StringVar(&id, "id", "", "12-digit account ID")
	create.Flags().StringVar(&name, "name", "", "a name for people")
	list := listCmd(run, "List accounts", func(ctx context.Context, st *auth.Store) (any, error) { return st.ListAccounts(ctx) })
	del := deleteCmd(run, "delete ACCOUNT_ID", "Delete an account with its users, roles and keys", func(ctx context.Context, st *auth.Store, name string) error {
		return st.DeleteAccount(ctx, name)
	})
	cmd.AddCommand(create, list, del)
	return cmd
}

func userCmd(run runner) *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Create, list and delete users"}
	var account string
	requireAccount(cmd, &account)
	create := nameCmd(run, "create NAME", "Create a user", func(ctx context.Context, st *auth.Store, name string) (any, error) {
		return st.CreateUser(ctx, account, name)
	})
	list := listCmd(run, "List an account's users", func(ctx context.Context, st *auth.Store) (any, error) { return st.ListUsers(ctx, account) })
	del := deleteCmd(run, "delete NAME", "Delete a user and its keys", func(ctx context.Context, st *auth.Store, name string) error {
		return st.DeleteUser(ctx, account, name)
	})
	cmd.AddCommand(create, list, del)
	return cmd
}

func keyCmd(run runner) *cobra.Command {
	cmd := &cobra.Command{Use: "key", Short: "Create, list and delete access keys"}
	var account, user string
	create := &cobra.Command{Use: "create", Short: "Create an access key; prints its secret once", Args: cobra.NoArgs,
		RunE: run(func(ctx context.Context, st *auth.Store, _ []string) (any, error) {
			k, err := st.CreateAccessKey(ctx, account, user, "", "")
			if err != nil {
				return nil, err
			}
			return map[string]string{"AccessKeyId": k.ID, "SecretAccessKey": k.Secret, "Account": k.Account, "UserName": k.User}, nil
		})}
	list := listCmd(run, "List access keys of an account (or one user)", func(ctx context.Context, st *auth.Store) (any, error) {
		return st.ListAccessKeys(ctx, account, user)
	})
	for _, c := range []*cobra.Command{create, list} {
		c.Flags().StringVar(&account, "account", "", "12-digit account ID")
		c.Flags().StringVar(&user, "user", "", "user name")
		_ = c.MarkFlagRequired("account")
	}
	_ = create.MarkFlagRequired("user")
	del := deleteCmd(run, "delete ACCESS_KEY_ID", "Delete an access key", func(ctx context.Context, st *auth.Store, name string) error {
		return st.DeleteAccessKey(ctx, name)
	})
	cmd.AddCommand(create, list, del)
	return cmd
}

func policyCmd(run runner) *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Attach, list and detach identity policies of users (--user) and roles (--role)"}
	var account, user, role, doc string
	cmd.PersistentFlags().StringVar(&account, "account", "", "12-digit account ID (required)")
	cmd.PersistentFlags().StringVar(&user, "user", "", "user name")
	cmd.PersistentFlags().StringVar(&role, "role", "", "role name")
	_ = cmd.MarkPersistentFlagRequired("account")
	cmd.MarkFlagsMutuallyExclusive("user", "role")
	cmd.MarkFlagsOneRequired("user", "role")
	owner := func() string {
		if role != "" {
			return "role/" + role
		}
		return user
	}
	put := nameCmd(run, "put NAME --document JSON|@FILE", "Attach or replace a policy", func(ctx context.Context, st *auth.Store, name string) (any, error) {
		text := doc
		if f, ok := strings.CutPrefix(doc, "@"); ok {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			text = string(b)
		}
		if role != "" {
			return nil, st.PutRolePolicy(ctx, account, role, name, text)
		}
		return nil, st.PutUserPolicy(ctx, account, user, name, text)
	})
	put.Flags().StringVar(&doc, "document", "", "the policy document, or @file")
	_ = put.MarkFlagRequired("document")
	list := listCmd(run, "List a user's policies", func(ctx context.Context, st *auth.Store) (any, error) {
		return st.ListUserPolicies(ctx, account, user)
	})
	del := deleteCmd(run, "delete NAME", "Detach a policy", func(ctx context.Context, st *auth.Store, name string) error {
		return st.DeleteUserPolicy(ctx, account, owner(), name)
	})
	cmd.AddCommand(put, list, del)
	return cmd
}

func roleCmd(run runner) *cobra.Command {
	cmd := &cobra.Command{Use: "role", Short: "Create, list and delete roles (assumed with STS AssumeRole)"}
	var account string
	var trusted []string
	requireAccount(cmd, &account)
	create := nameCmd(run, "create NAME", "Create a role", func(ctx context.Context, st *auth.Store, name string) (any, error) {
		return st.CreateRole(ctx, account, name, trusted)
	})
	create.Flags().StringSliceVar(&trusted, "trust", nil, "account IDs whose principals may assume the role (default: its own account)")
	list := listCmd(run, "List an account's roles", func(ctx context.Context, st *auth.Store) (any, error) { return st.ListRoles(ctx, account) })
	del := deleteCmd(run, "delete NAME", "Delete a role, its policies and its sessions", func(ctx context.Context, st *auth.Store, name string) error {
		return st.DeleteRole(ctx, account, name)
	})
	cmd.AddCommand(create, list, del)
	return cmd
}
