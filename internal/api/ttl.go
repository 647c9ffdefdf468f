package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/storage"
)

// UpdateTimeToLive and DescribeTimeToLive. Enabling or disabling returns
// once the catalog change is durable and, for a small table, once the
// existing items are registered (ENABLING -> ENABLED) or their expiry rows
// removed (DISABLING -> DISABLED) inline; a larger table reports ENABLING or
// DISABLING while a background worker (internal/workers TTL) completes it.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html

// SetTTLWorker registers kick, called after every accepted
// UpdateTimeToLive so that the backfill or drain starts at once.
func (e *Engine) SetTTLWorker(kick func()) { e.ttlKick.Store(&kick) }

// SetTTLSettler registers settle, which UpdateTimeToLive calls with the
// table it changed to finish its backfill or drain inline within a small
// budget; it reports whether it did (workers.TTL.Settle). Without one
// every transition is left to the worker.
func (e *Engine) SetTTLSettler(settle func(context.Context, *storage.Table) bool) {
	e.ttlSettle.Store(&settle)
}

// settleTTL finishes t's TTL transition inline when it is small enough,
// and otherwise wakes the worker.
func (e *Engine) settleTTL(ctx context.Context, t *storage.Table) {
	if s := e.ttlSettle.Load(); s != nil && (*s)(ctx, t) {
		e.forget(t.Account, t.Name)
		return
	}
	e.kickTTL()
}

func (e *Engine) kickTTL() {
	if k := e.ttlKick.Load(); k != nil {
		(*k)()
	}
}

type timeToLiveSpecification struct {
	Enabled       *bool
	AttributeName *string
}

type updateTimeToLiveInput struct {
	TableName               *string
	TimeToLiveSpecification *timeToLiveSpecification
}

type ttlSpecOut struct {
	AttributeName string
	Enabled       bool
}

var updateTimeToLiveOp = &controlOp[updateTimeToLiveInput]{
	rules:   updateTimeToLiveRules,
	table:   activeTable(func(in *updateTimeToLiveInput) *string { return in.TableName }),
	execute: (*Engine).updateTimeToLive,
}

// activeTable resolves the table a TableName member names from the
// catalog (lookupActive): a table being created or deleted is not found.
func activeTable[T any](name func(*T) *string) resolver[T] {
	return func(e *Engine, ctx context.Context, c caller, in *T) (*storage.Table, error) {
		return e.lookup(ctx, c.account, *name(in), lookupActive)
	}
}

func (e *Engine) updateTimeToLive(ctx context.Context, _ caller, in *updateTimeToLiveInput, cur *storage.Table) (any, error) {
	enable, attr := *in.TimeToLiveSpecification.Enabled, *in.TimeToLiveSpecification.AttributeName
	t, err := e.updateCatalog(ctx, cur, func(t *storage.Table) error {
		if err := ttlGate(t.TTL, enable, attr); err != nil {
			return err
		}
		t.TTL = ttlApply(t.TTL, enable, attr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.settleTTL(ctx, t)
	return map[string]ttlSpecOut{"TimeToLiveSpecification": {AttributeName: attr, Enabled: enable}}, nil
}

type ttlDescription struct {
	TimeToLiveStatus string
	AttributeName    string `json:"AttributeName,omitempty"`
}

var describeTimeToLiveOp = namedTableOp((*Engine).describeTimeToLive)

func (e *Engine) describeTimeToLive(_ context.Context, _ caller, _ *tableNameInput, t *storage.Table) (any, error) {
	d := ttlDescription{TimeToLiveStatus: t.TTL.Status, AttributeName: t.TTL.AttributeName}
	if d.TimeToLiveStatus == "" {
		d.TimeToLiveStatus = storage.TTLDisabled
	}
	if d.TimeToLiveStatus == storage.TTLDisabled {
		d.AttributeName = ""
	}
	return map[string]ttlDescription{"TimeToLiveDescription": d}, nil
}

// The TTL operations' member constraints, in DynamoDB's order
// (validation_tags_test.go, TestValidationTimeToLive, lists the sources).
var (
	updateTimeToLiveRules = rules[updateTimeToLiveInput]{
		tableNameRule(func(in *updateTimeToLiveInput) *string { return in.TableName }),
		func(in *updateTimeToLiveInput, c *constraints) {
			spec := in.TimeToLiveSpecification
			if !c.notNull(spec != nil, "timeToLiveSpecification") {
				return
			}
			c.notNull(spec.Enabled != nil, "timeToLiveSpecification.enabled")
			if c.notNull(spec.AttributeName != nil, "timeToLiveSpecification.attributeName") {
				c.lenRange(spec.AttributeName, "timeToLiveSpecification.attributeName", 1, 255)
			}
		},
	}
)
