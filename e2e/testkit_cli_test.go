package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testkitCLI runs an extenddb client subcommand against s and decodes its
// JSON output into out (when not nil).
func testkitCLI(t *testing.T, s *server, out any, args ...string) string {
	t.Helper()
	full := append(args, "--endpoint-url", s.Endpoint)
	cmd := exec.Command(binPath, full...)
	cmd.Env = append(cmd.Environ(), "AWS_ACCESS_KEY_ID="+testAccessKey, "AWS_SECRET_ACCESS_KEY="+testSecretKey)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("extenddb %v: %v\n%s", full, err, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("extenddb %v output %q: %v", full, b, err)
		}
	}
	return string(b)
}

// TestTestkitCLI: extenddb snapshot, truncate, clock and ttl expire-now
// drive the admin API of a running server.
func TestTestkitCLI(t *testing.T) {
	s, c := startClient(t, "--admin-api", "--clock", "manual")
	name := tableName("cli")
	createStreamTable(t, c, name, types.StreamViewTypeKeysOnly)
	putItem(t, c, name, item{"pk": avS("a")})

	var snap struct {
		Name   string
		Tables []struct {
			TableName string
			ItemCount int
		}
	}
	testkitCLI(t, s, &snap, "snapshot", "save", "base", "--table", name)
	if snap.Name != "base" || len(snap.Tables) != 1 || snap.Tables[0].TableName != name || snap.Tables[0].ItemCount != 1 {
		t.Fatalf("snapshot save: %+v", snap)
	}
	testkitCLI(t, s, nil, "truncate", name)
	if got := keysOf(t, c, name); len(got) != 0 {
		t.Fatalf("after truncate: %v", got)
	}
	testkitCLI(t, s, nil, "snapshot", "restore", "base")
	if got := keysOf(t, c, name); len(got) != 1 {
		t.Fatalf("after restore: %v", got)
	}
	var list []struct{ Name string }
	testkitCLI(t, s, &list, "snapshot", "list")
	if len(list) != 1 || list[0].Name != "base" {
		t.Fatalf("snapshot list: %+v", list)
	}
	testkitCLI(t, s, nil, "snapshot", "delete", "base")

	var before, after struct {
		Mode string
		Now  time.Time
	}
	testkitCLI(t, s, &before, "clock", "now")
	testkitCLI(t, s, &after, "clock", "advance", "2d")
	if before.Mode != "manual" || !after.Now.Equal(before.Now.Add(48*time.Hour)) {
		t.Fatalf("clock: %+v then %+v", before, after)
	}
	testkitCLI(t, s, &after, "clock", "set", "2031-02-03T04:05:06Z")
	if !after.Now.Equal(time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)) {
		t.Fatalf("clock set: %+v", after)
	}

	// An admin error is the command's error, with DynamoDB's name.
	cmd := exec.Command(binPath, "snapshot", "restore", "missing", "--endpoint-url", s.Endpoint)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ResourceNotFoundException: Snapshot not found") {
		t.Fatalf("restore of a missing snapshot: %v\n%s", err, out)
	}
	cmd = exec.Command(binPath, "ttl", "expire-now", name, "--endpoint-url", s.Endpoint)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ValidationException: Time to Live is not enabled on table "+name) {
		t.Fatalf("expire-now without TTL: %v\n%s", err, out)
	}
}
