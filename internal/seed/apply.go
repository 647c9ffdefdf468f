package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
)

// activeWait bounds the wait for a created table to become ACTIVE (with a
// configured status delay).
const activeWait = time.Minute

// Apply creates the tables of p that do not exist yet, with their TTL and
// point in time recovery settings, and puts the items of p, through h (the
// engine, so that every request is validated as a client's would be) as
// caller. A table that exists is left as it is.
func Apply(ctx context.Context, h protocol.Handler, caller protocol.Caller, p *Plan, log *slog.Logger) error {
	a := &applier{h: h, caller: caller}
	for _, t := range p.Tables {
		created, err := a.create(ctx, t)
		if err != nil {
			return fmt.Errorf("seed: %s: table %s: %w", t.Source, t.Name, err)
		}
		log.Info("seed table", "table", t.Name, "source", t.Source, "created", created)
	}
	for _, f := range p.Items {
		n, err := a.load(ctx, f)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		log.Info("seed items", "table", f.Table, "file", f.Path, "items", n)
	}
	return nil
}

type applier struct {
	h      protocol.Handler
	caller protocol.Caller
}

// call runs one operation and decodes its answer into out (nil: ignored).
func (a *applier) call(ctx context.Context, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	resp, err := a.h.Serve(ctx, &protocol.Request{Service: "DynamoDB", Operation: op, Caller: a.caller, Body: body})
	if err != nil || out == nil {
		return err
	}
	var raw []byte
	if ap, ok := resp.(protocol.Appender); ok {
		raw = ap.AppendJSON(nil)
	} else if raw, err = json.Marshal(resp); err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

type description struct {
	Table struct {
		TableStatus          string
		AttributeDefinitions []struct{ AttributeName, AttributeType string }
	}
}

// create creates t unless its table exists; created reports which.
func (a *applier) create(ctx context.Context, t *Table) (created bool, err error) {
	err = a.call(ctx, "CreateTable", t.CreateTable, nil)
	if ddberr.Is(err, "ResourceInUseException") {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := a.waitActive(ctx, t.Name); err != nil {
		return true, err
	}
	if t.TTLAttribute != "" {
		spec := map[string]any{"Enabled": true, "AttributeName": t.TTLAttribute}
		if err := a.call(ctx, "UpdateTimeToLive", map[string]any{"TableName": t.Name, "TimeToLiveSpecification": spec}, nil); err != nil {
			return true, err
		}
	}
	if t.PointInTimeRecovery {
		spec := map[string]any{"PointInTimeRecoveryEnabled": true}
		if err := a.call(ctx, "UpdateContinuousBackups", map[string]any{"TableName": t.Name, "PointInTimeRecoverySpecification": spec}, nil); err != nil {
			return true, err
		}
	}
	return true, nil
}

func (a *applier) describe(ctx context.Context, name string) (*description, error) {
	var d description
	err := a.call(ctx, "DescribeTable", map[string]any{"TableName": name}, &d)
	return &d, err
}

func (a *applier) waitActive(ctx context.Context, name string) error {
	deadline := time.Now().Add(activeWait)
	for {
		d, err := a.describe(ctx, name)
		if err != nil {
			return err
		}
		if d.Table.TableStatus == "ACTIVE" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still %s after %s", d.Table.TableStatus, activeWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// load puts the items of f and returns how many.
func (a *applier) load(ctx context.Context, f ItemsFile) (int, error) {
	d, err := a.describe(ctx, f.Table)
	if err != nil {
		return 0, fmt.Errorf("%s: table %s: %w", f.Path, f.Table, err)
	}
	n := 0
	put := func(it json.RawMessage) error {
		n++
		return a.call(ctx, "PutItem", map[string]any{"TableName": f.Table, "Item": it}, nil)
	}
	types := map[string]string{}
	for _, ad := range d.Table.AttributeDefinitions {
		types[ad.AttributeName] = ad.AttributeType
	}
	return n, readItems(f.Path, f.Format, types, put)
}
