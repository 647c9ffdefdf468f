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
