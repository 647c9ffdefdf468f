package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TransactGetItems refuses to return more than 4 MB of items: "The
// aggregate size of the items in the transaction cannot exceed 4 MB."
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
// (the exact text is not published; extenddb uses TransactWriteItems'
// wording, see docs/differences-from-dynamodb.md).
func TestTransactGetItemsFourMegabytes(t *testing.T) {
	_, c := startClient(t)
	name := tableName("txget4mb")
	createHashTable(t, c, name, "S")
	big := strings.Repeat("x", 390_000)
	var gets []types.TransactGetItem
	for i := range 12 {
		pk := "item-" + strconv.Itoa(i)
		putItem(t, c, name, item{"pk": avS(pk), "v": avS(big)})
		gets = append(gets, types.TransactGetItem{Get: &types.Get{TableName: aws.String(name), Key: item{"pk": avS(pk)}}})
	}
	// 10 items of 390 KB: 3.9 MB, under the limit.
	out, err := c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{TransactItems: gets[:10]})
	if err != nil {
		t.Fatalf("10 items of 390 KB: %v", err)
	}
	if len(out.Responses) != 10 || len(out.Responses[9].Item) != 2 {
		t.Fatalf("responses: %d", len(out.Responses))
	}
	// 12 items: 4.7 MB.
	_, err = c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
	wantAPIError(t, err, "ValidationException",
		"Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit")
}

// A second server on the same SQLite data directory stops at start with a
// clear error instead of serving beside the first.
func TestSecondServerOnSameDataDir(t *testing.T) {
	sqliteOnly(t, "the directory lock is SQLite's")
	dir := t.TempDir()
	first := startServer(t, "--data-dir", dir)
	out, err := runExtenddb(t, 30*time.Second, "serve", "--listen", "127.0.0.1:0", "--data-dir", dir)
	if err == nil {
		t.Fatalf("second server on %s started:\n%s", dir, out)
	}
	if !strings.Contains(out, "is in use by another extenddb process (pid "+strconv.Itoa(first.Pid())+")") {
		t.Fatalf("second server's error does not name the holder:\n%s", out)
	}
}

// A server with --in-memory that is killed with SIGKILL leaves nothing in
// /dev/shm: its watchdog child removes the directory once the server is
// gone. A stopped server removes it itself.
func TestKilledInMemoryServerLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	sqliteOnly(t, "--in-memory directories are SQLite's")
	s := startServer(t, "--in-memory")
	dir := memoryDirOf(t, s.Pid())
	s.kill()
	waitRemoved(t, dir, 10*time.Second)

	next := startServer(t, "--in-memory")
	nextDir := memoryDirOf(t, next.Pid())
	next.signal(syscall.SIGTERM)
	if err := next.wait(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(nextDir); !os.IsNotExist(err) {
		t.Fatalf("stopped server left %s (%v)", nextDir, err)
	}
}

// When the watchdog dies too (both killed), the next --in-memory start
// removes what the killed server left.
func TestNextInMemoryStartSweepsLeftovers(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	sqliteOnly(t, "--in-memory directories are SQLite's")
	s := startServer(t, "--in-memory")
	dir := memoryDirOf(t, s.Pid())
	wd := watchdogOf(t, dir)
	if err := syscall.Kill(wd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.kill()
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("directory %s gone although its watchdog was killed first: %v", dir, err)
	}
	startServer(t, "--in-memory")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("directory of the killed server %s still there after the next start (%v)", dir, err)
	}
}

// waitRemoved fails t unless dir disappears within timeout.
func waitRemoved(t *testing.T, dir string, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
	}
	t.Fatalf("killed server's directory %s still there after %v", dir, timeout)
}

// watchdogOf finds the pid of the process watching dir, by its command line.
func watchdogOf(t *testing.T, dir string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, c := range cmdlines {
			b, err := os.ReadFile(c)
			if err != nil {
				continue
			}
			args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
			if len(args) == 3 && args[1] == "remove-dir-on-exit" && args[2] == dir {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(c)))
				return pid
			}
		}
	}
	t.Fatalf("no watchdog process for %s", dir)
	return 0
}

// Pid is the server process's id.
func (s *server) Pid() int { return s.cmd.Process.Pid }

// runExtenddb runs the extenddb binary with args until it exits or timeout
// passes, and returns its combined output.
func runExtenddb(t *testing.T, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, binPath, args...).CombinedOutput()
	return string(out), err
}

// memoryDirOf finds the /dev/shm directory whose lock file names pid.
func memoryDirOf(t *testing.T, pid int) string {
	t.Helper()
	locks, _ := filepath.Glob("/dev/shm/extenddb-*/extenddb.db.lock")
	for _, l := range locks {
		b, err := os.ReadFile(l)
		if err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			return filepath.Dir(l)
		}
	}
	t.Fatalf("no in-memory directory for pid %d among %v", pid, locks)
	return ""
}
