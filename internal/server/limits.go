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
