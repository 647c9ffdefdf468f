package api

import (
	"context"
	"errors"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
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
	source string // the source table's name, from SourceTableName or SourceTableArn
}

var restoreTableToPointInTimeOp = &controlOp[restoreTableToPointInTimeInput]{
	rules: rules[restoreTableToPointInTimeInput]{
		nameRule("sourceTableName", func(in *restoreTableToPointInTimeInput) *string { return in.SourceTableName }),
		requiredNameRule("targetTableName", func(in *restoreTableToPointInTimeInput) *string { return in.TargetTableName }),
		func(in *restoreTableToPointInTimeInput, c *constraints) { in.restoreOverrides.constraints(c) },
	},
	check:   (*Engine).checkPointInTimeRestore,
	table:   byBackupTable(func(in *restoreTableToPointInTimeInput) *string { return &in.source }),
	execute: (*Engine).restoreTableToPointInTime,
}

// checkPointInTimeRestore checks that the request names its source table
// and one time, keeping the source's name, and that backups are
// configured.
func (e *Engine) checkPointInTimeRestore(c caller, in *restoreTableToPointInTimeInput) error {
	switch {
	case in.SourceTableName != nil:
		in.source = *in.SourceTableName
	case in.SourceTableArn != nil:
		_, in.source, _ = strings.Cut(*in.SourceTableArn, ":table/")
	default:
		return invalid("Either SourceTableArn or SourceTableName must be specified")
	}
	useLatest := in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	if useLatest == (in.RestoreDateTime != nil) {
		return invalid("Exactly one of RestoreDateTime and UseLatestRestorableTime must be specified")
	}
	return backupsConfigured(e, c, in)
}

func (e *Engine) restoreTableToPointInTime(ctx context.Context, c caller, in *restoreTableToPointInTimeInput, src *storage.Table) (any, error) {
	if src.PointInTimeRecovery == nil {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html#API_RestoreTableToPointInTime_Errors
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '%s'", src.Name)
	}
	now := e.now()
	at := now
	if t := epochTime(in.RestoreDateTime); t != nil {
		at = *t
	}
	if at.Before(earliestRestorable(src.PointInTimeRecovery, now)) || at.After(now) {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html#API_RestoreTableToPointInTime_Errors
		return nil, ddberr.InvalidRestoreTime("Restore time is outside the restorable window of table '%s'", src.Name)
	}
	t, err := e.restoredTable(*in.TargetTableName, src, storage.RestoreSummary{
		SourceTableArn: e.tableArn(c.region, src), RestoreDateTime: at, InProgress: true}, &in.restoreOverrides)
	if err != nil {
		return nil, err
	}
	if err := e.checkTableLimit(ctx, c.account); err != nil {
		return nil, err
	}
	err = e.backups.RestoreToTime(ctx, c.account, src, at, t)
	if errors.Is(err, storage.ErrTableExists) {
		return nil, ddberr.TableAlreadyExists("Table already exists: %s", t.Name)
	}
	if err != nil {
		return nil, err
	}
	return e.restoredOutput(ctx, c.region, t)
}
