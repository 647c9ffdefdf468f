package api

import (
	"context"
	"math"
	"time"

	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/storage"
)

// ListBackups. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListBackups.html

type listBackupsInput struct {
	TableName               *string
	Limit                   *int64
	TimeRangeLowerBound     *float64
	TimeRangeUpperBound     *float64
	ExclusiveStartBackupArn *string
	BackupType              *string
}

type backupSummary struct {
	TableName              string
	TableId                string
	TableArn               string
	BackupArn              string
	BackupName             string
	BackupCreationDateTime epochSeconds
	BackupExpiryDateTime   *epochSeconds `json:"BackupExpiryDateTime,omitempty"`
	BackupStatus           string
	BackupType             string
	BackupSizeBytes        *int64 `json:"BackupSizeBytes,omitempty"`
}

type listBackupsOutput struct {
	BackupSummaries        []backupSummary
	LastEvaluatedBackupArn string `json:"LastEvaluatedBackupArn,omitempty"`
}

// epochTime converts a request's optional epoch-seconds number to a time
// (nil for nil).
func epochTime(s *float64) *time.Time {
	if s == nil {
		return nil
	}
	sec, frac := math.Modf(*s)
	t := time.Unix(int64(sec), int64(frac*1e9))
	return &t
}

var listBackupsOp = &controlOp[listBackupsInput]{
	rules: rules[listBackupsInput]{
		optionalTableNameRule(func(in *listBackupsInput) *string { return in.TableName }),
		rangeRule("limit", func(in *listBackupsInput) *int64 { return in.Limit }, 1, 100),
		lengthRule("exclusiveStartBackupArn", func(in *listBackupsInput) *string { return in.ExclusiveStartBackupArn }, 37, 1024, false),
		enumRule("backupType", func(in *listBackupsInput) *string { return in.BackupType }, []string{"USER", "SYSTEM", "AWS_BACKUP", "ALL"}),
	},
	check:   backupsConfigured[listBackupsInput],
	execute: (*Engine).listBackups,
}

func (e *Engine) listBackups(ctx context.Context, c caller, in *listBackupsInput, _ *storage.Table) (any, error) {
	all, err := e.backups.List(ctx, c.account)
	if err != nil {
		return nil, err
	}
	table := valueOrZero(in.TableName) // a name, or a table's ARN
	if name, ok := tableNameOfArn(table); ok {
		table = name
	}
	lower, upper := epochTime(in.TimeRangeLowerBound), epochTime(in.TimeRangeUpperBound)
	keep := func(b *backup.Backup) bool {
		switch {
		case in.BackupType != nil && *in.BackupType != "USER" && *in.BackupType != "ALL":
			return false // every backup here is a USER backup
		case table != "" && table != b.Params.Table.Name:
			return false
		case lower != nil && b.Params.CreatedAt.Before(*lower):
			return false // the lower bound is inclusive
		case upper != nil && !b.Params.CreatedAt.Before(*upper):
			return false // the upper bound is exclusive
		}
		return true
	}
	from := startAfter(all, valueOrZero(in.ExclusiveStartBackupArn), func(b *backup.Backup) string { return b.Params.BackupArn })
	page, more := listPage(from, keep, pageSize(in.Limit, 100), summaryOfBackup)
	out := listBackupsOutput{BackupSummaries: page}
	if more {
		out.LastEvaluatedBackupArn = page[len(page)-1].BackupArn
	}
	return out, nil
}

func summaryOfBackup(b *backup.Backup) backupSummary {
	d := detailsOf(b)
	return backupSummary{
		TableName: b.Params.Table.Name, TableId: b.Params.Table.ID, TableArn: b.Params.TableArn,
		BackupArn: d.BackupArn, BackupName: d.BackupName, BackupCreationDateTime: d.BackupCreationDateTime,
		BackupStatus: d.BackupStatus, BackupType: d.BackupType, BackupSizeBytes: d.BackupSizeBytes,
	}
}
