package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Kinesis streaming destinations: Describe, Enable, Disable and
// UpdateKinesisStreamingDestination. This server has no Kinesis Data
// Streams to write to, so an enabled destination is recorded in the
// table's catalog entry and moves, as in DynamoDB when the stream cannot be
// written, from ENABLING to ENABLE_FAILED (docs/adr/0014).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeKinesisStreamingDestination.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_EnableKinesisStreamingDestination.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DisableKinesisStreamingDestination.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateKinesisStreamingDestination.html

// kinesisUnavailable is the DestinationStatusDescription of a destination
// this server cannot stream to.
const kinesisUnavailable = "Kinesis Data Streams is not available on this server"

type kinesisStreamingConfiguration struct {
	ApproximateCreationDateTimePrecision *string `json:"ApproximateCreationDateTimePrecision,omitempty"`
}

type kinesisDestinationInput struct {
	TableName                           *string
	StreamArn                           *string
	EnableKinesisStreamingConfiguration *kinesisStreamingConfiguration
	UpdateKinesisStreamingConfiguration *kinesisStreamingConfiguration
}

type kinesisDestinationOutput struct {
	TableName                           string
	StreamArn                           string
	DestinationStatus                   string
	EnableKinesisStreamingConfiguration *kinesisStreamingConfiguration `json:"EnableKinesisStreamingConfiguration,omitempty"`
	UpdateKinesisStreamingConfiguration *kinesisStreamingConfiguration `json:"UpdateKinesisStreamingConfiguration,omitempty"`
}

type kinesisDestinationDescription struct {
	StreamArn                            string
	DestinationStatus                    string
	DestinationStatusDescription         string `json:"DestinationStatusDescription,omitempty"`
	ApproximateCreationDateTimePrecision string `json:"ApproximateCreationDateTimePrecision,omitempty"`
}

// The Kinesis operations: Describe checks TableName only; Enable, Disable
// and Update check TableName, StreamArn and their streaming configuration
// (kinesisRules).
var (
	describeKinesisStreamingDestinationOp = &controlOp[kinesisDestinationInput]{
		rules:   rules[kinesisDestinationInput]{tableNameRule(kinesisTableName)},
		table:   byTableName(kinesisTableName),
		execute: (*Engine).describeKinesisStreamingDestination,
	}
	enableKinesisStreamingDestinationOp  = kinesisOp(false, (*Engine).enableKinesisStreamingDestination)
	disableKinesisStreamingDestinationOp = kinesisOp(false, (*Engine).disableKinesisStreamingDestination)
	updateKinesisStreamingDestinationOp  = kinesisOp(true, (*Engine).updateKinesisStreamingDestination)
)

func kinesisTableName(in *kinesisDestinationInput) *string { return in.TableName }

// kinesisOp is Enable, Disable or (update set) Update
// KinesisStreamingDestination: kinesisRules, then the table.
func kinesisOp(update bool, execute func(e *Engine, ctx context.Context, c caller, in *kinesisDestinationInput, t *storage.Table) (any, error)) *controlOp[kinesisDestinationInput] {
	return &controlOp[kinesisDestinationInput]{rules: kinesisRules(update), table: byTableName(kinesisTableName), execute: execute}
}

func (e *Engine) describeKinesisStreamingDestination(_ context.Context, _ caller, _ *kinesisDestinationInput, t *storage.Table) (any, error) {
	out := struct {
		TableName                     string
		KinesisDataStreamDestinations []kinesisDestinationDescription
	}{TableName: t.Name, KinesisDataStreamDestinations: []kinesisDestinationDescription{}}
	for _, d := range t.KinesisDestinations {
		out.KinesisDataStreamDestinations = append(out.KinesisDataStreamDestinations, kinesisDestinationDescription{
			StreamArn: d.StreamArn, DestinationStatus: d.Status,
			DestinationStatusDescription: d.StatusDescription, ApproximateCreationDateTimePrecision: d.Precision,
		})
	}
	return out, nil
}

// kinesisRules are the member rules of Enable and Disable, or (update
// set) UpdateKinesisStreamingDestination: the table, the stream and the
// precision of the request's streaming configuration.
func kinesisRules(update bool) rules[kinesisDestinationInput] {
	path := "enableKinesisStreamingConfiguration"
	if update {
		path = "updateKinesisStreamingConfiguration"
	}
	return rules[kinesisDestinationInput]{
		tableNameRule(kinesisTableName),
		lengthRule("streamArn", func(in *kinesisDestinationInput) *string { return in.StreamArn }, 37, 1024, true),
		func(in *kinesisDestinationInput, c *constraints) {
			cfg := in.EnableKinesisStreamingConfiguration
			if update {
				cfg = in.UpdateKinesisStreamingConfiguration
			}
			if cfg != nil {
				c.enum(cfg.ApproximateCreationDateTimePrecision, path+".approximateCreationDateTimePrecision", "MILLISECOND", "MICROSECOND")
			}
		},
	}
}

func findDestination(t *storage.Table, arn string) *storage.KinesisDestination {
	for i := range t.KinesisDestinations {
		if t.KinesisDestinations[i].StreamArn == arn {
			return &t.KinesisDestinations[i]
		}
	}
	return nil
}

func (e *Engine) enableKinesisStreamingDestination(ctx context.Context, _ caller, in *kinesisDestinationInput, cur *storage.Table) (any, error) {
	precision := "MILLISECOND"
	if cfg := in.EnableKinesisStreamingConfiguration; cfg != nil && cfg.ApproximateCreationDateTimePrecision != nil {
		precision = *cfg.ApproximateCreationDateTimePrecision
	}
	t, err := e.updateCatalog(ctx, cur, func(t *storage.Table) error {
		d := findDestination(t, *in.StreamArn)
		if d != nil && (d.Status == "ACTIVE" || d.Status == "ENABLING") {
			return ddberr.ResourceInUse("Table: %s is already streaming to Kinesis stream: %s", t.Name, *in.StreamArn)
		}
		rec := storage.KinesisDestination{StreamArn: *in.StreamArn, Status: "ENABLE_FAILED", StatusDescription: kinesisUnavailable, Precision: precision}
		if d != nil {
			*d = rec
		} else {
			t.KinesisDestinations = append(t.KinesisDestinations, rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return kinesisDestinationOutput{
		TableName: t.Name, StreamArn: *in.StreamArn, DestinationStatus: "ENABLING",
		EnableKinesisStreamingConfiguration: &kinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: &precision},
	}, nil
}

func (e *Engine) disableKinesisStreamingDestination(ctx context.Context, _ caller, in *kinesisDestinationInput, cur *storage.Table) (any, error) {
	t, err := e.updateCatalog(ctx, cur, func(t *storage.Table) error {
		d := findDestination(t, *in.StreamArn)
		if d == nil || d.Status == "DISABLED" {
			return errNoDestination(t.Name, *in.StreamArn)
		}
		d.Status, d.StatusDescription = "DISABLED", ""
		return nil
	})
	if err != nil {
		return nil, err
	}
	return kinesisDestinationOutput{TableName: t.Name, StreamArn: *in.StreamArn, DestinationStatus: "DISABLING",
		EnableKinesisStreamingConfiguration: in.EnableKinesisStreamingConfiguration}, nil
}

func errNoDestination(table, arn string) error {
	return ddberr.Validation("Table: %s is not streaming to Kinesis stream: %s", table, arn)
}

// updateKinesisStreamingDestination changes the precision of an ACTIVE
// destination; as no destination becomes ACTIVE here, a valid request is
// refused as DynamoDB refuses one for a destination that is not active.
func (e *Engine) updateKinesisStreamingDestination(_ context.Context, _ caller, in *kinesisDestinationInput, t *storage.Table) (any, error) {
	return nil, errNoDestination(t.Name, *in.StreamArn)
}
