package server

import "time"

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

// withDefaults fills the zero fields of l from DefaultHTTPLimits.
func (l HTTPLimits) withDefaults() HTTPLimits {
	d := DefaultHTTPLimits
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = d.ReadHeaderTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = d.ReadTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = d.WriteTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxConnections <= 0 {
		l.MaxConnections = d.MaxConnections
	}
	if l.MemoryBudget <= 0 {
		l.MemoryBudget = d.MemoryBudget
	}
	if l.AdmissionWait <= 0 {
		l.AdmissionWait = d.AdmissionWait
	}
	return l
}
