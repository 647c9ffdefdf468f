package api

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Continuous backups: UpdateContinuousBackups and
// DescribeContinuousBackups. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContinuousBackups.html
// and docs/backups.md (what point in time recovery does here).

// defaultRecoveryPeriodDays is RecoveryPeriodInDays when enabling names
// none: DynamoDB reports 35 (https://github.com/getmoto/moto/issues/9902).
const defaultRecoveryPeriodDays = 35

type pitrSpecification struct {
	PointInTimeRecoveryEnabled *bool
	RecoveryPeriodInDays       *int64
}

type updateContinuousBackupsInput struct {
	TableName                        *string
	PointInTimeRecoverySpecification *pitrSpecification
}

type pitrDescription struct {
	PointInTimeRecoveryStatus  string
	RecoveryPeriodInDays       int           `json:"RecoveryPeriodInDays,omitempty"`
	EarliestRestorableDateTime *epochSeconds `json:"EarliestRestorableDateTime,omitempty"`
	LatestRestorableDateTime   *epochSeconds `json:"LatestRestorableDateTime,omitempty"`
}

type continuousBackupsDescription struct {
	ContinuousBackupsStatus        string
	PointInTimeRecoveryDescription pitrDescription
}

type continuousBackupsOutput struct {
	ContinuousBackupsDescription continuousBackupsDescription
}

// continuousBackupsOf describes t's setting at now. On-demand backups are
// always available, so ContinuousBackupsStatus is always ENABLED, as in
// DynamoDB. The earliest restorable time is when recovery was enabled, or
// the start of the recovery window if that is later; the latest is now.
func continuousBackupsOf(t *storage.Table, now time.Time) continuousBackupsOutput {
	d := continuousBackupsDescription{ContinuousBackupsStatus: "ENABLED",
		PointInTimeRecoveryDescription: pitrDescription{PointInTimeRecoveryStatus: "DISABLED"}}
	if p := t.PointInTimeRecovery; p != nil {
		e, l := epochSeconds(earliestRestorable(p, now)), epochSeconds(now)
		d.PointInTimeRecoveryDescription = pitrDescription{PointInTimeRecoveryStatus: "ENABLED",
			RecoveryPeriodInDays: p.RecoveryPeriodInDays, EarliestRestorableDateTime: &e, LatestRestorableDateTime: &l}
	}
	return continuousBackupsOutput{d}
}

// earliestRestorable is the start of the window a point in time restore
// may restore to: EnabledAt (from when the change history is complete) or
// the start of the recovery period, whichever is later, and never after
// now. The history pruner (internal/workers) keeps the history of that
// window on every backend.
func earliestRestorable(p *storage.PointInTimeRecovery, now time.Time) time.Time {
	earliest := p.EnabledAt
	if start := now.AddDate(0, 0, -p.RecoveryPeriodInDays); start.After(earliest) {
		earliest = start
	}
	if earliest.After(now) {
		earliest = now
	}
	return earliest
}

// backupTable reads the table a continuous backups operation names; a
// missing table is TableNotFoundException "Table not found: <name>", as
// https://github.com/nccgroup/ScoutSuite/issues/1533 and
// https://github.com/hashicorp/terraform-provider-aws/issues/26577 quote.
func (e *Engine) backupTable(ctx context.Context, account, name string) (*storage.Table, error) {
	t, err := e.lookup(ctx, account, name, lookupControl)
	if ddberr.Is(err, "ResourceNotFoundException") {
		return nil, ddberr.TableNotFound("Table not found: %s", name)
	}
	return t, err
}

// byBackupTable resolves the table a TableName member names (a name or a
// table ARN) as backupTable does.
func byBackupTable[T any](name func(*T) *string) resolver[T] {
	return func(e *Engine, ctx context.Context, c caller, in *T) (*storage.Table, error) {
		return e.backupTable(ctx, c.account, *name(in))
	}
}

var describeContinuousBackupsOp = &controlOp[tableNameInput]{
	rules:   tableNameRules,
	table:   byBackupTable(tableNameOf),
	execute: (*Engine).describeContinuousBackups,
}

func (e *Engine) describeContinuousBackups(_ context.Context, _ caller, _ *tableNameInput, t *storage.Table) (any, error) {
	return continuousBackupsOf(t, e.now()), nil
}

var updateContinuousBackupsOp = &controlOp[updateContinuousBackupsInput]{
	rules:   rules[updateContinuousBackupsInput]{tableNameRule(func(in *updateContinuousBackupsInput) *string { return in.TableName }), pitrSpecificationRule},
	table:   byBackupTable(func(in *updateContinuousBackupsInput) *string { return in.TableName }),
	execute: (*Engine).updateContinuousBackups,
}

func pitrSpecificationRule(in *updateContinuousBackupsInput, c *constraints) {
	if spec := in.PointInTimeRecoverySpecification; c.notNull(spec != nil, "pointInTimeRecoverySpecification") {
		c.notNull(spec.PointInTimeRecoveryEnabled != nil, "pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled")
		c.intRange(spec.RecoveryPeriodInDays, "pointInTimeRecoverySpecification.recoveryPeriodInDays", 1, 35)
	}
}

func (e *Engine) updateContinuousBackups(ctx context.Context, c caller, in *updateContinuousBackupsInput, found *storage.Table) (any, error) {
	account, name := c.account, found.Name // TableName may be the table's ARN
	spec := in.PointInTimeRecoverySpecification
	now := e.now()
	t, err := e.store.UpdateTable(ctx, account, name, func(t *storage.Table) error {
		switch {
		case !*spec.PointInTimeRecoveryEnabled:
			t.PointInTimeRecovery = nil
		case t.PointInTimeRecovery == nil:
			t.PointInTimeRecovery = &storage.PointInTimeRecovery{RecoveryPeriodInDays: defaultRecoveryPeriodDays, EnabledAt: now}
		}
		if p := t.PointInTimeRecovery; p != nil && spec.RecoveryPeriodInDays != nil {
			// The history older than the old window may be pruned
			// already: a longer period grows the window from its
			// current start on, never back over what is gone.
			p.EnabledAt = earliestRestorable(p, now)
			p.RecoveryPeriodInDays = int(*spec.RecoveryPeriodInDays)
		}
		return nil
	})
	if err == storage.ErrTableNotFound {
		return nil, ddberr.TableNotFound("Table not found: %s", *in.TableName)
	}
	if err != nil {
		return nil, err
	}
	e.forget(account, name)
	return continuousBackupsOf(t, now), nil
}
