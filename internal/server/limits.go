package server

import (
	"time"

	"golang.org/x/sys/unix"
)

// HTTPLimits bounds what clients can hold of the server. Zero fields take
// the defaults of DefaultHTTPLimits; see docs/operations.md.
type HTTPLimits struct {
	ReadHeaderTimeout time.Duration // to read a request's headers (default 30 s)
	ReadTimeout       time.Duration // to read a whole request, body included (default 60 s)
	WriteTimeout      time.Duration // from the end of the headers to the end of the response (default 60 s)
	IdleTimeout       time.Duration // a keep-alive connection waiting for its next request (default 120 s)
	MaxConnections    int           // connections open at once; more wait to be accepted (default 1024)
	MemoryBudget      int64         // bytes of requests in flight; past it requests wait, then are throttled (default 512 MiB)
	AdmissionWait     time.Duration // how long a request waits for the memory budget (default 1 s)
}

// DefaultHTTPLimits are the limits used for zero fields of HTTPLimits.
var DefaultHTTPLimits = HTTPLimits{
	ReadHeaderTimeout: 30 * time.Second,
	ReadTimeout:       60 * time.Second,
	WriteTimeout:      60 * time.Second,
	IdleTimeout:       120 * time.Second,
	MaxConnections:    1024,
	MemoryBudget:      512 << 20,
	AdmissionWait:     time.Second,
}

// positiveOr is v, or d when v is not positive.
func positiveOr[T ~int | ~int64](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// withDefaults fills the zero fields of l from DefaultHTTPLimits.
func (l HTTPLimits) withDefaults() HTTPLimits {
	d := DefaultHTTPLimits
	l.ReadHeaderTimeout = positiveOr(l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	l.ReadTimeout = positiveOr(l.ReadTimeout, d.ReadTimeout)
	l.WriteTimeout = positiveOr(l.WriteTimeout, d.WriteTimeout)
	l.IdleTimeout = positiveOr(l.IdleTimeout, d.IdleTimeout)
	l.MaxConnections = positiveOr(l.MaxConnections, d.MaxConnections)
	l.MemoryBudget = positiveOr(l.MemoryBudget, d.MemoryBudget)
	l.AdmissionWait = positiveOr(l.AdmissionWait, d.AdmissionWait)
	return l
}

// MaxHeaderBytes bounds a request's line and headers (answered with HTTP
// 431 past it). A signed DynamoDB request's headers take a few KB, session
// tokens included; net/http's default of 1 MB let 1,024 connections hold a
// gigabyte of headers outside the memory budget. DynamoDB itself refuses a
// request line of 17,000 bytes with HTTP 400
// (https://github.com/scylladb/scylladb/pull/23442, run against DynamoDB).
const MaxHeaderBytes = 64 << 10

// maxDescriptorReserve is how many file descriptors are kept aside from
// client connections for storage (each SQLite reader holds three, each
// PostgreSQL or Cassandra connection one), logs and backups.
const maxDescriptorReserve = 256

// fitConnections returns the number of connections that fit in a process
// allowed nofile descriptors (RLIMIT_NOFILE) beside the storage's own:
// limit itself when it fits, else nofile less a reserve of
// min(maxDescriptorReserve, nofile/2). Past the descriptor limit, accept
// fails and, worse, storage cannot open the files a read needs, so requests
// fail; past MaxConnections, new connections only wait to be accepted.
func fitConnections(limit int, nofile uint64) int {
	if nofile == 0 || nofile >= uint64(limit)+maxDescriptorReserve {
		return limit
	}
	room := nofile - min(maxDescriptorReserve, nofile/2)
	return min(limit, int(max(room, 1)))
}

// descriptorLimit is the process's current RLIMIT_NOFILE (0 if unknown).
func descriptorLimit() uint64 {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return 0
	}
	return rl.Cur
}
