package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
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
	TableName                           *string                        `json:"TableName"`
	StreamArn                           *string                        `json:"StreamArn"`
	EnableKinesisStreamingConfiguration *kinesisStreamingConfiguration `json:"EnableKinesisStreamingConfiguration"`
	UpdateKinesisStreamingConfiguration *kinesisStreamingConfiguration `json:"UpdateKinesisStreamingConfiguration"`
}

type kinesisDestinationOutput struct {
	TableName                           string                         `json:"TableName"`
	StreamArn                           string                         `json:"StreamArn"`
	DestinationStatus                   string                         `json:"DestinationStatus"`
	EnableKinesisStreamingConfiguration *kinesisStreamingConfiguration `json:"EnableKinesisStreamingConfiguration,omitempty"`
	UpdateKinesisStreamingConfiguration *kinesisStreamingConfiguration `json:"UpdateKinesisStreamingConfiguration,omitempty"`
}

type kinesisDestinationDescription struct {
	StreamArn                            string `json:"StreamArn"`
	DestinationStatus                    string `json:"DestinationStatus"`
	DestinationStatusDescription         string `json:"DestinationStatusDescription,omitempty"`
	ApproximateCreationDateTimePrecision string `json:"ApproximateCreationDateTimePrecision,omitempty"`
}

func (e *Engine) describeKinesisStreamingDestination(ctx context.Context, r *protocol.Request) (any, error) {
	var in kinesisDestinationInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	t, err := e.controlTable(ctx, r, in.TableName)
	if err != nil {
		return nil, err
	}
	out := struct {
		TableName                     string                          `json:"TableName"`
		KinesisDataStreamDestinations []kinesisDestinationDescription `json:"KinesisDataStreamDestinations"`
	}{TableName: t.Name, KinesisDataStreamDestinations: []kinesisDestinationDescription{}}
	for _, d := range t.KinesisDestinations {
		out.KinesisDataStreamDestinations = append(out.KinesisDataStreamDestinations, kinesisDestinationDescription{
			StreamArn: d.StreamArn, DestinationStatus: d.Status,
			DestinationStatusDescription: d.StatusDescription, ApproximateCreationDateTimePrecision: d.Precision,
		})
	}
	return out, nil
}

// kinesisRequest decodes a request of Enable, Disable or (update set)
// UpdateKinesisStreamingDestination, checks its members and resolves its
// table.
func (e *Engine) kinesisRequest(ctx context.Context, r *protocol.Request, update bool) (*kinesisDestinationInput, *storage.Table, error) {
	in := new(kinesisDestinationInput)
	if err := decode(r.Body, in); err != nil {
		return nil, nil, err
	}
	cfg, path := in.EnableKinesisStreamingConfiguration, "enableKinesisStreamingConfiguration"
	if update {
		cfg, path = in.UpdateKinesisStreamingConfiguration, "updateKinesisStreamingConfiguration"
	}
	if err := checkKinesisInput(in, cfg, path); err != nil {
		return nil, nil, err
	}
	t, err := e.lookup(ctx, e.account(r), *in.TableName, lookupControl)
	if err != nil {
		return nil, nil, err
	}
	return in, t, nil
}

// checkKinesisInput validates the members shared by Enable, Disable and
// Update; cfg is the request's streaming configuration, path its member.
func checkKinesisInput(in *kinesisDestinationInput, cfg *kinesisStreamingConfiguration, path string) error {
	var c constraints
	c.tableName(in.TableName)
	if c.notNull(in.StreamArn != nil, "streamArn") {
		c.lenRange(in.StreamArn, "streamArn", 37, 1024)
	}
	if cfg != nil {
		c.enum(cfg.ApproximateCreationDateTimePrecision, path+".approximateCreationDateTimePrecision", "MILLISECOND", "MICROSECOND")
	}
	return c.err()
}

func findDestination(t *storage.Table, arn string) *storage.KinesisDestination {
	for i := range t.KinesisDestinations {
		if t.KinesisDestinations[i].StreamArn == arn {
			return &t.KinesisDestinations[i]
		}
	}
	return nil
}

func (e *Engine) enableKinesisStreamingDestination(ctx context.Context, r *protocol.Request) (any, error) {
	in, cur, err := e.kinesisRequest(ctx, r, false)
	if err != nil {
		return nil, err
	}
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

func (e *Engine) disableKinesisStreamingDestination(ctx context.Context, r *protocol.Request) (any, error) {
	in, cur, err := e.kinesisRequest(ctx, r, false)
	if err != nil {
		return nil, err
	}
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
func (e *Engine) updateKinesisStreamingDestination(ctx context.Context, r *protocol.Request) (any, error) {
	in, t, err := e.kinesisRequest(ctx, r, true)
	if err != nil {
		return nil, err
	}
	return nil, errNoDestination(t.Name, *in.StreamArn)
}
