package api

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// On-demand backups: CreateBackup, DescribeBackup, ListBackups and
// DeleteBackup (this file) and RestoreTableFromBackup (backups_restore.go),
// served by internal/backup. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Backup-and-Restore.html

type backupDetails struct {
	BackupArn              string
	BackupName             string
	BackupSizeBytes        *int64 `json:"BackupSizeBytes,omitempty"`
	BackupStatus           string
	BackupType             string
	BackupCreationDateTime epochSeconds
	BackupExpiryDateTime   *epochSeconds `json:"BackupExpiryDateTime,omitempty"`
}

// backupStatus maps a backup job's state to DynamoDB's BackupStatus.
func backupStatus(state string) string {
	switch state {
	case jobs.Pending, jobs.Running:
		return "CREATING"
	case jobs.Succeeded:
		return "AVAILABLE"
	}
	return "DELETED"
}

func detailsOf(b *backup.Backup) backupDetails {
	d := backupDetails{
		BackupArn:              b.Params.BackupArn,
		BackupName:             b.Params.BackupName,
		BackupStatus:           backupStatus(b.State),
		BackupType:             "USER",
		BackupCreationDateTime: epochSeconds(b.Params.CreatedAt),
	}
	if b.State == jobs.Succeeded {
		size := b.SizeBytes
		d.BackupSizeBytes = &size
	}
	return d
}

type createBackupInput struct {
	TableName  *string
	BackupName *string
}

type createBackupOutput struct {
	BackupDetails backupDetails
}

var createBackupOp = &controlOp[createBackupInput]{
	rules: rules[createBackupInput]{
		tableNameRule(func(in *createBackupInput) *string { return in.TableName }),
		requiredNameRule("backupName", func(in *createBackupInput) *string { return in.BackupName }),
	},
	check:   backupsConfigured[createBackupInput],
	table:   byBackupTable(func(in *createBackupInput) *string { return in.TableName }),
	execute: (*Engine).createBackup,
}

func (e *Engine) createBackup(ctx context.Context, c caller, in *createBackupInput, t *storage.Table) (any, error) {
	if st := e.status(t); st == storage.StatusCreating || st == storage.StatusDeleting {
		return nil, ddberr.TableInUse("Table is being %s: %s", statusVerb(st), t.Name)
	}
	now := e.now()
	id := fmt.Sprintf("%014d-%08x", now.UnixMilli(), rand.Uint32())
	tableArn := e.tableArn(c.region, t)
	b, err := e.backups.Create(ctx, c.account, id, backup.Params{
		BackupName: *in.BackupName,
		BackupArn:  tableArn + "/backup/" + id,
		TableArn:   tableArn,
		Table:      *t,
		CreatedAt:  now,
	})
	if err != nil {
		return nil, err
	}
	return createBackupOutput{detailsOf(b)}, nil
}

// requiredNameRule is a required name member: 3 to 255 characters of
// [a-zA-Z0-9_.-].
func requiredNameRule[T any](path string, get func(*T) *string) rule[T] {
	return func(in *T, c *constraints) {
		if s := get(in); c.notNull(s != nil, path) {
			c.name(s, path)
		}
	}
}

// backupByArn returns the caller's backup named by arn, or DynamoDB's
// BackupNotFoundException, whose text
// https://github.com/turbot/steampipe-plugin-aws/issues/1913 quotes:
// "Backup not found: <arn>". The operation's check (backupsConfigured)
// has made sure the backup service is set.
func (e *Engine) backupByArn(ctx context.Context, account, arn string) (*backup.Backup, error) {
	_, id, ok := strings.Cut(arn, "/backup/")
	if !ok {
		return nil, ddberr.BackupNotFound("Backup not found: %s", arn)
	}
	b, err := e.backups.Get(ctx, account, id)
	if errors.Is(err, backup.ErrNotFound) || (err == nil && b.Params.BackupArn != arn) {
		return nil, ddberr.BackupNotFound("Backup not found: %s", arn)
	}
	return b, err
}

// backupArnRule is a BackupArn member: required, 37 to 1024 characters.
func backupArnRule[T any](get func(*T) *string) rule[T] {
	return lengthRule("backupArn", get, 37, 1024, true)
}

type backupArnInput struct {
	BackupArn *string
}

// backupArnOp is an operation whose one member is BackupArn, on the
// caller's backup it names (see backupByArn).
func backupArnOp(execute func(e *Engine, ctx context.Context, c caller, b *backup.Backup) (any, error)) *controlOp[backupArnInput] {
	return &controlOp[backupArnInput]{
		rules: rules[backupArnInput]{backupArnRule(func(in *backupArnInput) *string { return in.BackupArn })},
		check: backupsConfigured[backupArnInput],
		execute: func(e *Engine, ctx context.Context, c caller, in *backupArnInput, _ *storage.Table) (any, error) {
			b, err := e.backupByArn(ctx, c.account, *in.BackupArn)
			if err != nil {
				return nil, err
			}
			return execute(e, ctx, c, b)
		},
	}
}

type backupDescriptionOutput struct {
	BackupDescription backupDescription
}

type backupDescription struct {
	BackupDetails             backupDetails
	SourceTableDetails        sourceTableDetails
	SourceTableFeatureDetails sourceTableFeatureDetails
}

type sourceTableDetails struct {
	TableName             string
	TableId               string
	TableArn              string
	TableSizeBytes        int64
	KeySchema             []keySchemaElement
	TableCreationDateTime epochSeconds
	ProvisionedThroughput provisionedThroughput
	ItemCount             int64
	BillingMode           string
}

type sourceIndexInfo struct {
	IndexName             string
	KeySchema             []keySchemaElement
	Projection            projection
	ProvisionedThroughput *provisionedThroughput `json:"ProvisionedThroughput,omitempty"`
}

type sourceTableFeatureDetails struct {
	LocalSecondaryIndexes  []sourceIndexInfo      `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes []sourceIndexInfo      `json:"GlobalSecondaryIndexes,omitempty"`
	StreamDescription      *streamSpecDescription `json:"StreamDescription,omitempty"`
	TimeToLiveDescription  *ttlDescription        `json:"TimeToLiveDescription,omitempty"`
}

func describeBackupOf(b *backup.Backup) backupDescription {
	t := &b.Params.Table
	src := sourceTableDetails{
		TableName:             t.Name,
		TableId:               t.ID,
		TableArn:              b.Params.TableArn,
		TableSizeBytes:        b.SizeBytes,
		KeySchema:             keySchemaOut(t.KeySchema),
		TableCreationDateTime: epochSeconds(t.CreatedAt),
		ProvisionedThroughput: provisionedThroughput{ReadCapacityUnits: &t.Throughput.ReadCapacityUnits, WriteCapacityUnits: &t.Throughput.WriteCapacityUnits},
		ItemCount:             b.ItemCount,
		BillingMode:           t.BillingMode,
	}
	var f sourceTableFeatureDetails
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		info := sourceIndexInfo{IndexName: ix.IndexName, KeySchema: keySchemaOut(ix.KeySchema),
			Projection: projection{ProjectionType: &ix.Projection.ProjectionType, NonKeyAttributes: ix.Projection.NonKeyAttributes}}
		if !ix.Global {
			f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, info)
			continue
		}
		if ix.Throughput != nil {
			info.ProvisionedThroughput = &provisionedThroughput{ReadCapacityUnits: &ix.Throughput.ReadCapacityUnits, WriteCapacityUnits: &ix.Throughput.WriteCapacityUnits}
		}
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, info)
	}
	if t.Stream.StreamEnabled {
		f.StreamDescription = &streamSpecDescription{StreamEnabled: true, StreamViewType: t.Stream.StreamViewType}
	}
	if t.TTL.Status != "" && t.TTL.Status != "DISABLED" {
		f.TimeToLiveDescription = &ttlDescription{AttributeName: t.TTL.AttributeName, TimeToLiveStatus: t.TTL.Status}
	}
	return backupDescription{BackupDetails: detailsOf(b), SourceTableDetails: src, SourceTableFeatureDetails: f}
}

var (
	describeBackupOp = backupArnOp((*Engine).describeBackup)
	deleteBackupOp   = backupArnOp((*Engine).deleteBackup)
)

func (e *Engine) describeBackup(_ context.Context, _ caller, b *backup.Backup) (any, error) {
	return backupDescriptionOutput{describeBackupOf(b)}, nil
}

func (e *Engine) deleteBackup(ctx context.Context, c caller, b *backup.Backup) (any, error) {
	arn := b.Params.BackupArn // the requested one (see backupByArn)
	b, err := e.backups.Delete(ctx, c.account, b.ID)
	switch {
	case errors.Is(err, backup.ErrRestoring):
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteBackup.html#API_DeleteBackup_Errors
		return nil, ddberr.BackupInUse("Backup is being restored to a table: %s", arn)
	case errors.Is(err, backup.ErrInUse):
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteBackup.html#API_DeleteBackup_Errors
		return nil, ddberr.BackupInUse("Backup is being created: %s", arn)
	case errors.Is(err, backup.ErrNotFound):
		return nil, ddberr.BackupNotFound("Backup not found: %s", arn)
	case err != nil:
		return nil, err
	}
	d := describeBackupOf(b)
	d.BackupDetails.BackupStatus = "DELETED"
	return backupDescriptionOutput{d}, nil
}
