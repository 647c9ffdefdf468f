package partiql

import "sync"

// The statement cache maps statement text to its parse result, so that a
// statement sent again (with ? parameters, the usual case) skips lexing and
// parsing; planning still happens per request, against the request's
// parameters and the table's current schema. Parsed statements are never
// mutated, so they are shared freely. The cache is bounded: when full it is
// emptied.
const (
	stmtCacheSize    = 1024
	maxCachedStmtLen = 8192
)

type stmtCacheEntry struct {
	st  *Statement
	err error
}

var stmtCache = struct {
	sync.Mutex
	m map[string]stmtCacheEntry
}{m: make(map[string]stmtCacheEntry)}

// ParseCached is Parse through the statement cache.
func ParseCached(src string) (*Statement, error) {
	stmtCache.Lock()
	e, ok := stmtCache.m[src]
	stmtCache.Unlock()
	if ok {
		return e.st, e.err
	}
	e.st, e.err = Parse(src)
	if len(src) <= maxCachedStmtLen {
		stmtCache.Lock()
		if len(stmtCache.m) >= stmtCacheSize {
			stmtCache.m = make(map[string]stmtCacheEntry)
		}
		stmtCache.m[src] = e
		stmtCache.Unlock()
	}
	return e.st, e.err
}
