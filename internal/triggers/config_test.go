package triggers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadDefaults: an unset setting takes Lambda's default for DynamoDB
// event sources (batch size 100, no batching window, retries without end,
// TRIM_HORIZON). https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
func TestLoadDefaults(t *testing.T) {
	c, err := Load(writeFile(t, "t.yaml", "triggers:\n  - table: Orders\n    url: http://127.0.0.1:9/x\n"))
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Triggers[0]
	if c.PollInterval != 250*time.Millisecond || tr.BatchSize != 100 || tr.BatchingWindow != 0 || *tr.MaxRetries != -1 ||
		tr.RetryDelay != time.Second || tr.StartingPosition != "TRIM_HORIZON" || tr.BisectOnError {
		t.Fatalf("defaults: %+v %+v", c, tr)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"", "no triggers"},
		{"[[triggers]]\nurl = \"http://h/x\"\n", "table is required"},
		{"[[triggers]]\ntable = \"T\"\nurl = \"h/x\"\n", `url "h/x" is not an http or https URL`},
		{"[[triggers]]\ntable = \"T\"\nurl = \"http://h/x\"\nbatch-size = 10001\n", "batch-size 10001 is not between 1 and 10000"},
		{"[[triggers]]\ntable = \"T\"\nurl = \"http://h/x\"\nbatching-window = \"301s\"\n", "batching-window 5m1s is not between 0 and 300s"},
		{"[[triggers]]\ntable = \"T\"\nurl = \"http://h/x\"\nmax-retries = -2\n", "max-retries -2 is below -1"},
		{"[[triggers]]\ntable = \"T\"\nurl = \"http://h/x\"\nstarting-position = \"AT\"\n", `starting-position "AT" is not TRIM_HORIZON or LATEST`},
		{"[[triggers]]\ntable = \"T\"\nurl = \"http://h/x\"\n[[triggers]]\ntable = \"T\"\nurl = \"http://h/y\"\n", `table "T" has a trigger already`},
	} {
		_, err := Load(writeFile(t, "t.toml", c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
}

// TestCheckpointSave: a checkpoint saved is read back; none is the zero one.
func TestCheckpointSave(t *testing.T) {
	path := checkpointPath(t.TempDir(), "a/b table")
	if c, err := loadCheckpoint(path); err != nil || c != (checkpoint{}) {
		t.Fatalf("missing checkpoint: %+v, %v", c, err)
	}
	want := checkpoint{StreamArn: "arn", ShardID: "shard", SequenceNumber: "000001"}
	if err := want.save(path); err != nil {
		t.Fatal(err)
	}
	if got, err := loadCheckpoint(path); err != nil || got != want {
		t.Fatalf("checkpoint: %+v, %v", got, err)
	}
	if strings.ContainsAny(filepath.Base(path), "/ ") {
		t.Fatalf("checkpoint file name %q", filepath.Base(path))
	}
}
