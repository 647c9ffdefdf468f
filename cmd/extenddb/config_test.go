package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// load parses args as `extenddb serve` does (DynamoDB Local's options
// included) and loads the configuration.
func load(t *testing.T, args ...string) (loaded, *viper.Viper, *pflag.FlagSet, error) {
	t.Helper()
	cmd := serveCmd()
	f := cmd.Flags()
	if err := f.Parse(translateLocalArgs(args)); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	v := viper.New()
	l, err := loadConfig(v, f)
	return l, v, f, err
}

// envValues holds, for every setting, a valid value other than its default
// and the value --print-config then shows. A setting added without an entry
// here fails TestEveryEnvironmentOverride.
var envValues = map[string][2]string{
	"config":                        {"", ""},
	"print-config":                  {"", ""},
	"listen":                        {"0.0.0.0:9000", `"0.0.0.0:9000"`},
	"storage":                       {"postgres", `"postgres"`},
	"data-dir":                      {"/var/lib/x", `"/var/lib/x"`},
	"in-memory":                     {"true", "true"},
	"postgres-dsn":                  {"postgres://u:hunter2@db:5432/x", `"postgres://u:xxxxx@db:5432/x"`},
	"postgres-schema":               {"s1", `"s1"`},
	"cassandra-hosts":               {"10.0.0.1", `"10.0.0.1"`},
	"cassandra-keyspace-prefix":     {"p1", `"p1"`},
	"cassandra-replication-factor":  {"3", "3"},
	"cassandra-datacenter":          {"dc1", `"dc1"`},
	"region":                        {"eu-west-1", `"eu-west-1"`},
	"account-id":                    {"123456789012", `"123456789012"`},
	"status-delay":                  {"2s", `"2s"`},
	"realism":                       {"gsi-lag=2s,seed=7", `"gsi-lag=2s,seed=7"`},
	"triggers":                      {"/etc/triggers.toml", `"/etc/triggers.toml"`},
	"ttl-interval":                  {"1s", `"1s"`},
	"ttl-page-size":                 {"16", "16"},
	"ttl-page-delay":                {"10ms", `"10ms"`},
	"index-page-delay":              {"20ms", `"20ms"`},
	"item-collection-limit-bytes":   {"1048576", "1048576"},
	"http-read-timeout":             {"11s", `"11s"`},
	"http-write-timeout":            {"12s", `"12s"`},
	"http-idle-timeout":             {"13s", `"13s"`},
	"max-connections":               {"77", "77"},
	"request-memory-mib":            {"64", "64"},
	"admission-wait":                {"3s", `"3s"`},
	"log-format":                    {"json", `"json"`},
	"log-level":                     {"debug", `"debug"`},
	"access-log":                    {"true", "true"},
	"metrics":                       {"false", "false"},
	"pprof-listen":                  {"127.0.0.1:6060", `"127.0.0.1:6060"`},
	"console":                       {"true", "true"},
	"port":                          {"9001", "9001"},
	"db-path":                       {"", `""`},
	"shared-db":                     {"true", "true"},
	"delay-transient-statuses":      {"true", "true"},
	"cors":                          {"https://example.com", `"https://example.com"`},
	"disable-telemetry":             {"true", "true"},
	"optimize-db-before-startup":    {"", "false"},
	"backup-root":                   {"/var/backups/x", `"/var/backups/x"`},
	"export-dir":                    {"/var/exports", `"/var/exports"`},
	"export-min-incremental-period": {"2s", `"2s"`},
	"export-page-delay":             {"5ms", `"5ms"`},
	"root-access-key-id":            {"AKIDROOT", `"AKIDROOT"`},
	"root-secret-access-key":        {"topsecret", `"xxxxx"`},
	"root-credentials-file":         {"/etc/creds.json", `"/etc/creds.json"`},
	"server-key":                    {"00ff", `"xxxxx"`},
	"server-key-file":               {"/etc/key", `"/etc/key"`},
	"insecure":                      {"true", "true"},
	"per-access-key":                {"true", "true"},
	"tls-cert":                      {"/etc/c.pem", `"/etc/c.pem"`},
	"tls-key":                       {"/etc/k.pem", `"/etc/k.pem"`},
	"admin-api":                     {"true", "true"},
	"clock":                         {"manual", `"manual"`},
	"snapshot-dir":                  {"/var/snapshots", `"/var/snapshots"`},
	"seed":                          {"/etc/seed", `"/etc/seed"`},
}

// Every setting can be given in the environment as EXTENDDB_<NAME>, and
// --print-config shows the effective value with the DSN's password masked.
func TestEveryEnvironmentOverride(t *testing.T) {
	cmd := serveCmd()
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		val, ok := envValues[f.Name]
		if !ok {
			t.Errorf("setting %s has no entry in envValues", f.Name)
			return
		}
		if val[0] != "" {
			t.Setenv("EXTENDDB_"+strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")), val[0])
		}
	})
	l, _, f, err := load(t)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printConfig(&out, f, l.values)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		k, v, _ := strings.Cut(line, " = ")
		got[k] = v
	}
	for k, want := range envValues {
		if k == "config" || k == "print-config" {
			continue
		}
		if k == "listen" {
			want[1] = `"0.0.0.0:9001"` // -port keeps --listen's host
		}
		if got[k] != want[1] {
			t.Errorf("print-config %s = %s, want %s", k, got[k], want[1])
		}
	}
	if strings.Contains(out.String(), "hunter2") || strings.Contains(out.String(), "topsecret") || strings.Contains(out.String(), "00ff") {
		t.Errorf("print-config shows the password:\n%s", out.String())
	}
	if l.cfg.Listen != "0.0.0.0:9001" || !l.cfg.Auth.SharedDB || l.cfg.StatusDelay != 2*time.Second || l.cfg.Metrics {
		t.Errorf("config = %+v", l.cfg)
	}
}

func TestMaskSecret(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "",
		"postgres://u@h/db":                   "postgres://u@h/db",
		"postgres://u:pw@h:5432/db?x=1":       "postgres://u:xxxxx@h:5432/db?x=1",
		"postgres://u@h/db?password=pw":       "postgres://u@h/db?password=xxxxx",
		"host=h user=u password=pw dbname=db": "host=h user=u password=xxxxx dbname=db",
		"host=h password='p w' dbname=db":     "host=h password=xxxxx dbname=db",
	} {
		if got := maskSecret(in); got != want {
			t.Errorf("maskSecret(%q) = %q, want %q", in, got, want)
		}
	}
}

// DynamoDB Local's options, as its documentation lists them:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocal.UsageNotes.html
func TestDynamoDBLocalOptions(t *testing.T) {
	l, _, _, err := load(t, "-jar", "DynamoDBLocal.jar", "-Djava.library.path=./DynamoDBLocal_lib",
		"-port", "8001", "-sharedDb", "-dbPath", "/data", "-delayTransientStatuses",
		"-cors", "*", "-disableTelemetry", "-optimizeDbBeforeStartup")
	if err != nil {
		t.Fatal(err)
	}
	c := l.cfg
	if c.Listen != "127.0.0.1:8001" || !c.Auth.SharedDB || c.DataDir != "/data" || c.StatusDelay != localStatusDelay ||
		c.CORS != "*" || !c.DisableTelemetry || !c.OptimizeDBBeforeStartup || c.InMemory {
		t.Errorf("config = %+v", c)
	}

	l, _, _, err = load(t, "-inMemory", "-sharedDb", "-delayTransientStatuses", "--status-delay", "500ms")
	if err != nil {
		t.Fatal(err)
	}
	if !l.cfg.InMemory || l.cfg.Listen != "127.0.0.1:8000" || l.cfg.StatusDelay != 500*time.Millisecond {
		t.Errorf("config = %+v (an explicit --status-delay wins over -delayTransientStatuses)", l.cfg)
	}
}

func TestDynamoDBLocalOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-dbPath", "/d", "-inMemory"}, "-dbPath and -inMemory cannot be used together"},
		{[]string{"-optimizeDbBeforeStartup"}, "-optimizeDbBeforeStartup needs -dbPath"},
		{[]string{"-port", "70000"}, "port: 70000 is not between 1 and 65535"},
	} {
		if _, _, _, err := load(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestTranslateLocalArgs(t *testing.T) {
	got := translateLocalArgs([]string{"-jar", "DynamoDBLocal.jar", "-inMemory", "-Xmx1g", "--listen", "x:1", "-help"})
	want := []string{"--in-memory", "--listen", "x:1", "--help"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Booleans are read as strconv.ParseBool reads them, as the configuration
// documentation says; anything else is refused.
func TestBooleans(t *testing.T) {
	for _, s := range []string{"true", "TRUE", "1", "t", "True"} {
		t.Setenv("EXTENDDB_IN_MEMORY", s)
		if l, _, _, err := load(t); err != nil || !l.cfg.InMemory {
			t.Errorf("%q: in-memory %v, error %v", s, l.cfg.InMemory, err)
		}
	}
	for _, s := range []string{"yes", "on", "2"} {
		t.Setenv("EXTENDDB_IN_MEMORY", s)
		if _, _, _, err := load(t); err == nil || !strings.Contains(err.Error(), "in-memory: "+s+" is not true or false") {
			t.Errorf("%q: error %v", s, err)
		}
	}
}

// Every storage-specific setting given while another storage is chosen is
// reported, whether it came from a flag, the environment or the file.
func TestUnusedSettingsWarn(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(file, []byte("cassandra-datacenter = \"dc1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXTENDDB_POSTGRES_SCHEMA", "s")
	_, v, f, err := load(t, "--config", file, "--cassandra-hosts", "h", "--postgres-dsn", "postgres://x")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(unusedSettings(v, f, "sqlite"), "\n")
	for _, k := range []string{"cassandra-datacenter", "cassandra-hosts", "postgres-dsn", "postgres-schema"} {
		if !strings.Contains(got, k+" is set but storage is sqlite") {
			t.Errorf("no warning for %s in:\n%s", k, got)
		}
	}
	if strings.Contains(got, "data-dir") || strings.Contains(got, "keyspace-prefix") {
		t.Errorf("warning for a setting left at its default:\n%s", got)
	}
	_, v, f, err = load(t, "--storage", "postgres", "--postgres-dsn", "postgres://x", "--in-memory", "--data-dir", "d")
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(unusedSettings(v, f, "postgres"), "\n")
	if !strings.Contains(got, "in-memory is set") || !strings.Contains(got, "data-dir is set") || strings.Contains(got, "postgres-") {
		t.Errorf("warnings on postgres:\n%s", got)
	}
	// DynamoDB Local's -dbPath names a SQLite directory too.
	_, v, f, err = load(t, "--storage", "postgres", "--postgres-dsn", "postgres://x", "-dbPath", "p")
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(unusedSettings(v, f, "postgres"), "\n")
	if !strings.Contains(got, "db-path is set but storage is postgres") {
		t.Errorf("warnings on postgres:\n%s", got)
	}
}

func TestLogSettingsRefused(t *testing.T) {
	_, _, _, err := load(t, "--log-format", "xml", "--log-level", "loud", "--listen", "8000")
	for _, want := range []string{`log-format: "xml" is not text or json`, `log-level: "loud" is not debug`, `listen: "8000" is not host:port`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// --print-config shows settings only: not the --help flag the command line
// adds to every command.
func TestPrintConfigLeavesOutHelp(t *testing.T) {
	cmd := serveCmd()
	cmd.InitDefaultHelpFlag()
	f := cmd.Flags()
	if err := f.Parse(nil); err != nil {
		t.Fatal(err)
	}
	l, err := loadConfig(viper.New(), f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printConfig(&out, f, l.values)
	if strings.Contains(out.String(), "help =") || !strings.Contains(out.String(), "listen =") {
		t.Errorf("print-config:\n%s", out.String())
	}
}
