// Package watchdog removes a directory when the process that owns it dies,
// however it dies (kill -9 included). It serves the SQLite backend's
// --in-memory databases, which live in a directory under /dev/shm: a
// crashed server must not leave its whole database in memory.
//
// The owner starts a small child (the same executable re-run with the
// hidden subcommand Command) whose standard input is a pipe from the owner.
// The owner never writes to it; the kernel closes the owner's end when the
// owner exits for any reason, the child then reads end-of-file and removes
// the directory. The child runs in its own session, so a terminal's Ctrl-C
// reaches only the owner, which removes the directory itself on a graceful
// shutdown.
package watchdog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Command is the hidden subcommand the child runs: `<exe> Command DIR`.
const Command = "remove-dir-on-exit"

// DirPrefix starts the base name of every directory a watchdog may remove;
// Run refuses any other, so the subcommand cannot be turned into a general
// recursive delete.
const DirPrefix = "extenddb-"

// LockName is the lock file inside a guarded directory. While a process
// holds an exclusive flock on it, Run does not remove the directory.
const LockName = "extenddb.db.lock"

var (
	mu    sync.Mutex
	pipes []*os.File // the owner's write ends, kept open (and referenced) until exit
)

// Guard starts the child that removes dir once this process has exited.
// exe is the path of an executable that runs Run for `exe Command dir`
// (normally os.Executable()). Errors: dir's name lacks DirPrefix, or the
// child cannot be started.
func Guard(exe, dir string) error {
	if !strings.HasPrefix(filepath.Base(dir), DirPrefix) {
		return fmt.Errorf("watchdog: %s is not named %s*", dir, DirPrefix)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("watchdog: %w", err)
	}
	cmd := exec.Command(exe, Command, dir)
	cmd.Stdin = r // stdout and stderr stay /dev/null: nobody waits on them
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return fmt.Errorf("watchdog: start %s: %w", exe, err)
	}
	r.Close()
	go func() { _ = cmd.Wait() }() // reap the child if it ends first
	mu.Lock()
	pipes = append(pipes, w)
	mu.Unlock()
	return nil
}

// Run is the child's side: it waits until stdin reaches end-of-file (its
// owner has exited), then removes dir unless a live process still holds
// dir's lock. Interrupt and termination signals are ignored so that only
// the owner's death ends the wait. Errors: dir's name lacks DirPrefix, or
// removal fails.
func Run(stdin io.Reader, dir string) error {
	if !strings.HasPrefix(filepath.Base(dir), DirPrefix) {
		return fmt.Errorf("watchdog: %s is not named %s*", dir, DirPrefix)
	}
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	_, _ = io.Copy(io.Discard, stdin)
	// Another process may hold the lock for a moment only (the leftover
	// sweep of an in-memory database opening elsewhere takes it before it
	// removes the directory itself): look again for a while before
	// deciding the directory is alive.
	lock := filepath.Join(dir, LockName)
	for i := 0; held(lock); i++ {
		if i == 20 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return os.RemoveAll(dir)
}

// held reports whether another process holds an exclusive lock on path.
func held(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	return errors.Is(err, unix.EWOULDBLOCK)
}
