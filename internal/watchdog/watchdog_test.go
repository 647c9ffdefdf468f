package watchdog

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain lets this test binary play the child: `<test binary> Command DIR`.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == Command {
		if err := Run(os.Stdin, os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// ownerHelper is the body of a child process that guards DIR and then
// sleeps until it is killed.
func TestOwnerHelper(t *testing.T) {
	dir := os.Getenv("WATCHDOG_TEST_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	exe, _ := os.Executable()
	if err := Guard(exe, dir); err != nil {
		t.Fatal(err)
	}
	fmt.Println("guarded")
	time.Sleep(time.Minute)
}

func newDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(t.TempDir(), DirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extenddb.db"), []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func waitGone(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			return
		}
	}
	t.Fatalf("%s still there 10 s after its owner died", dir)
}

// An owner killed with SIGKILL has its directory removed by the watchdog.
func TestGuardRemovesAfterKill(t *testing.T) {
	dir := newDir(t)
	owner := exec.Command(os.Args[0], "-test.run=^TestOwnerHelper$")
	owner.Env = append(os.Environ(), "WATCHDOG_TEST_DIR="+dir)
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "guarded" {
		t.Fatalf("owner did not guard: %q %v", buf, err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("directory removed while its owner lives: %v", err)
	}
	_ = owner.Process.Signal(syscall.SIGKILL)
	_ = owner.Wait()
	waitGone(t, dir)
}

// A directory whose lock a live process holds is left alone.
func TestRunKeepsLockedDir(t *testing.T) {
	dir := newDir(t)
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	// Run in another process: flock locks of one process do not conflict.
	cmd := exec.Command(os.Args[0], Command, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("locked directory removed: %v", err)
	}
}

// Neither side accepts a directory not named like an in-memory database.
func TestRefusesOtherDirs(t *testing.T) {
	other := t.TempDir()
	exe, _ := os.Executable()
	if err := Guard(exe, other); err == nil {
		t.Fatal("Guard accepted a directory without the prefix")
	}
	r, w, _ := os.Pipe()
	w.Close()
	if err := Run(r, other); err == nil {
		t.Fatal("Run accepted a directory without the prefix")
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("directory without the prefix removed: %v", err)
	}
}
