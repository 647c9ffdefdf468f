package api

import (
	"strings"
	"sync"
)

// Declarative member constraints. Each operation declares its request's
// members and their model constraints (required, length, pattern, enum,
// minimum, maximum) as one table of rules, in the order DynamoDB reports
// them; one validator (rules.check) runs the table and aggregates the
// violations as DynamoDB does ("1 validation error detected: ..." or
// "N validation errors detected: a; b", at most ten). Semantic checks come
// after, in each operation's own order.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html (ValidationException)

// rule checks one member of a request of type T, adding its violations to c.
type rule[T any] func(in *T, c *constraints)

// rules is an operation's table of member constraints.
type rules[T any] []rule[T]

// check runs every rule and returns the violations as one
// ValidationException, or nil.
func (rs rules[T]) check(in *T) error {
	// The collector passes through function values, so it would escape to
	// the heap on every request; it is reused instead.
	c := constraintsPool.Get().(*constraints)
	for _, r := range rs {
		r(in, c)
	}
	err := c.err()
	c.msgs = c.msgs[:0]
	constraintsPool.Put(c)
	return err
}

var constraintsPool = sync.Pool{New: func() any { return new(constraints) }}

// required is a member that must be present: "Value null at 'path' failed
// to satisfy constraint: Member must not be null".
func required[T any](path string, present func(*T) bool) rule[T] {
	return func(in *T, c *constraints) { c.notNull(present(in), path) }
}

// tableNameRule is the TableName of an operation on an existing table: a
// name or a table ARN (constraints.tableRef).
func tableNameRule[T any](get func(*T) *string) rule[T] {
	return func(in *T, c *constraints) { c.tableRef(get(in), "tableName") }
}

// optionalTableNameRule is a TableName member that may be absent: when
// present, a table's name or ARN (tableNameRule).
func optionalTableNameRule[T any](get func(*T) *string) rule[T] {
	return func(in *T, c *constraints) {
		if s := get(in); s != nil {
			c.tableRef(s, "tableName")
		}
	}
}

// enumRule is a string member limited to a value set, listed in DynamoDB's
// order.
func enumRule[T any](path string, get func(*T) *string, allowed []string) rule[T] {
	return func(in *T, c *constraints) { c.enum(get(in), path, allowed...) }
}

// minRule is an integer member with a lower bound.
func minRule[T any](path string, get func(*T) *int64, min int64) rule[T] {
	return func(in *T, c *constraints) { c.minInt(get(in), path, min) }
}

// maxRule is an integer member with an upper bound.
func maxRule[T any](path string, get func(*T) *int64, max int64) rule[T] {
	return func(in *T, c *constraints) { c.maxInt(get(in), path, max) }
}

// rangeRule is an integer member with both bounds.
func rangeRule[T any](path string, get func(*T) *int64, min, max int64) rule[T] {
	return func(in *T, c *constraints) { c.intRange(get(in), path, min, max) }
}

// attributesToGetRule is a legacy AttributesToGet list: 1 to 255 names.
func attributesToGetRule[T any](get func(*T) []string) rule[T] {
	return func(in *T, c *constraints) { attributesToGetConstraint(c, get(in)) }
}

// lengthRule is a string member of min to max bytes; required adds the
// not-null constraint before it.
func lengthRule[T any](path string, get func(*T) *string, min, max int, required bool) rule[T] {
	return func(in *T, c *constraints) {
		s := get(in)
		if required && !c.notNull(s != nil, path) {
			return
		}
		c.lenRange(s, path, min, max)
	}
}

// nameRule is an optional table or index name: 3 to 255 characters of
// [a-zA-Z0-9_.-].
func nameRule[T any](path string, get func(*T) *string) rule[T] {
	return func(in *T, c *constraints) { c.name(get(in), path) }
}

// orderedRules builds the rule table of an operation whose request embeds
// members it shares with other operations (S, reached through get), from
// the order in which DynamoDB reports its members: order lists their
// paths, separated by spaces. A member's rule is the operation's own, from
// own, or else the shared one, from shared; a path with neither is a
// mistake in the declaration, which panics when the package loads.
func orderedRules[T, S any](order string, get func(*T) *S, shared map[string]rule[S], own map[string]rule[T]) rules[T] {
	var rs rules[T]
	for _, path := range strings.Fields(order) {
		if r, ok := own[path]; ok {
			rs = append(rs, r)
			continue
		}
		r, ok := shared[path]
		if !ok {
			panic("api: no rule for member " + path)
		}
		rs = append(rs, func(in *T, c *constraints) { r(get(in), c) })
	}
	return rs
}
