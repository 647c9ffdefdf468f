package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/extenddb/extenddb/internal/server"
)

// addLimitFlags declares the flags of the HTTP front end's limits
// (server.HTTPLimits); see docs/operations.md "Limits and resource use".
func addLimitFlags(f *pflag.FlagSet) {
	d := server.DefaultHTTPLimits
	f.Duration("http-read-timeout", d.ReadTimeout, "longest time to receive a whole request, body included")
	f.Duration("http-write-timeout", d.WriteTimeout, "longest time from a request's headers to the end of its response")
	f.Duration("http-idle-timeout", d.IdleTimeout, "how long an idle keep-alive connection is kept open")
	f.Int("max-connections", d.MaxConnections, "client connections served at once; more wait to be accepted")
	f.Int("request-memory-mib", int(d.MemoryBudget>>20), "memory (MiB) requests in flight may hold; past it they wait, then get ThrottlingException")
	f.Duration("admission-wait", d.AdmissionWait, "how long a request waits for the request memory budget before ThrottlingException")
}

// checkLimits refuses limits that cannot be meant: every one must be positive.
func checkLimits(l server.HTTPLimits) []string {
	var errs []string
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"http-read-timeout", int64(l.ReadTimeout)},
		{"http-write-timeout", int64(l.WriteTimeout)},
		{"http-idle-timeout", int64(l.IdleTimeout)},
		{"max-connections", int64(l.MaxConnections)},
		{"request-memory-mib", l.MemoryBudget},
		{"admission-wait", int64(l.AdmissionWait)},
	} {
		if c.v <= 0 {
			errs = append(errs, fmt.Sprintf("%s: must be positive", c.name))
		}
	}
	return errs
}
