package expr

import (
	"sync"

	"github.com/extenddb/extenddb/internal/item"
)

// Cache maps (kind, expression text) to the parse result, so a request
// repeating an expression skips lexing and parsing; binding to the request's
// names and values still happens per request. Syntax trees are never mutated
// after parsing, so they are shared freely. A Cache is bounded: when full it
// is emptied. It is safe for concurrent use; its owner (the API engine) keeps
// one, and the package-level Parse functions parse without one.
type Cache struct {
	size int
	mu   sync.Mutex
	m    map[cacheKey]cacheEntry
}

// DefaultCacheSize is the number of expressions a Cache holds by default.
const DefaultCacheSize = 1024

type cacheKey struct {
	kind Kind
	text string
}

type cacheEntry struct {
	syn *syntax
	err error
}

// NewCache returns a Cache of up to size expressions (DefaultCacheSize when
// size <= 0).
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{size: size, m: make(map[cacheKey]cacheEntry)}
}

// ParseCondition is the package's ParseCondition through the cache.
func (c *Cache) ParseCondition(kind Kind, expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage) (*Condition, error) {
	root, err := c.bindCondition(kind, expression, names, values, usage)
	if err != nil {
		return nil, err
	}
	return &Condition{root: root}, nil
}

// syntax returns the syntax tree of expression, parsing it on a miss. A nil
// Cache parses every time.
func (c *Cache) syntax(kind Kind, expression string) (*syntax, error) {
	k := cacheKey{kind, expression}
	if c != nil {
		c.mu.Lock()
		e, ok := c.m[k]
		c.mu.Unlock()
		if ok {
			return e.syn, e.err
		}
	}
	var e cacheEntry
	switch kind {
	case KindUpdate:
		e.syn, e.err = parseUpdateSyntax(expression)
	case KindProjection:
		e.syn, e.err = parseProjectionSyntax(expression)
	default:
		e.syn, e.err = parseConditionSyntax(expression, kind)
	}
	if c != nil && len(expression) <= MaxExpressionSize {
		c.mu.Lock()
		if len(c.m) >= c.size {
			c.m = make(map[cacheKey]cacheEntry)
		}
		c.m[k] = e
		c.mu.Unlock()
	}
	return e.syn, e.err
}
