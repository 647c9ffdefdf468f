package crashpoint

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary runs itself as the child that reaches the points.
func TestMain(m *testing.M) {
	if name := os.Getenv("CRASHPOINT_TEST_REACH"); name != "" {
		Reach(name)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// reach runs a child process with EXTENDDB_CRASH_AT=at that reaches the
// point name, and returns how it ended.
func reach(t *testing.T, at, name string) error {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EXTENDDB_CRASH_AT="+at, "CRASHPOINT_TEST_REACH="+name)
	return cmd.Run()
}

// The point EXTENDDB_CRASH_AT names kills the process with SIGKILL; any
// other point, or no variable at all, does nothing.
func TestReach(t *testing.T) {
	if err := reach(t, "job-before-table", "job-before-table"); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("process reaching the named point: %v, want killed", err)
	}
	if err := reach(t, "job-before-table", "another"); err != nil {
		t.Fatalf("process reaching another point: %v, want a normal exit", err)
	}
	if err := reach(t, "", "job-before-table"); err != nil {
		t.Fatalf("process without EXTENDDB_CRASH_AT: %v, want a normal exit", err)
	}
}
