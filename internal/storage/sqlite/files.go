package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/watchdog"
)

// lockSuffix names the lock file beside a database file.
const lockSuffix = ".lock"

// lockDatabase takes an exclusive lock on path+".lock" for as long as the
// returned file stays open, so that a second process cannot open the same
// database (two writers would each keep caches the other's writes make
// stale). The lock is the kernel's (flock): it goes away with the process,
// however the process ends. Errors: the database is in use (with the pid
// of its holder when known), or the lock file cannot be created.
func lockDatabase(path string) (*os.File, error) {
	lp := path + lockSuffix
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sqlite: lock %s: %w", lp, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(lp)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid := strings.TrimSpace(string(holder))
			if pid == "" {
				pid = "unknown"
			}
			return nil, fmt.Errorf("sqlite: %s is in use by another extenddb process (pid %s); "+
				"stop it, or give this one another --data-dir", filepath.Dir(path), pid)
		}
		return nil, fmt.Errorf("sqlite: lock %s: %w", lp, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// lockNewDatabase is lockDatabase for the database of a directory just
// made for it (an in-memory database): the lock file is created under a
// temporary name, locked, and only then renamed into place, so that a
// concurrent sweepMemoryDirs never finds it unlocked (it would take it
// and remove the new directory).
func lockNewDatabase(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".lock-*")
	if err != nil {
		return nil, fmt.Errorf("sqlite: lock %s: %w", path+lockSuffix, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("sqlite: lock %s: %w", path+lockSuffix, err)
	}
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	if err := os.Rename(f.Name(), path+lockSuffix); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("sqlite: lock %s: %w", path+lockSuffix, err)
	}
	return f, nil
}

// An in-memory database is the file memoryDBName in a directory named
// watchdog.DirPrefix*, whose lock file (watchdog.LockName) tells the
// watchdog and sweepMemoryDirs whether a live process still holds it.
const memoryDBName = "extenddb.db"

// sweepMemoryDirs removes the directories of in-memory databases under base
// that no live process holds: what servers that crashed left behind. A
// directory is held by the lock on its database; one younger than a minute
// without a lock file may be starting up and is left alone.
func sweepMemoryDirs(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), watchdog.DirPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		f, err := os.OpenFile(filepath.Join(dir, watchdog.LockName), os.O_RDWR, 0)
		if err != nil {
			if info, serr := e.Info(); serr == nil && time.Since(info.ModTime()) > time.Minute {
				os.RemoveAll(dir)
			}
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}

// quickCheck runs SQLite's PRAGMA quick_check on conn when the database
// file is at most maxBytes (0: always; negative: never). A damaged file is
// reported with what to do; the server then does not start.
func quickCheck(ctx context.Context, conn *sql.Conn, path string, maxBytes int64) error {
	if maxBytes < 0 {
		return nil
	}
	if st, err := os.Stat(path); err == nil && maxBytes > 0 && st.Size() > maxBytes {
		return nil
	}
	problems, err := quickCheckLines(ctx, conn)
	if errors.Is(err, storage.ErrCorrupt) {
		problems, err = append(problems, err.Error()), nil
	}
	if err != nil {
		return fmt.Errorf("sqlite: check %s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s fails SQLite's integrity check (%s); restore the data directory from a backup, "+
			"or recover what is readable with the sqlite3 shell's .recover command", storage.ErrCorrupt, path, strings.Join(problems, "; "))
	}
	return nil
}

// maxProblems is how many of quick_check's problems an error names.
const maxProblems = 5

// quickCheckLines returns the first problems PRAGMA quick_check reports
// (a row may hold several, one a line).
func quickCheckLines(ctx context.Context, conn *sql.Conn) ([]string, error) {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", maxProblems+1))
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return problems, mapErr(err)
		}
		for _, p := range strings.Split(line, "\n") {
			if p != "ok" && !strings.HasPrefix(p, "*** ") && len(problems) < maxProblems {
				problems = append(problems, p)
			}
		}
	}
	return problems, mapErr(rows.Err())
}
