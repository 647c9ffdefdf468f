package expr

import "sync"

// The syntax cache maps (kind, expression text) to the parse result, so a
// request repeating an expression skips lexing and parsing; binding to the
// request's names and values still happens per request. Syntax trees are
// never mutated after parsing, so they are shared freely. The cache is
// bounded: when full it is emptied.
const syntaxCacheSize = 1024

type cacheKey struct {
	kind Kind
	text string
}

type cacheEntry struct {
	syn *syntax
	err error
}

var syntaxCache = struct {
	sync.Mutex
	m map[cacheKey]cacheEntry
}{m: make(map[cacheKey]cacheEntry)}

// cachedSyntax returns the syntax tree of expression, parsing it on a miss.
func cachedSyntax(kind Kind, expression string) (*syntax, error) {
	k := cacheKey{kind, expression}
	syntaxCache.Lock()
	e, ok := syntaxCache.m[k]
	syntaxCache.Unlock()
	if ok {
		return e.syn, e.err
	}
	switch kind {
	case KindUpdate:
		e.syn, e.err = parseUpdateSyntax(expression)
	case KindProjection:
		e.syn, e.err = parseProjectionSyntax(expression)
	default:
		e.syn, e.err = parseConditionSyntax(expression, kind)
	}
	if len(expression) <= MaxExpressionSize {
		syntaxCache.Lock()
		if len(syntaxCache.m) >= syntaxCacheSize {
			syntaxCache.m = make(map[cacheKey]cacheEntry)
		}
		syntaxCache.m[k] = e
		syntaxCache.Unlock()
	}
	return e.syn, e.err
}
