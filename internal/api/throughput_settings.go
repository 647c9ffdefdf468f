package api

import (
	"github.com/extenddb/extenddb/internal/storage"
)

// OnDemandThroughput and WarmThroughput of tables and global secondary
// indexes (CreateTable, UpdateTable, described in TableDescription). Both
// are stored in the catalog entry; neither limits or speeds up requests on
// this server (docs/adr/0014).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_OnDemandThroughput.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_WarmThroughput.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html
// Their wire shapes are in describe.go.

// The warm throughput every new on-demand table or index starts with.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html
const (
	baseWarmRead  = 12000
	baseWarmWrite = 4000
)

// checkOnDemand validates an OnDemandThroughput member: each maximum is
// -1 (no maximum) or at least 1, as quoted in
// https://github.com/hashicorp/terraform-provider-aws/issues/39760;
// what is "table" or "index". It is refused for a PROVISIONED table.
func checkOnDemand(od *onDemandThroughput, billing, what string) error {
	if od == nil {
		return nil
	}
	if billing != "PAY_PER_REQUEST" {
		return invalid("OnDemandThroughput can be specified only when BillingMode is PAY_PER_REQUEST")
	}
	if v := od.MaxReadRequestUnits; v != nil && *v != -1 && *v < 1 {
		return invalid("Requested MaxReadRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	if v := od.MaxWriteRequestUnits; v != nil && *v != -1 && *v < 1 {
		return invalid("Requested MaxWriteRequestUnits for OnDemandThroughput for %s is outside of valid range", what)
	}
	return nil
}

// mergeOnDemand applies a validated OnDemandThroughput to the stored one:
// a member given replaces the stored value, -1 removes the maximum.
func mergeOnDemand(cur *storage.OnDemandThroughput, od *onDemandThroughput) *storage.OnDemandThroughput {
	if od == nil {
		return cur
	}
	out := valueOrZero(cur)
	setGiven(&out.MaxReadRequestUnits, od.MaxReadRequestUnits, 0)
	setGiven(&out.MaxWriteRequestUnits, od.MaxWriteRequestUnits, 0)
	if out == (storage.OnDemandThroughput{}) {
		return nil
	}
	return &out
}

// valueOrZero returns *p, or T's zero value when p is nil.
func valueOrZero[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// setGiven sets *dst to v, raised to floor, when v is given.
func setGiven(dst, v *int64, floor int64) {
	if v != nil {
		*dst = max(*v, floor)
	}
}

// checkWarm validates a WarmThroughput member against the warm throughput
// the table or index has now (cur): warm throughput can only be raised.
func checkWarm(w *warmThroughput, cur warmThroughputDescription, what string) error {
	if w == nil {
		return nil
	}
	if w.ReadUnitsPerSecond == nil && w.WriteUnitsPerSecond == nil {
		return invalid("WarmThroughput for %s must specify ReadUnitsPerSecond, WriteUnitsPerSecond, or both", what)
	}
	if v := w.ReadUnitsPerSecond; v != nil && *v < cur.ReadUnitsPerSecond {
		return invalid("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than the current value of %d", what, cur.ReadUnitsPerSecond)
	}
	if v := w.WriteUnitsPerSecond; v != nil && *v < cur.WriteUnitsPerSecond {
		return invalid("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than the current value of %d", what, cur.WriteUnitsPerSecond)
	}
	return nil
}

// mergeWarm records a validated WarmThroughput request.
func mergeWarm(cur *storage.WarmThroughput, w *warmThroughput) *storage.WarmThroughput {
	if w == nil {
		return cur
	}
	out := valueOrZero(cur)
	if v := w.ReadUnitsPerSecond; v != nil {
		out.ReadUnitsPerSecond = *v
	}
	if v := w.WriteUnitsPerSecond; v != nil {
		out.WriteUnitsPerSecond = *v
	}
	return &out
}

// warmOut is the warm throughput of a table or index: the highest of the
// base of its capacity mode (an on-demand table's initial 12,000 reads and
// 4,000 writes, or a provisioned one's capacity) and what was requested.
func warmOut(billing string, tp storage.Throughput, w *storage.WarmThroughput, status string) warmThroughputDescription {
	d := warmThroughputDescription{ReadUnitsPerSecond: baseWarmRead, WriteUnitsPerSecond: baseWarmWrite, Status: status}
	if billing != "PAY_PER_REQUEST" {
		d.ReadUnitsPerSecond, d.WriteUnitsPerSecond = tp.ReadCapacityUnits, tp.WriteCapacityUnits
	}
	if w != nil {
		d.ReadUnitsPerSecond = max(d.ReadUnitsPerSecond, w.ReadUnitsPerSecond)
		d.WriteUnitsPerSecond = max(d.WriteUnitsPerSecond, w.WriteUnitsPerSecond)
	}
	return d
}

// onDemandOut is the OnDemandThroughput of an on-demand table or index:
// -1 for a maximum that is not set. Nil for a PROVISIONED one.
func onDemandOut(billing string, od *storage.OnDemandThroughput) *onDemandThroughputDescription {
	if billing != "PAY_PER_REQUEST" {
		return nil
	}
	d := &onDemandThroughputDescription{MaxReadRequestUnits: -1, MaxWriteRequestUnits: -1}
	if od != nil {
		if od.MaxReadRequestUnits > 0 {
			d.MaxReadRequestUnits = od.MaxReadRequestUnits
		}
		if od.MaxWriteRequestUnits > 0 {
			d.MaxWriteRequestUnits = od.MaxWriteRequestUnits
		}
	}
	return d
}

// tableThroughputSettings applies CreateTable's OnDemandThroughput and
// WarmThroughput members, of the table and of its GSIs, to t (already
// built from the rest of the request).
func tableThroughputSettings(t *storage.Table, in *createTableInput) error {
	if err := checkOnDemand(in.OnDemandThroughput, t.BillingMode, "table"); err != nil {
		return err
	}
	t.OnDemand = mergeOnDemand(nil, in.OnDemandThroughput)
	if err := checkWarm(in.WarmThroughput, warmThroughputDescription{}, "table"); err != nil {
		return err
	}
	t.Warm = mergeWarm(nil, in.WarmThroughput)
	for _, gi := range in.GlobalSecondaryIndexes {
		ix := globalIndex(t, valueOrZero(gi.IndexName))
		if ix == nil {
			continue
		}
		if err := indexThroughputSettings(t, ix, gi.OnDemandThroughput, gi.WarmThroughput); err != nil {
			return err
		}
	}
	return nil
}

// indexThroughputSettings applies a GSI's OnDemandThroughput and
// WarmThroughput members to ix, a global secondary index of t.
func indexThroughputSettings(t *storage.Table, ix *storage.Index, od *onDemandThroughput, w *warmThroughput) error {
	if err := checkOnDemand(od, t.BillingMode, "index"); err != nil {
		return err
	}
	ix.OnDemand = mergeOnDemand(ix.OnDemand, od)
	tp := storage.Throughput{}
	if ix.Throughput != nil {
		tp = *ix.Throughput
	}
	if err := checkWarm(w, warmOut(t.BillingMode, tp, ix.Warm, ""), "index"); err != nil {
		return err
	}
	ix.Warm = mergeWarm(ix.Warm, w)
	return nil
}

// updateThroughputSettings applies UpdateTable's OnDemandThroughput and
// WarmThroughput members to t, after its billing mode has been updated. A
// switch to PROVISIONED drops the on-demand maximums.
func updateThroughputSettings(t *storage.Table, od *onDemandThroughput, w *warmThroughput) error {
	if t.BillingMode != "PAY_PER_REQUEST" {
		t.OnDemand = nil
		for i := range t.Indexes {
			t.Indexes[i].OnDemand = nil
		}
	}
	if err := checkOnDemand(od, t.BillingMode, "table"); err != nil {
		return err
	}
	t.OnDemand = mergeOnDemand(t.OnDemand, od)
	if err := checkWarm(w, warmOut(t.BillingMode, t.Throughput, t.Warm, ""), "table"); err != nil {
		return err
	}
	t.Warm = mergeWarm(t.Warm, w)
	return nil
}
