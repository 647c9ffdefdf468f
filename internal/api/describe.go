package api

import (
	"context"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// Wire shapes shared by the control-plane operations. Field names are
// DynamoDB's; see
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html

type keySchemaElement struct {
	AttributeName *string `json:"AttributeName,omitempty"`
	KeyType       *string `json:"KeyType,omitempty"`
}

type attributeDefinition struct {
	AttributeName *string `json:"AttributeName,omitempty"`
	AttributeType *string `json:"AttributeType,omitempty"`
}

type projection struct {
	ProjectionType   *string  `json:"ProjectionType,omitempty"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

type provisionedThroughput struct {
	ReadCapacityUnits  *int64 `json:"ReadCapacityUnits,omitempty"`
	WriteCapacityUnits *int64 `json:"WriteCapacityUnits,omitempty"`
}

type streamSpecification struct {
	StreamEnabled  *bool   `json:"StreamEnabled,omitempty"`
	StreamViewType *string `json:"StreamViewType,omitempty"`
}

type tag struct {
	Key   *string `json:"Key,omitempty"`
	Value *string `json:"Value,omitempty"`
}

type throughputDescription struct {
	LastIncreaseDateTime   *epochSeconds `json:"LastIncreaseDateTime,omitempty"`
	LastDecreaseDateTime   *epochSeconds `json:"LastDecreaseDateTime,omitempty"`
	NumberOfDecreasesToday int64
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
}

// OnDemandThroughput and WarmThroughput, requested and described
// (throughput_settings.go).
type onDemandThroughput struct {
	MaxReadRequestUnits  *int64 `json:"MaxReadRequestUnits,omitempty"`
	MaxWriteRequestUnits *int64 `json:"MaxWriteRequestUnits,omitempty"`
}

type warmThroughput struct {
	ReadUnitsPerSecond  *int64 `json:"ReadUnitsPerSecond,omitempty"`
	WriteUnitsPerSecond *int64 `json:"WriteUnitsPerSecond,omitempty"`
}

// warmThroughputDescription is a table's or index's TableWarmThroughput
// or GlobalSecondaryIndexWarmThroughputDescription.
type warmThroughputDescription struct {
	ReadUnitsPerSecond  int64
	WriteUnitsPerSecond int64
	Status              string
}

type onDemandThroughputDescription struct {
	MaxReadRequestUnits  int64
	MaxWriteRequestUnits int64
}

type billingModeSummary struct {
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime epochSeconds
}

type indexDescription struct {
	IndexName             string
	KeySchema             []keySchemaElement
	Projection            projection
	IndexStatus           string                 `json:"IndexStatus,omitempty"`
	Backfilling           *bool                  `json:"Backfilling,omitempty"`
	ProvisionedThroughput *throughputDescription `json:"ProvisionedThroughput,omitempty"`
	IndexSizeBytes        int64
	ItemCount             int64
	IndexArn              string
	OnDemandThroughput    *onDemandThroughputDescription `json:"OnDemandThroughput,omitempty"`
	WarmThroughput        *warmThroughputDescription     `json:"WarmThroughput,omitempty"`
}

type tableDescription struct {
	AttributeDefinitions      []attributeDefinition
	TableName                 string
	KeySchema                 []keySchemaElement
	TableStatus               string
	CreationDateTime          epochSeconds
	ProvisionedThroughput     throughputDescription
	TableSizeBytes            int64
	ItemCount                 int64
	TableArn                  string
	TableId                   string
	BillingModeSummary        *billingModeSummary    `json:"BillingModeSummary,omitempty"`
	LocalSecondaryIndexes     []indexDescription     `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes    []indexDescription     `json:"GlobalSecondaryIndexes,omitempty"`
	StreamSpecification       *streamSpecDescription `json:"StreamSpecification,omitempty"`
	LatestStreamLabel         string                 `json:"LatestStreamLabel,omitempty"`
	LatestStreamArn           string                 `json:"LatestStreamArn,omitempty"`
	TableClassSummary         *tableClassSummary     `json:"TableClassSummary,omitempty"`
	DeletionProtectionEnabled bool
	RestoreSummary            *restoreSummary                `json:"RestoreSummary,omitempty"`     // backups_restore.go
	OnDemandThroughput        *onDemandThroughputDescription `json:"OnDemandThroughput,omitempty"` // throughput_settings.go
	WarmThroughput            *warmThroughputDescription     `json:"WarmThroughput,omitempty"`
}

type streamSpecDescription struct {
	StreamEnabled  bool
	StreamViewType string `json:"StreamViewType,omitempty"`
}

type tableClassSummary struct {
	TableClass string
}

// epochSeconds encodes a time as DynamoDB does: seconds since the epoch as a
// JSON number with millisecond precision.
type epochSeconds time.Time

func (t epochSeconds) MarshalJSON() ([]byte, error) {
	ms := time.Time(t).UnixMilli()
	return []byte(fmt.Sprintf("%d.%03d", ms/1000, ms%1000)), nil
}

// tableArn is the table's ARN: the region of the request and the account
// of the table's namespace.
func (e *Engine) tableArn(region string, t *storage.Table) string {
	account := storage.NamespaceAccount(t.Account)
	if account == "" {
		account = e.cfg.AccountID
	}
	return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", region, account, t.Name)
}

func keySchemaOut(ks []storage.KeyElement) []keySchemaElement {
	out := make([]keySchemaElement, len(ks))
	for i := range ks {
		out[i] = keySchemaElement{AttributeName: &ks[i].AttributeName, KeyType: &ks[i].KeyType}
	}
	return out
}

func throughputOut(tp storage.Throughput) throughputDescription {
	d := throughputDescription{
		NumberOfDecreasesToday: tp.NumberOfDecreasesToday,
		ReadCapacityUnits:      tp.ReadCapacityUnits,
		WriteCapacityUnits:     tp.WriteCapacityUnits,
	}
	if !tp.LastIncreaseDateTime.IsZero() {
		v := epochSeconds(tp.LastIncreaseDateTime)
		d.LastIncreaseDateTime = &v
	}
	if !tp.LastDecreaseDateTime.IsZero() {
		v := epochSeconds(tp.LastDecreaseDateTime)
		d.LastDecreaseDateTime = &v
	}
	return d
}

// describe renders a table as DynamoDB's TableDescription. withStats adds
// ItemCount and TableSizeBytes from the backend.
func (e *Engine) describe(ctx context.Context, region string, t *storage.Table, withStats bool) (*tableDescription, error) {
	d := &tableDescription{
		TableName:                 t.Name,
		KeySchema:                 keySchemaOut(t.KeySchema),
		TableStatus:               e.status(t),
		CreationDateTime:          epochSeconds(t.CreatedAt),
		ProvisionedThroughput:     throughputOut(t.Throughput),
		TableArn:                  e.tableArn(region, t),
		TableId:                   t.ID,
		DeletionProtectionEnabled: t.DeletionProtection,
	}
	for i := range t.AttributeDefinitions {
		a := &t.AttributeDefinitions[i]
		if !keyAttribute(t, a.AttributeName) {
			continue
		}
		d.AttributeDefinitions = append(d.AttributeDefinitions, attributeDefinition{AttributeName: &a.AttributeName, AttributeType: &a.AttributeType})
	}
	if t.BillingMode == "PAY_PER_REQUEST" {
		d.BillingModeSummary = &billingModeSummary{BillingMode: t.BillingMode, LastUpdateToPayPerRequestDateTime: epochSeconds(t.BillingModeUpdated)}
	} else if !t.BillingModeUpdated.IsZero() {
		d.BillingModeSummary = &billingModeSummary{BillingMode: "PROVISIONED", LastUpdateToPayPerRequestDateTime: epochSeconds(t.BillingModeUpdated)}
	}
	// A disabled stream stays the table's latest (readable for 24 hours):
	// DynamoDB leaves out StreamSpecification but keeps LatestStreamArn and
	// LatestStreamLabel (https://github.com/scylladb/scylladb/pull/31553,
	// whose test passes against DynamoDB).
	if t.Stream.StreamEnabled {
		d.StreamSpecification = &streamSpecDescription{StreamEnabled: true, StreamViewType: t.Stream.StreamViewType}
	}
	if t.LatestStreamLabel != "" {
		d.LatestStreamLabel = t.LatestStreamLabel
		d.LatestStreamArn = d.TableArn + "/stream/" + t.LatestStreamLabel
	}
	d.RestoreSummary = restoreSummaryOf(t)
	d.OnDemandThroughput = onDemandOut(t.BillingMode, t.OnDemand)
	warm := warmOut(t.BillingMode, t.Throughput, t.Warm, storage.StatusActive)
	d.WarmThroughput = &warm
	if t.TableClass != "" && t.TableClass != "STANDARD" {
		d.TableClassSummary = &tableClassSummary{TableClass: t.TableClass}
	}
	var ixStats map[string]storage.TableStats
	if withStats && d.TableStatus != storage.StatusCreating {
		st, err := e.store.Stats(ctx, t)
		if err != nil {
			return nil, err
		}
		d.ItemCount, d.TableSizeBytes = st.ItemCount, st.SizeBytes
		if len(t.Indexes) > 0 {
			if ixStats, err = e.store.IndexStats(ctx, t); err != nil {
				return nil, err
			}
		}
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		pt := ix.Projection.ProjectionType
		id := indexDescription{
			IndexName:  ix.IndexName,
			KeySchema:  keySchemaOut(ix.KeySchema),
			Projection: projection{ProjectionType: &pt, NonKeyAttributes: ix.Projection.NonKeyAttributes},
			IndexArn:   d.TableArn + "/index/" + ix.IndexName,
		}
		if st, ok := ixStats[ix.ID]; ok {
			id.ItemCount, id.IndexSizeBytes = st.ItemCount, st.SizeBytes
		}
		if ix.Global {
			id.IndexStatus = ix.Status
			if id.IndexStatus == "" || (id.IndexStatus == storage.StatusCreating && !ix.Backfilling && d.TableStatus == storage.StatusActive) {
				id.IndexStatus = storage.StatusActive
			}
			held := indexHeld(ix, e.now())
			if held {
				id.IndexStatus = storage.StatusCreating
			}
			if id.IndexStatus == storage.StatusCreating {
				b := ix.Backfilling || held
				id.Backfilling = &b
			}
			tp := storage.Throughput{}
			if ix.Throughput != nil {
				tp = *ix.Throughput
			}
			tpd := throughputOut(tp)
			id.ProvisionedThroughput = &tpd
			id.OnDemandThroughput = onDemandOut(t.BillingMode, ix.OnDemand)
			warm := warmOut(t.BillingMode, tp, ix.Warm, id.IndexStatus)
			id.WarmThroughput = &warm
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, id)
		} else {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, id)
		}
	}
	return d, nil
}

// keyAttribute reports whether name is a key attribute of t or of one of
// its indexes. DynamoDB's AttributeDefinitions lists exactly those: a
// deleted index's key attributes leave it with the index
// (https://github.com/paritysuite/dynamodb-conformance/issues/79, observed
// on DynamoDB).
func keyAttribute(t *storage.Table, name string) bool {
	for _, k := range t.KeySchema {
		if k.AttributeName == name {
			return true
		}
	}
	for i := range t.Indexes {
		for _, k := range t.Indexes[i].KeySchema {
			if k.AttributeName == name {
				return true
			}
		}
	}
	return false
}
