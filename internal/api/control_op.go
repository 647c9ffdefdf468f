package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// controlOp is a control-plane operation (or a DynamoDB Streams one),
// declared as its steps like tableOp: a check DynamoDB makes before the
// member rules (first, rarely needed), the member rules, the semantic
// checks that need no table (in DynamoDB's order; they keep what they
// parse in the request), how its table is resolved (table: by TableName,
// by resource ARN, by stream ARN; nil for an operation on no table or on
// several), and what it does. One adapter (handler) runs the steps, so
// every such operation decodes, validates and resolves its table the same
// way, once (docs/adr/0008c).
type controlOp[T any] struct {
	first   func(in *T) error
	rules   rules[T]
	check   func(e *Engine, c caller, in *T) error
	table   resolver[T]
	execute func(e *Engine, ctx context.Context, c caller, in *T, t *storage.Table) (any, error)
}

// resolver finds the table a decoded, checked request is addressed to,
// with the operation's own answer when there is none.
type resolver[T any] func(e *Engine, ctx context.Context, c caller, in *T) (*storage.Table, error)

// caller is what a control-plane operation knows of the request beside
// its input: the storage namespace of the caller's account
// (Engine.account), the region it called and the host it reached.
type caller struct {
	account, region, host string
}

// handler adapts the operation to the protocol: decode the body, then run.
func (o *controlOp[T]) handler() opFunc {
	return func(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
		in := new(T)
		if err := decode(r.Body, in); err != nil {
			return nil, err
		}
		return o.run(e, ctx, caller{account: e.account(r), region: r.Caller.Region, host: r.Host}, in)
	}
}

// run performs the operation's steps on a decoded request, in order.
func (o *controlOp[T]) run(e *Engine, ctx context.Context, c caller, in *T) (any, error) {
	if o.first != nil {
		if err := o.first(in); err != nil {
			return nil, err
		}
	}
	if err := o.rules.check(in); err != nil {
		return nil, err
	}
	if o.check != nil {
		if err := o.check(e, c, in); err != nil {
			return nil, err
		}
	}
	var t *storage.Table
	if o.table != nil {
		var err error
		if t, err = o.table(e, ctx, c, in); err != nil {
			return nil, err
		}
	}
	return o.execute(e, ctx, c, in, t)
}

// byTableName resolves the table a TableName member names (a name or a
// table ARN, already checked by tableNameRule) from the catalog, in any
// status: a missing table is "Requested resource not found: Table: NAME
// not found".
func byTableName[T any](name func(*T) *string) resolver[T] {
	return func(e *Engine, ctx context.Context, c caller, in *T) (*storage.Table, error) {
		return e.lookup(ctx, c.account, *name(in), lookupControl)
	}
}

// tableNameInput is the input of the operations whose only member is
// TableName: DescribeTable, DeleteTable, DescribeTimeToLive,
// DescribeContinuousBackups, DescribeTableReplicaAutoScaling...
type tableNameInput struct {
	TableName *string
}

// tableNameRules are the member rules of a tableNameInput.
var tableNameRules = rules[tableNameInput]{tableNameRule(tableNameOf)}

func tableNameOf(in *tableNameInput) *string { return in.TableName }

// namedTableOp is an operation whose input is only a TableName, on the
// table it names.
func namedTableOp(execute func(e *Engine, ctx context.Context, c caller, in *tableNameInput, t *storage.Table) (any, error)) *controlOp[tableNameInput] {
	return &controlOp[tableNameInput]{rules: tableNameRules, table: byTableName(tableNameOf), execute: execute}
}

// resourceArnInput is the ResourceArn member of the tagging and
// resource-based policy operations, with the resource it names once
// parsed (parseTable or parsePolicy, in the operation's check).
type resourceArnInput struct {
	ResourceArn *string
	target      policyTarget
}

// arnTarget gives a resolver the parsed resource of an input that embeds
// resourceArnInput.
func (in *resourceArnInput) arnTarget() *resourceArnInput { return in }

// parseTable reads ResourceArn as a table's ARN (tableArnName).
func (in *resourceArnInput) parseTable() error {
	name, account, err := tableArnName(*in.ResourceArn)
	if err != nil {
		return err
	}
	in.target = policyTarget{arn: *in.ResourceArn, table: name, account: account}
	return nil
}

// parsePolicy reads ResourceArn as a table's or a stream's ARN
// (parsePolicyTarget).
func (in *resourceArnInput) parsePolicy() error {
	p, err := parsePolicyTarget(*in.ResourceArn)
	in.target = p
	return err
}

// byResourceArn resolves the table of a parsed ResourceArn in the caller's
// account; notFound is the operation's answer when the table, or the
// stream the ARN names, does not exist.
func byResourceArn[T any, P interface {
	*T
	arnTarget() *resourceArnInput
}](notFound func(p policyTarget) error) resolver[T] {
	return func(e *Engine, ctx context.Context, c caller, in *T) (*storage.Table, error) {
		p := P(in).arnTarget().target
		t, err := e.resolveArn(ctx, c.account, p.table, p.account, notFound(p))
		if err != nil {
			return nil, err
		}
		if p.label != "" && p.label != t.LatestStreamLabel {
			return nil, errStreamNotFound(p.arn)
		}
		return t, nil
	}
}

// resolveArn finds the table a resource ARN of the caller's account names,
// given the name and account read from the ARN; notFound is the
// operation's answer when there is none.
func (e *Engine) resolveArn(ctx context.Context, account, name, arnAccount string, notFound error) (*storage.Table, error) {
	if arnAccount != storage.NamespaceAccount(account) {
		return nil, notFound
	}
	t, err := e.lookup(ctx, account, name, lookupControl)
	if err != nil {
		if ddberr.Is(err, "ResourceNotFoundException") {
			return nil, notFound
		}
		return nil, err
	}
	return t, nil
}
