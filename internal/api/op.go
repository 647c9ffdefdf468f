package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// tableOp is a DynamoDB operation on one table, declared as its steps: the
// member rules of its request, the semantic checks that need no table (in
// DynamoDB's order; they may keep what they parse in the request), how its
// table is resolved, and what it does with the table. One adapter (handler)
// runs the steps, so every such operation decodes, validates and resolves
// its table the same way, once.
type tableOp[T any] struct {
	rules   rules[T]
	check   func(e *Engine, in *T) error
	table   func(in *T) string
	mode    lookupMode
	execute func(e *Engine, ctx context.Context, in *T, t *storage.Table) (any, error)
	// access describes the request to the realism effects (realism.go);
	// nil for an operation they leave alone.
	access func(in *T) access
}

// handler adapts the operation to the protocol: decode the body, then run.
func (o *tableOp[T]) handler() opFunc { return decoded(o.run) }

// run performs the operation on a decoded request for an account: member
// rules, semantic checks, table, execution. It is the entry point for
// callers other than the JSON protocol (PartiQL statements build the same
// input structs).
func (o *tableOp[T]) run(e *Engine, ctx context.Context, account string, in *T) (any, error) {
	if err := o.rules.check(in); err != nil {
		return nil, err
	}
	if o.check != nil {
		if err := o.check(e, in); err != nil {
			return nil, err
		}
	}
	t, err := e.lookup(ctx, account, o.table(in), o.mode)
	if err != nil {
		return nil, err
	}
	if e.realism != nil && o.access != nil {
		return e.realisticRun(ctx, t, o.access(in), func() (any, error) { return o.execute(e, ctx, in, t) })
	}
	return o.execute(e, ctx, in, t)
}

// decoded adapts an operation that takes a decoded request and the caller's
// account (an operation over several tables) to the protocol.
func decoded[T any](run func(e *Engine, ctx context.Context, account string, in *T) (any, error)) opFunc {
	return func(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
		in := new(T)
		if err := decode(r.Body, in); err != nil {
			return nil, err
		}
		return run(e, ctx, e.account(r), in)
	}
}

// decodeChecked decodes a request body into a new T and checks it against
// the operation's member rules: the prologue of the operations over several
// tables (transactions, PartiQL), which resolve their tables themselves.
func decodeChecked[T any](body []byte, rs rules[T]) (*T, error) {
	in := new(T)
	if err := decode(body, in); err != nil {
		return nil, err
	}
	if err := rs.check(in); err != nil {
		return nil, err
	}
	return in, nil
}

// sharedMembers are the members several item operations share (S is
// conditionalWrite or readInput), embedded in each one's request: their
// rules by path, the table they name and what a request does as the
// realism effects see it.
type sharedMembers[S any] struct {
	rules  map[string]rule[S]
	table  func(*S) *string
	access func(*S) access
}

// embeds is a pointer to a request T that embeds the shared members S,
// which it reaches through the promoted method members.
type embeds[T, S any] interface {
	*T
	members() *S
}

// itemOp declares an item operation whose request T embeds the shared
// members m: its members' rules in the order DynamoDB reports them
// (orderedRules, own holding the rules of its own members), its checks
// before the table, and its execution on the table the request names,
// found as the item operations find it.
func itemOp[T, S any, PT embeds[T, S]](m sharedMembers[S], order string, own map[string]rule[T],
	check func(*Engine, *T) error, execute func(*Engine, context.Context, *T, *storage.Table) (any, error)) *tableOp[T] {
	get := func(in *T) *S { return PT(in).members() }
	return &tableOp[T]{
		rules:   orderedRules(order, get, m.rules, own),
		check:   check,
		table:   func(in *T) string { return *m.table(get(in)) },
		mode:    lookupData,
		execute: execute,
		access:  func(in *T) access { return m.access(get(in)) },
	}
}
