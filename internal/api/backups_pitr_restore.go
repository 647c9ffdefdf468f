package api

import (
	"context"
	"errors"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// RestoreTableToPointInTime. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html
// and docs/backups.md (the change history it restores from).

type restoreTableToPointInTimeInput struct {
	SourceTableArn          *string
	SourceTableName         *string
	TargetTableName         *string
	UseLatestRestorableTime *bool
	RestoreDateTime         *float64
	restoreOverrides
}

func (e *Engine) restoreTableToPointInTime(ctx context.Context, r *protocol.Request) (any, error) {
	var in restoreTableToPointInTimeInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if in.SourceTableName != nil {
		c.name(in.SourceTableName, "sourceTableName")
	}
	if c.notNull(in.TargetTableName != nil, "targetTableName") {
		c.name(in.TargetTableName, "targetTableName")
	}
	in.constraints(&c)
	if err := c.err(); err != nil {
		return nil, err
	}
	source := ""
	switch {
	case in.SourceTableName != nil:
		source = *in.SourceTableName
	case in.SourceTableArn != nil:
		_, source, _ = strings.Cut(*in.SourceTableArn, ":table/")
	default:
		return nil, invalid("Either SourceTableArn or SourceTableName must be specified")
	}
	useLatest := in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	if useLatest == (in.RestoreDateTime != nil) {
		return nil, invalid("Exactly one of RestoreDateTime and UseLatestRestorableTime must be specified")
	}
	svc, err := e.backupService()
	if err != nil {
		return nil, err
	}
	account := e.account(r)
	src, err := e.backupTable(ctx, account, source)
	if err != nil {
		return nil, err
	}
	if src.PointInTimeRecovery == nil {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html#API_RestoreTableToPointInTime_Errors
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '%s'", src.Name)
	}
	now := e.now()
	at := now
	if !useLatest {
		at = epochTime(*in.RestoreDateTime)
	}
	if at.Before(earliestRestorable(src.PointInTimeRecovery, now)) || at.After(now) {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html#API_RestoreTableToPointInTime_Errors
		return nil, ddberr.InvalidRestoreTime("Restore time is outside the restorable window of table '%s'", src.Name)
	}
	t, err := e.restoredTable(*in.TargetTableName, src, storage.RestoreSummary{
		SourceTableArn: e.tableArn(r.Caller.Region, src), RestoreDateTime: at, InProgress: true}, &in.restoreOverrides)
	if err != nil {
		return nil, err
	}
	if err := e.checkTableLimit(ctx, account); err != nil {
		return nil, err
	}
	err = svc.RestoreToTime(ctx, account, src, at, t)
	if errors.Is(err, storage.ErrTableExists) {
		return nil, ddberr.TableAlreadyExists("Table already exists: %s", t.Name)
	}
	if err != nil {
		return nil, err
	}
	return e.restoredOutput(ctx, r, t)
}
