package main

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cast"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/extenddb/extenddb/internal/server"
	"github.com/extenddb/extenddb/internal/storage"
)

// serveFlags declares every setting of `extenddb serve`. Each one can also
// come from the environment (EXTENDDB_ + the name in upper case, '-' as '_')
// and from the --config file (the name as key).
func serveFlags(f *pflag.FlagSet) {
	f.String("config", "", "configuration file (TOML, YAML or JSON) with keys named like these flags")
	f.Bool("print-config", false, "print the effective configuration (TOML, secrets masked) and exit")
	f.String("listen", "127.0.0.1:8000", "address to listen on (host:port; port 0 picks a free one)")
	f.String("storage", "sqlite", "storage backend: sqlite, postgres or cassandra")
	f.String("data-dir", "./extenddb-data", "SQLite: directory for the database")
	f.String("backup-root", "", "directory of on-demand backups; several servers sharing a backend must share it (default: <data-dir>/backups)")
	f.String("export-dir", "", "directory standing for S3 in exports and imports: bucket B is <export-dir>/B (default: <data-dir>/exports)")
	f.Duration("export-min-incremental-period", 15*time.Minute, "shortest period of an incremental export (DynamoDB: 15m); shorter only for tests")
	f.Duration("export-page-delay", 0, "pause after every 1,000 items an export writes (to watch IN_PROGRESS)")
	f.Bool("in-memory", false, "SQLite: keep all data in memory; nothing survives exit")
	f.String("postgres-dsn", "", "PostgreSQL: connection string, e.g. postgres://user@host:5432/db")
	f.String("postgres-schema", "", "PostgreSQL: schema for extenddb's tables (default: the connection's search_path)")
	f.String("cassandra-hosts", "", "Cassandra: comma-separated contact points, e.g. 127.0.0.1,127.0.0.2")
	f.String("cassandra-keyspace-prefix", "extenddb", "Cassandra: prefix of the keyspaces extenddb creates")
	f.Int("cassandra-replication-factor", 1, "Cassandra: replication factor of the keyspaces extenddb creates")
	f.String("cassandra-datacenter", "", "Cassandra: datacenter for NetworkTopologyStrategy (default SimpleStrategy)")
	f.String("region", "us-east-1", "region in ARNs for requests whose credentials name no region")
	f.String("account-id", storage.DefaultAccount, "12-digit account id used in ARNs")
	f.Duration("status-delay", 0, "how long tables stay CREATING/UPDATING/DELETING (e.g. 2s); 0 = immediate")
	f.Duration("ttl-interval", 30*time.Second, "how often expired items (Time to Live) are looked for and deleted")
	f.Int("ttl-page-size", 256, "items per Time to Live backfill or drain page")
	f.Duration("ttl-page-delay", 0, "pause before every Time to Live backfill or drain page (to watch ENABLING/DISABLING)")
	f.Duration("index-page-delay", 0, "pause between the pages of an online index build (to watch CREATING)")
	f.Int64("item-collection-limit-bytes", 0, "size limit of one item collection of a table with local secondary indexes, in bytes; 0 = DynamoDB's 10 GB")
	f.String("log-format", "text", "log format: text or json")
	f.String("log-level", "info", "log level: debug, info, warn or error")
	f.Bool("access-log", false, "log one line per API request")
	f.Bool("metrics", true, "serve Prometheus metrics on GET /metrics")
	f.String("pprof-listen", "", "serve Go's pprof on this host:port (off when empty); never on the API's address")
	f.Bool("console", false, "serve the web console on /console (docs/console.md)")
	addLimitFlags(f)
	testkitFlags(f)
	realismFlags(f)
	authFlags(f)
	localFlags(f)
}

// secretKeys are the settings --print-config masks.
// The DSN's password is masked in place; the others are masked whole.
var secretKeys = map[string]bool{"postgres-dsn": true, "root-secret-access-key": true, "server-key": true}

// reader reads typed settings from viper, collecting every error so that a
// bad configuration is reported at once, and keeps the values it read for
// --print-config.
type reader struct {
	v      *viper.Viper
	errs   []string
	values map[string]any
}

func (r *reader) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *reader) str(key string) string {
	s := r.v.GetString(key)
	r.values[key] = s
	return s
}

// boolean accepts what strconv.ParseBool does: true/false, 1/0, t/f, in
// lower, upper or title case.
func (r *reader) boolean(key string) bool { return convert(r, key, "true or false", cast.ToBoolE) }

func (r *reader) integer(key string) int { return convert(r, key, "a whole number", cast.ToIntE) }

// convert reads key's value with conv, recording "KEY: VALUE is not
// WHAT" when it does not convert.
func convert[T any](r *reader, key, what string, conv func(any) (T, error)) T {
	v, err := conv(r.v.Get(key))
	if err != nil {
		r.fail("%s: %v is not %s", key, r.v.Get(key), what)
	}
	r.values[key] = v
	return v
}

func (r *reader) duration(key string) time.Duration {
	var d time.Duration
	switch raw := r.v.Get(key).(type) {
	case time.Duration:
		d = raw
	case string:
		var err error
		if d, err = time.ParseDuration(raw); err != nil {
			r.fail("%s: %q is not a duration such as 500ms, 2s or 1m", key, raw)
		}
	default:
		r.fail("%s: %v is not a duration with a unit, such as 500ms, 2s or 1m", key, raw)
	}
	r.values[key] = d
	return d
}

// loaded is the outcome of loadConfig: the server's configuration and the
// effective value of every setting, by key, for --print-config.
type loaded struct {
	cfg    server.Config
	values map[string]any
}

// loadConfig merges flags, environment and the optional configuration file,
// and refuses values it cannot read exactly (a typo must not silently fall
// back to a default, e.g. to durable storage when in-memory was asked for).
func loadConfig(v *viper.Viper, flags *pflag.FlagSet) (loaded, error) {
	if err := v.BindPFlags(flags); err != nil {
		return loaded{}, err
	}
	v.SetEnvPrefix("EXTENDDB")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if path := v.GetString("config"); path != "" {
		if err := checkConfigFile(path, flags); err != nil {
			return loaded{}, err
		}
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			return loaded{}, fmt.Errorf("read configuration file: %w", err)
		}
	}
	r := &reader{v: v, values: map[string]any{}}
	cfg := readSettings(r)
	applyLocal(r, &cfg)
	validate(r, cfg)
	// Settings read elsewhere (authConfig) are shown as given; --help,
	// which the command line adds, is no setting.
	flags.VisitAll(func(f *pflag.Flag) {
		if _, ok := r.values[f.Name]; !ok && f.Name != "config" && f.Name != "print-config" && f.Name != "help" {
			r.values[f.Name] = v.Get(f.Name)
		}
	})
	if len(r.errs) > 0 {
		return loaded{}, fmt.Errorf("invalid configuration:\n  %s", strings.Join(r.errs, "\n  "))
	}
	return loaded{cfg: cfg, values: r.values}, nil
}

func readSettings(r *reader) server.Config {
	return server.Config{
		Listen:                     r.str("listen"),
		Storage:                    r.str("storage"),
		DataDir:                    r.str("data-dir"),
		InMemory:                   r.boolean("in-memory"),
		BackupRoot:                 r.str("backup-root"),
		ExportDir:                  r.str("export-dir"),
		ExportMinIncrementalPeriod: r.duration("export-min-incremental-period"),
		ExportPageDelay:            r.duration("export-page-delay"),
		Postgres:                   server.PostgresConfig{DSN: r.str("postgres-dsn"), Schema: r.str("postgres-schema")},

		Cassandra: server.CassandraConfig{
			Hosts:             r.str("cassandra-hosts"),
			KeyspacePrefix:    r.str("cassandra-keyspace-prefix"),
			ReplicationFactor: r.integer("cassandra-replication-factor"),
			Datacenter:        r.str("cassandra-datacenter"),
		},
		Region:              r.str("region"),
		AccountID:           r.str("account-id"),
		StatusDelay:         r.duration("status-delay"),
		TTLInterval:         r.duration("ttl-interval"),
		TTLPageSize:         r.integer("ttl-page-size"),
		TTLPageDelay:        r.duration("ttl-page-delay"),
		IndexPageDelay:      r.duration("index-page-delay"),
		ItemCollectionLimit: int64(r.integer("item-collection-limit-bytes")),
		HTTP: server.HTTPLimits{
			ReadTimeout:    r.duration("http-read-timeout"),
			WriteTimeout:   r.duration("http-write-timeout"),
			IdleTimeout:    r.duration("http-idle-timeout"),
			MaxConnections: r.integer("max-connections"),
			MemoryBudget:   int64(r.integer("request-memory-mib")) << 20,
			AdmissionWait:  r.duration("admission-wait"),
		},

		LogFormat:   r.str("log-format"),
		LogLevel:    r.str("log-level"),
		AccessLog:   r.boolean("access-log"),
		Metrics:     r.boolean("metrics"),
		PprofListen: r.str("pprof-listen"),
		Console:     r.boolean("console"),

		Auth:                    authConfig(r.v, r.boolean),
		CORS:                    r.str("cors"),
		DisableTelemetry:        r.boolean("disable-telemetry"),
		OptimizeDBBeforeStartup: r.boolean("optimize-db-before-startup"),
		Testkit:                 testkitConfig(r),
		Realism:                 readRealism(r),
		Triggers:                r.str("triggers"),
	}
}

var accountIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

func validate(r *reader, cfg server.Config) {
	r.errs = append(r.errs, checkLimits(cfg.HTTP)...)
	if !slices.Contains(server.Backends(), cfg.Storage) {
		r.fail("storage: %q is not %s", cfg.Storage, strings.Join(server.Backends(), ", "))
	}
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		r.fail("listen: %q is not host:port", cfg.Listen)
	}
	if !accountIDPattern.MatchString(cfg.AccountID) {
		r.fail("account-id: %q is not 12 digits", cfg.AccountID)
	}
	if cfg.StatusDelay < 0 {
		r.fail("status-delay: must not be negative")
	}
	if cfg.TTLInterval < 100*time.Millisecond && !strings.Contains(strings.Join(r.errs, "\n"), "ttl-interval") {
		r.fail("ttl-interval: %v is shorter than the minimum of 100ms", cfg.TTLInterval)
	}
	if cfg.TTLPageSize < 1 {
		r.fail("ttl-page-size: must be at least 1")
	}
	if cfg.TTLPageDelay < 0 || cfg.IndexPageDelay < 0 {
		r.fail("ttl-page-delay, index-page-delay: must not be negative")
	}
	if cfg.ItemCollectionLimit < 0 {
		r.fail("item-collection-limit-bytes: must not be negative")
	}
	if cfg.Cassandra.ReplicationFactor < 1 {
		r.fail("cassandra-replication-factor: must be at least 1")
	}
	switch cfg.LogFormat {
	case "text", "json":
	default:
		r.fail("log-format: %q is not text or json", cfg.LogFormat)
	}
	if _, err := parseLevel(cfg.LogLevel); err != nil {
		r.fail("log-level: %q is not debug, info, warn or error", cfg.LogLevel)
	}
	if cfg.PprofListen != "" {
		if _, _, err := net.SplitHostPort(cfg.PprofListen); err != nil {
			r.fail("pprof-listen: %q is not host:port", cfg.PprofListen)
		}
	}
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
		if k == "config" || k == "print-config" || flags.Lookup(k) == nil || flags.Lookup(k).Hidden {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("configuration file %s: unknown keys %s (keys are named like the flags of extenddb serve --help)", path, strings.Join(unknown, ", "))
	}
	return nil
}

// storageOf names the storage a setting belongs to ("" = every storage).
var storageOf = map[string]string{
	"data-dir":                     "sqlite",
	"db-path":                      "sqlite",
	"in-memory":                    "sqlite",
	"optimize-db-before-startup":   "sqlite",
	"postgres-dsn":                 "postgres",
	"postgres-schema":              "postgres",
	"cassandra-hosts":              "cassandra",
	"cassandra-keyspace-prefix":    "cassandra",
	"cassandra-replication-factor": "cassandra",
	"cassandra-datacenter":         "cassandra",
}

// unusedSettings lists, one message each, the settings given (by flag,
// environment or file) that the chosen storage ignores, such as a
// PostgreSQL DSN while serving from SQLite.
func unusedSettings(v *viper.Viper, flags *pflag.FlagSet, storage string) []string {
	var out []string
	flags.VisitAll(func(f *pflag.Flag) {
		want := storageOf[f.Name]
		if want == "" || want == storage || !v.IsSet(f.Name) {
			return
		}
		out = append(out, fmt.Sprintf("%s is set but storage is %s; it applies to --storage %s only", f.Name, storage, want))
	})
	return out
}

// printConfig writes the effective configuration as a TOML file that
// --config accepts, in the order of the flags, with secrets masked.
func printConfig(w io.Writer, flags *pflag.FlagSet, values map[string]any) {
	flags.VisitAll(func(f *pflag.Flag) {
		val, ok := values[f.Name]
		if !ok {
			return
		}
		if secretKeys[f.Name] {
			if f.Name == "postgres-dsn" {
				val = maskSecret(fmt.Sprint(val))
			} else if val != "" {
				val = "xxxxx"
			}
		}
		switch x := val.(type) {
		case string:
			fmt.Fprintf(w, "%s = %s\n", f.Name, strconv.Quote(x))
		case time.Duration:
			fmt.Fprintf(w, "%s = %s\n", f.Name, strconv.Quote(x.String()))
		default:
			fmt.Fprintf(w, "%s = %v\n", f.Name, x)
		}
	})
}

var kvPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|\S+)`)

// maskSecret hides the password of a connection string, in URL form
// (postgres://user:secret@host) or key=value form (password=secret).
func maskSecret(s string) string {
	if s == "" {
		return s
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return kvPassword.ReplaceAllString(s, "${1}xxxxx")
}
