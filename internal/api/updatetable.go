package api

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// UpdateTable: billing mode, provisioned throughput, streams, deletion
// protection, table class and global secondary indexes (index_update.go).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html

type updateTableInput struct {
	TableName                   *string
	AttributeDefinitions        []attributeDefinition
	BillingMode                 *string
	ProvisionedThroughput       *provisionedThroughput
	StreamSpecification         *streamSpecification
	DeletionProtectionEnabled   *bool
	TableClass                  *string
	GlobalSecondaryIndexUpdates []gsiUpdate
	SSESpecification            json.RawMessage
	ReplicaUpdates              json.RawMessage
	OnDemandThroughput          *onDemandThroughput // throughput_settings.go
	WarmThroughput              *warmThroughput
}

var updateTableOp = &controlOp[updateTableInput]{
	rules:   rules[updateTableInput]{updateTableMembers},
	check:   checkUpdateTable,
	table:   byTableName(func(in *updateTableInput) *string { return in.TableName }),
	execute: (*Engine).updateTable,
}

// checkUpdateTable makes UpdateTable's checks that need no table: that
// it changes something, the table's throughput bounds (checked before
// the table is read: architect/dynalite test/updateTable.js, recorded
// from DynamoDB) and the index updates' actions.
func checkUpdateTable(_ *Engine, _ caller, in *updateTableInput) error {
	if in.BillingMode == nil && in.ProvisionedThroughput == nil && in.StreamSpecification == nil &&
		in.DeletionProtectionEnabled == nil && in.TableClass == nil && len(in.GlobalSecondaryIndexUpdates) == 0 &&
		in.SSESpecification == nil && in.ReplicaUpdates == nil && in.OnDemandThroughput == nil && in.WarmThroughput == nil {
		return ddberr.Validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	if in.ProvisionedThroughput != nil {
		if err := throughputBounds(in.ProvisionedThroughput); err != nil {
			return err
		}
	}
	return checkGSIUpdateActions(in.GlobalSecondaryIndexUpdates)
}

func (e *Engine) updateTable(ctx context.Context, c caller, in *updateTableInput, cur *storage.Table) (any, error) {
	if st := e.status(cur); st != storage.StatusActive {
		return nil, errTableInUse(st, cur.Name)
	}
	now := e.now()
	online := false
	updated, err := e.updateCatalog(ctx, cur, func(t *storage.Table) error {
		var err error
		online, err = e.applyTableUpdate(t, in, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if online {
		e.kickIndexWorker()
		if delay := e.statusDelay(updated); delay > 0 {
			// A deleted index is dropped once its delay has passed.
			time.AfterFunc(delay, e.kickIndexWorker)
		}
	}
	d, err := e.describe(ctx, c.region, updated, true)
	if err != nil {
		return nil, err
	}
	return tableDescriptionOutput{d}, nil
}

// updateTableMembers checks UpdateTable's member constraints.
func updateTableMembers(in *updateTableInput, c *constraints) {
	c.tableName(in.TableName)
	c.enum(in.BillingMode, "billingMode", "PROVISIONED", "PAY_PER_REQUEST")
	c.enum(in.TableClass, "tableClass", "STANDARD", "STANDARD_INFREQUENT_ACCESS")
	if in.ProvisionedThroughput != nil {
		throughputConstraints(c, in.ProvisionedThroughput, "provisionedThroughput")
	}
	if in.StreamSpecification != nil {
		c.notNull(in.StreamSpecification.StreamEnabled != nil, "streamSpecification.streamEnabled")
		c.enum(in.StreamSpecification.StreamViewType, "streamSpecification.streamViewType", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
	}
	attributeDefinitionConstraints(c, in.AttributeDefinitions)
	gsiUpdateConstraints(c, in.GlobalSecondaryIndexUpdates)
}

// applyTableUpdate applies an UpdateTable request to the catalog entry t,
// inside the catalog's update, and reports whether an index build or drop
// started.
func (e *Engine) applyTableUpdate(t *storage.Table, in *updateTableInput, now time.Time) (online bool, err error) {
	// The billing mode changes first: index throughput updates in the
	// same request apply to the mode the table is switching to.
	wasOnDemand := t.BillingMode == "PAY_PER_REQUEST"
	changed := applyBillingMode(t, in.BillingMode, now)
	billing := t.BillingMode
	toProvisioned := wasOnDemand && billing == "PROVISIONED"
	if in.GlobalSecondaryIndexUpdates != nil {
		if online, err = applyGSIUpdates(t, in.GlobalSecondaryIndexUpdates, in.AttributeDefinitions, now); err != nil {
			return false, err
		}
	}
	if in.ProvisionedThroughput != nil {
		if err := applyTableThroughput(t, in, toProvisioned, now); err != nil {
			return false, err
		}
		changed = true
	} else if billing == "PROVISIONED" && in.BillingMode != nil && changed {
		return false, invalid("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	}
	if toProvisioned {
		if err := checkIndexThroughputs(t); err != nil {
			return false, err
		}
	}
	if s := in.StreamSpecification; s != nil {
		if err := applyStreamUpdate(t, s, now); err != nil {
			return false, err
		}
		changed = true
	}
	if in.DeletionProtectionEnabled != nil {
		t.DeletionProtection = *in.DeletionProtectionEnabled
		changed = true
	}
	if in.TableClass != nil {
		t.TableClass = *in.TableClass
		changed = true
	}
	if err := updateThroughputSettings(t, in.OnDemandThroughput, in.WarmThroughput); err != nil {
		return false, err
	}
	delay := e.statusDelay(t)
	if changed && delay > 0 {
		t.Status = storage.StatusUpdating
		t.ActiveAt = now.Add(delay)
	}
	if online && delay > 0 {
		holdIndexes(t, now.Add(delay))
	}
	return online, nil
}

// applyBillingMode switches t to mode when it differs, and reports whether
// it did.
func applyBillingMode(t *storage.Table, mode *string, now time.Time) bool {
	if mode == nil || *mode == t.BillingMode {
		return false
	}
	t.BillingMode = *mode
	if *mode == "PAY_PER_REQUEST" {
		// LastUpdateToPayPerRequestDateTime is the time of the last
		// switch to PAY_PER_REQUEST; a switch back to PROVISIONED
		// leaves it as it was.
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BillingModeSummary.html
		t.BillingModeUpdated = now
		t.Throughput.ReadCapacityUnits, t.Throughput.WriteCapacityUnits = 0, 0
		for i := range t.Indexes {
			t.Indexes[i].Throughput = nil
		}
	}
	return true
}

// applyTableThroughput sets the table's provisioned throughput.
func applyTableThroughput(t *storage.Table, in *updateTableInput, toProvisioned bool, now time.Time) error {
	if t.BillingMode == "PAY_PER_REQUEST" {
		return invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	}
	if err := throughputBounds(in.ProvisionedThroughput); err != nil {
		return err
	}
	rcu, wcu := *in.ProvisionedThroughput.ReadCapacityUnits, *in.ProvisionedThroughput.WriteCapacityUnits
	if rcu == t.Throughput.ReadCapacityUnits && wcu == t.Throughput.WriteCapacityUnits && in.BillingMode == nil {
		return ddberr.Validation("The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", t.Throughput.ReadCapacityUnits, rcu, t.Throughput.WriteCapacityUnits, wcu)
	}
	// Leaving PAY_PER_REQUEST sets the throughput; it neither
	// increases nor decreases it.
	if !toProvisioned {
		if rcu > t.Throughput.ReadCapacityUnits || wcu > t.Throughput.WriteCapacityUnits {
			t.Throughput.LastIncreaseDateTime = now
		}
		if rcu < t.Throughput.ReadCapacityUnits || wcu < t.Throughput.WriteCapacityUnits {
			t.Throughput.LastDecreaseDateTime = now
			t.Throughput.NumberOfDecreasesToday++
		}
	}
	t.Throughput.ReadCapacityUnits, t.Throughput.WriteCapacityUnits = rcu, wcu
	return nil
}

// checkIndexThroughputs requires, of a table switching to PROVISIONED,
// throughput for every global secondary index, given by an Update action
// of the same request.
// https://github.com/crossplane-contrib/provider-upjet-aws/issues/1041
func checkIndexThroughputs(t *storage.Table) error {
	var missing []string
	for _, ix := range t.Indexes {
		if ix.Global && ix.Status != storage.StatusDeleting && ix.Throughput == nil {
			missing = append(missing, ix.IndexName)
		}
	}
	if len(missing) > 0 {
		return invalid("ProvisionedThroughput must be specified for index: %s", strings.Join(missing, ","))
	}
	for i := range t.Indexes {
		if tp := t.Indexes[i].Throughput; tp != nil {
			tp.LastIncreaseDateTime = time.Time{}
		}
	}
	return nil
}

// applyStreamUpdate enables or disables the table's stream.
func applyStreamUpdate(t *storage.Table, s *streamSpecification, now time.Time) error {
	if *s.StreamEnabled {
		if t.Stream.StreamEnabled {
			return ddberr.Validation("Table already has an enabled stream: TableName: %s", t.Name)
		}
		if s.StreamViewType == nil {
			return invalid("StreamViewType must be specified when StreamEnabled is true")
		}
		t.Stream = storage.StreamSpecification{StreamEnabled: true, StreamViewType: *s.StreamViewType}
		t.LatestStreamLabel = streamLabel(now)
		return nil
	}
	if !t.Stream.StreamEnabled {
		return ddberr.Validation("Table already has an disabled stream: TableName: %s", t.Name)
	}
	t.Stream.StreamEnabled = false
	return nil
}
