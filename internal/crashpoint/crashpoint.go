// Package crashpoint kills the process at a named point of its work when
// the environment asks for it, so that a test can check what a crash
// (kill -9) at exactly that point leaves behind: the server is started
// with EXTENDDB_CRASH_AT=<name> and dies with SIGKILL the first time it
// reaches Reach(name). Without the variable Reach does nothing.
package crashpoint

import (
	"os"
	"time"
)

// at is the point named by EXTENDDB_CRASH_AT, read once at start-up.
var at = os.Getenv("EXTENDDB_CRASH_AT")

// Reach kills the process with SIGKILL (no deferred function, no flush,
// no clean-up runs) if name is the point EXTENDDB_CRASH_AT names.
func Reach(name string) {
	if at == "" || at != name {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	time.Sleep(time.Hour) // the signal arrives meanwhile
}
