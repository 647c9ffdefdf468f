package api

import (
	"context"
	"math"
	"time"

	"github.com/extenddb/extenddb/internal/protocol"
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

// epochTime converts a request's epoch-seconds number to a time.
func epochTime(s float64) time.Time {
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e9))
}

func (e *Engine) listBackups(ctx context.Context, r *protocol.Request) (any, error) {
	var in listBackupsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if in.TableName != nil {
		c.name(in.TableName, "tableName")
	}
	c.intRange(in.Limit, "limit", 1, 100)
	if in.ExclusiveStartBackupArn != nil {
		c.lenRange(in.ExclusiveStartBackupArn, "exclusiveStartBackupArn", 37, 1024)
	}
	c.enum(in.BackupType, "backupType", "USER", "SYSTEM", "AWS_BACKUP", "ALL")
	if err := c.err(); err != nil {
		return nil, err
	}
	svc, err := e.backupService()
	if err != nil {
		return nil, err
	}
	all, err := svc.List(ctx, e.account(r))
	if err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	out := listBackupsOutput{BackupSummaries: []backupSummary{}}
	started := in.ExclusiveStartBackupArn == nil
	for _, b := range all {
		if !started {
			started = b.Params.BackupArn == *in.ExclusiveStartBackupArn
			continue
		}
		switch {
		case in.BackupType != nil && *in.BackupType != "USER" && *in.BackupType != "ALL":
			continue // every backup here is a USER backup
		case in.TableName != nil && *in.TableName != b.Params.Table.Name:
			continue
		case in.TimeRangeLowerBound != nil && b.Params.CreatedAt.Before(epochTime(*in.TimeRangeLowerBound)):
			continue // the lower bound is inclusive
		case in.TimeRangeUpperBound != nil && !b.Params.CreatedAt.Before(epochTime(*in.TimeRangeUpperBound)):
			continue // the upper bound is exclusive
		}
		if len(out.BackupSummaries) == limit {
			out.LastEvaluatedBackupArn = out.BackupSummaries[limit-1].BackupArn
			break
		}
		d := detailsOf(b)
		out.BackupSummaries = append(out.BackupSummaries, backupSummary{
			TableName: b.Params.Table.Name, TableId: b.Params.Table.ID, TableArn: b.Params.TableArn,
			BackupArn: d.BackupArn, BackupName: d.BackupName, BackupCreationDateTime: d.BackupCreationDateTime,
			BackupStatus: d.BackupStatus, BackupType: d.BackupType, BackupSizeBytes: d.BackupSizeBytes,
		})
	}
	return out, nil
}
