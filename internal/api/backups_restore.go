package api

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// RestoreTableFromBackup. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableFromBackup.html

type restoreSummary struct {
	SourceBackupArn   string `json:"SourceBackupArn,omitempty"`
	SourceTableArn    string `json:"SourceTableArn,omitempty"`
	RestoreDateTime   epochSeconds
	RestoreInProgress bool
}

func restoreSummaryOf(t *storage.Table) *restoreSummary {
	if t.Restore == nil {
		return nil
	}
	return &restoreSummary{SourceBackupArn: t.Restore.SourceBackupArn, SourceTableArn: t.Restore.SourceTableArn,
		RestoreDateTime: epochSeconds(t.Restore.RestoreDateTime), RestoreInProgress: t.Restore.InProgress}
}

type restoreTableFromBackupInput struct {
	TargetTableName *string
	BackupArn       *string
	restoreOverrides
}

// restoreOverrides are the overrides both restore operations take.
type restoreOverrides struct {
	BillingModeOverride           *string
	GlobalSecondaryIndexOverride  []secondaryIndexInput
	LocalSecondaryIndexOverride   []secondaryIndexInput
	ProvisionedThroughputOverride *provisionedThroughput
	SSESpecificationOverride      map[string]any
}

var restoreTableFromBackupOp = &controlOp[restoreTableFromBackupInput]{
	rules: rules[restoreTableFromBackupInput]{
		requiredNameRule("targetTableName", func(in *restoreTableFromBackupInput) *string { return in.TargetTableName }),
		backupArnRule(func(in *restoreTableFromBackupInput) *string { return in.BackupArn }),
		func(in *restoreTableFromBackupInput, c *constraints) { in.restoreOverrides.constraints(c) },
	},
	check:   backupsConfigured[restoreTableFromBackupInput],
	execute: (*Engine).restoreTableFromBackup,
}

func (e *Engine) restoreTableFromBackup(ctx context.Context, c caller, in *restoreTableFromBackupInput, _ *storage.Table) (any, error) {
	b, err := e.backupByArn(ctx, c.account, *in.BackupArn)
	if err != nil {
		return nil, err
	}
	if b.State != jobs.Succeeded {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableFromBackup.html#API_RestoreTableFromBackup_Errors
		return nil, ddberr.BackupInUse("Backup is being created: %s", *in.BackupArn)
	}
	t, err := e.restoredTable(*in.TargetTableName, &b.Params.Table, storage.RestoreSummary{SourceBackupArn: b.Params.BackupArn,
		SourceTableArn: b.Params.TableArn, RestoreDateTime: b.Params.CreatedAt, InProgress: true}, &in.restoreOverrides)
	if err != nil {
		return nil, err
	}
	if err := e.checkTableLimit(ctx, c.account); err != nil {
		return nil, err
	}
	err = e.backups.Restore(ctx, c.account, b, t)
	if errors.Is(err, storage.ErrTableExists) {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableFromBackup.html#API_RestoreTableFromBackup_Errors
		return nil, ddberr.TableAlreadyExists("Table already exists: %s", t.Name)
	}
	if err != nil {
		return nil, err
	}
	return e.restoredOutput(ctx, c.region, t)
}

// restoredOutput is the response of a restore that created t.
func (e *Engine) restoredOutput(ctx context.Context, region string, t *storage.Table) (any, error) {
	e.forget(t.Account, t.Name)
	d, err := e.describe(ctx, region, t, false)
	if err != nil {
		return nil, err
	}
	return tableDescriptionOutput{d}, nil
}

// checkTableLimit refuses a new table beyond the account's limit
// (CreateTable, and the restores that create a table).
func (e *Engine) checkTableLimit(ctx context.Context, account string) error {
	names, err := e.store.ListTables(ctx, account)
	if err != nil {
		return err
	}
	if len(names) >= maxTablesPerAccount {
		return ddberr.LimitExceeded("Subscriber limit exceeded: Number of tables exceeds the per-account limit of %d", maxTablesPerAccount)
	}
	return nil
}

// constraints checks the overrides' member constraints.
func (o *restoreOverrides) constraints(c *constraints) {
	c.enum(o.BillingModeOverride, "billingModeOverride", "PROVISIONED", "PAY_PER_REQUEST")
	if tp := o.ProvisionedThroughputOverride; tp != nil {
		throughputConstraints(c, tp, "provisionedThroughputOverride")
	}
}

// restoredTable derives the table a restore creates from the source
// table's definition src and the request's overrides. As DynamoDB does, it restores
// the keys, attribute definitions, indexes, billing mode and throughput,
// and not the stream, Time to Live, tags, deletion protection or point in
// time recovery settings.
func (e *Engine) restoredTable(name string, src *storage.Table, summary storage.RestoreSummary, in *restoreOverrides) (*storage.Table, error) {
	now := e.now()
	t := &storage.Table{
		Name:                 name,
		ID:                   uuid.NewString(),
		KeySchema:            src.KeySchema,
		AttributeDefinitions: src.AttributeDefinitions,
		BillingMode:          src.BillingMode,
		Throughput:           storage.Throughput{ReadCapacityUnits: src.Throughput.ReadCapacityUnits, WriteCapacityUnits: src.Throughput.WriteCapacityUnits},
		TableClass:           src.TableClass,
		CreatedAt:            now,
		Restore:              &summary,
	}
	if in.BillingModeOverride != nil {
		t.BillingMode = *in.BillingModeOverride
	}
	if tp := in.ProvisionedThroughputOverride; tp != nil && tp.ReadCapacityUnits != nil && tp.WriteCapacityUnits != nil {
		t.Throughput = storage.Throughput{ReadCapacityUnits: *tp.ReadCapacityUnits, WriteCapacityUnits: *tp.WriteCapacityUnits}
	}
	if t.BillingMode == "PAY_PER_REQUEST" {
		// On demand since its creation, as a table CreateTable makes on
		// demand (LastUpdateToPayPerRequestDateTime).
		t.Throughput, t.BillingModeUpdated = storage.Throughput{}, now
	} else if t.Throughput.ReadCapacityUnits == 0 {
		return nil, invalid("ProvisionedThroughputOverride is required when restoring an on-demand table with BillingModeOverride PROVISIONED")
	}
	for _, ix := range src.Indexes {
		if ix.Status == storage.StatusDeleting || (ix.Status == storage.StatusCreating && ix.Backfilling) {
			continue // not part of the table at the backup's instant
		}
		override, keep := indexOverride(ix, in)
		if !keep {
			continue
		}
		ix.ID, ix.Status, ix.Backfilling, ix.BackfillCursor = uuid.NewString(), "", false, nil
		switch {
		case !ix.Global || t.BillingMode == "PAY_PER_REQUEST":
			ix.Throughput = nil
		case override != nil && override.ProvisionedThroughput != nil && override.ProvisionedThroughput.ReadCapacityUnits != nil && override.ProvisionedThroughput.WriteCapacityUnits != nil:
			ix.Throughput = &storage.Throughput{ReadCapacityUnits: *override.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: *override.ProvisionedThroughput.WriteCapacityUnits}
		case ix.Throughput == nil:
			ix.Throughput = &storage.Throughput{ReadCapacityUnits: t.Throughput.ReadCapacityUnits, WriteCapacityUnits: t.Throughput.WriteCapacityUnits}
		}
		t.Indexes = append(t.Indexes, ix)
	}
	if err := overridesExist(src, in); err != nil {
		return nil, err
	}
	return t, nil
}

// indexOverride tells whether index ix of the source is restored: always
// without an override list of its kind, otherwise when the list names it
// (whose entry is returned).
func indexOverride(ix storage.Index, in *restoreOverrides) (*secondaryIndexInput, bool) {
	list := in.LocalSecondaryIndexOverride
	if ix.Global {
		list = in.GlobalSecondaryIndexOverride
	}
	if list == nil {
		return nil, true
	}
	for i := range list {
		if list[i].IndexName != nil && *list[i].IndexName == ix.IndexName {
			return &list[i], true
		}
	}
	return nil, false
}

// overridesExist refuses an override naming an index the source table did
// not have: the overrides may only leave indexes out.
func overridesExist(src *storage.Table, in *restoreOverrides) error {
	has := map[string]bool{}
	for _, ix := range src.Indexes {
		has[ix.IndexName] = true
	}
	for _, list := range [][]secondaryIndexInput{in.GlobalSecondaryIndexOverride, in.LocalSecondaryIndexOverride} {
		for _, o := range list {
			if o.IndexName == nil || !has[*o.IndexName] {
				name := ""
				if o.IndexName != nil {
					name = *o.IndexName
				}
				return invalid("Index %s is not an index of the backup's source table", name)
			}
		}
	}
	return nil
}
