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
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// On-demand backups: CreateBackup, DescribeBackup, ListBackups and
// DeleteBackup (this file) and RestoreTableFromBackup (backups_restore.go),
// served by internal/backup. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Backup-and-Restore.html

// SetBackups connects the backup service; until it is set the backup
// operations answer that backups are not configured. Call it before
// serving.
func (e *Engine) SetBackups(s *backup.Service) { e.backups = s }

func (e *Engine) backupService() (*backup.Service, error) { return configured(e.backups, "Backups") }

// configured returns s, the service of the operations of what ("Backups",
// "Exports", "Imports"), or, when the server was started without it, the
// ValidationException saying so.
func configured[S any](s *S, what string) (*S, error) {
	if s == nil {
		return nil, ddberr.Validation("%s are not configured on this server", what)
	}
	return s, nil
}

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

func (e *Engine) createBackup(ctx context.Context, r *protocol.Request) (any, error) {
	var in createBackupInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	c.tableName(in.TableName)
	if c.notNull(in.BackupName != nil, "backupName") {
		c.name(in.BackupName, "backupName")
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	svc, err := e.backupService()
	if err != nil {
		return nil, err
	}
	account := e.account(r)
	t, err := e.backupTable(ctx, account, *in.TableName)
	if err != nil {
		return nil, err
	}
	if st := e.status(t); st == storage.StatusCreating || st == storage.StatusDeleting {
		return nil, ddberr.TableInUse("Table is being %s: %s", statusVerb(st), t.Name)
	}
	now := e.now()
	id := fmt.Sprintf("%014d-%08x", now.UnixMilli(), rand.Uint32())
	tableArn := e.tableArn(r.Caller.Region, t)
	b, err := svc.Create(ctx, account, id, backup.Params{
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

// backupByArn returns the caller's backup named by arn, or DynamoDB's
// BackupNotFoundException, whose text
// https://github.com/turbot/steampipe-plugin-aws/issues/1913 quotes:
// "Backup not found: <arn>".
func (e *Engine) backupByArn(ctx context.Context, r *protocol.Request, arn string) (*backup.Service, *backup.Backup, error) {
	svc, err := e.backupService()
	if err != nil {
		return nil, nil, err
	}
	_, id, ok := strings.Cut(arn, "/backup/")
	if !ok {
		return nil, nil, ddberr.BackupNotFound("Backup not found: %s", arn)
	}
	b, err := svc.Get(ctx, e.account(r), id)
	if errors.Is(err, backup.ErrNotFound) || (err == nil && b.Params.BackupArn != arn) {
		return nil, nil, ddberr.BackupNotFound("Backup not found: %s", arn)
	}
	return svc, b, err
}

// backupArnConstraint checks a BackupArn member (length 37 to 1024).
func backupArnConstraint(c *constraints, arn *string) {
	if c.notNull(arn != nil, "backupArn") {
		c.lenRange(arn, "backupArn", 37, 1024)
	}
}

type backupArnInput struct {
	BackupArn *string
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

// requestedBackup decodes a request whose one member is BackupArn, checks
// it and finds the caller's backup it names (see backupByArn).
func (e *Engine) requestedBackup(ctx context.Context, r *protocol.Request) (*backup.Service, *backup.Backup, error) {
	var in backupArnInput
	if err := decode(r.Body, &in); err != nil {
		return nil, nil, err
	}
	var c constraints
	backupArnConstraint(&c, in.BackupArn)
	if err := c.err(); err != nil {
		return nil, nil, err
	}
	return e.backupByArn(ctx, r, *in.BackupArn)
}

func (e *Engine) describeBackup(ctx context.Context, r *protocol.Request) (any, error) {
	_, b, err := e.requestedBackup(ctx, r)
	if err != nil {
		return nil, err
	}
	return backupDescriptionOutput{describeBackupOf(b)}, nil
}

func (e *Engine) deleteBackup(ctx context.Context, r *protocol.Request) (any, error) {
	svc, b, err := e.requestedBackup(ctx, r)
	if err != nil {
		return nil, err
	}
	arn := b.Params.BackupArn // the requested one (see backupByArn)
	b, err = svc.Delete(ctx, e.account(r), b.ID)
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
