package api

import (
	"context"
	"errors"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
)

// Capacity enforcement of the realism effects: one token bucket per table
// and global secondary index and kind (read, write), charged what the
// metering counts (metering.go) and checked before each item request.

// bucketKey names the bucket of a table (index "") or of one of its
// global secondary indexes.
func bucketKey(t *storage.Table, index, kind string) string {
	return t.Name + "/" + index + "/" + kind
}

// admit refuses a request on t while the capacity it needs is used up: a
// read of a global secondary index needs the index's read capacity, a
// write the table's and every provisioned global secondary index's write
// capacity, any other read the table's. A PROVISIONED table or index
// refuses with ProvisionedThroughputExceededException, an on-demand table
// past its maximum throughput with ThrottlingException; both carry
// ThrottlingReasons naming the table's or the index's ARN.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html
func (e *Engine) admit(ctx context.Context, t *storage.Table, a access, s realism.Settings) error {
	kind := a.kind
	if ix := globalIndex(t, a.index); ix != nil && kind == realism.Read {
		return e.admitIndex(ctx, t, ix, kind, s)
	}
	if kind == realism.Write {
		for i := range t.Indexes {
			if ix := &t.Indexes[i]; ix.Global {
				if err := e.admitIndex(ctx, t, ix, kind, s); err != nil {
					return err
				}
			}
		}
	}
	rate, burst, limit := throughputOf(t, kind)
	if limit == "" {
		return nil
	}
	if burst == 0 {
		burst = s.Burst
	}
	if e.realism.Admit(bucketKey(t, "", kind), rate, burst) {
		return nil
	}
	region, _ := ctx.Value(regionKey{}).(string)
	reasons := []throttlingReason{{Reason: "Table" + kind + limit, Resource: e.tableArn(region, t)}}
	if limit == limitOnDemand {
		return ddberr.Throttling("Throughput exceeds the maximum OnDemandThroughput configured on table or index").With("ThrottlingReasons", reasons)
	}
	return ddberr.ProvisionedThroughputExceeded("%s", msgTableThroughput).With("ThrottlingReasons", reasons)
}

// The limit types of ThrottlingReason that admit reports.
const (
	limitProvisioned = "ProvisionedThroughputExceeded"
	limitOnDemand    = "MaxOnDemandThroughputExceeded"
)

// throughputOf returns the rate in units per second t may use for kind,
// the unused capacity it keeps (0 for the configured burst) and the limit
// type a throttle reports; limit is "" when t has no limit.
func throughputOf(t *storage.Table, kind string) (rate float64, burst time.Duration, limit string) {
	if t.BillingMode == "PAY_PER_REQUEST" {
		if t.OnDemand == nil {
			return 0, 0, ""
		}
		// A maximum on-demand throughput is a rate per second: nothing
		// unused is kept beyond one second.
		rate = float64(t.OnDemand.MaxReadRequestUnits)
		if kind == realism.Write {
			rate = float64(t.OnDemand.MaxWriteRequestUnits)
		}
		if rate <= 0 {
			return 0, 0, ""
		}
		return rate, time.Second, limitOnDemand
	}
	rate = float64(t.Throughput.ReadCapacityUnits)
	if kind == realism.Write {
		rate = float64(t.Throughput.WriteCapacityUnits)
	}
	return rate, 0, limitProvisioned
}

// throttlingReason is a ThrottlingReason of a throttling error.
type throttlingReason struct {
	Reason   string `json:"reason"`
	Resource string `json:"resource"`
}

// chargeRealism wraps Config.OnTableUse so that every metered read and
// write also takes its units from the table's capacity bucket.
func chargeRealism(r *realism.Realism, next func(table, kind string, units float64, items int, bytes int64)) func(table, kind string, units float64, items int, bytes int64) {
	return func(table, kind string, units float64, items int, bytes int64) {
		k := realism.Read
		if kind == useWrite {
			k = realism.Write
		}
		r.Charge(table+"//"+k, units)
		if next != nil {
			next(table, kind, units, items, bytes)
		}
	}
}

// The messages of ProvisionedThroughputExceededException for a table and
// for its global secondary indexes.
// https://github.com/quintilesims/layer0/issues/229 and
// https://github.com/grailbio/reflow/issues/101 quote them.
const (
	msgTableThroughput = "The level of configured provisioned throughput for the table was exceeded. " +
		"Consider increasing your provisioning level with the UpdateTable API."
	msgIndexThroughput = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. " +
		"Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API"
)

// admitIndex refuses a request while a provisioned global secondary
// index's capacity of its kind is used up; an index without provisioned
// throughput (on an on-demand table) is not limited.
func (e *Engine) admitIndex(ctx context.Context, t *storage.Table, ix *storage.Index, kind string, s realism.Settings) error {
	if ix.Throughput == nil || t.BillingMode == "PAY_PER_REQUEST" {
		return nil
	}
	rate := float64(ix.Throughput.ReadCapacityUnits)
	if kind == realism.Write {
		rate = float64(ix.Throughput.WriteCapacityUnits)
	}
	if e.realism.Admit(bucketKey(t, ix.IndexName, kind), rate, s.Burst) {
		return nil
	}
	region, _ := ctx.Value(regionKey{}).(string)
	reasons := []throttlingReason{{Reason: "Index" + kind + limitProvisioned, Resource: e.tableArn(region, t) + "/index/" + ix.IndexName}}
	msg := msgIndexThroughput
	if kind == realism.Read {
		msg = msgTableThroughput
	}
	return ddberr.ProvisionedThroughputExceeded("%s", msg).With("ThrottlingReasons", reasons)
}

// askCapacity makes a read of a global secondary index compute its
// consumed capacity, and reports whether the caller did not ask for it
// (it is then removed from the response).
func (a access) askCapacity() bool {
	if a.capacity == nil || a.index == "" || *a.capacity != nil {
		return false
	}
	total := "TOTAL"
	*a.capacity = &total
	return true
}

// chargeIndexRead moves what a read of a global secondary index consumed
// from the table's bucket (which the metering charged) to the index's.
func (e *Engine) chargeIndexRead(t *storage.Table, a access, out any, hidden bool) {
	o, ok := out.(*readOutput)
	if !ok || o.capacity == nil || globalIndex(t, a.index) == nil {
		return
	}
	units := o.capacity.total()
	e.realism.Charge(bucketKey(t, "", realism.Read), -units)
	e.realism.Charge(bucketKey(t, a.index, realism.Read), units)
	if hidden {
		o.capacity = nil
	}
}

// chargeIndexWrite moves the units of the global secondary index entries
// an item write put or deleted from the table's bucket (the metering
// charged the table the whole write) to the indexes' buckets.
func (e *Engine) chargeIndexWrite(t *storage.Table, old, nw item.Item) {
	c := &consumed{}
	c.chargeWrite(t, old, nw)
	for name, units := range c.gsi {
		e.realism.Charge(bucketKey(t, "", realism.Write), -units)
		e.realism.Charge(bucketKey(t, name, realism.Write), units)
	}
}

// admitBatchMember refuses one member of a BatchGetItem (kind Read) or
// BatchWriteItem (kind Write) on t while the capacity it needs is used up,
// with the error admit gives a single-item request. The batch returns the
// member in UnprocessedKeys or UnprocessedItems, and fails with the error
// only when every member is refused: "If none of the items can be
// processed due to insufficient provisioned throughput on all of the
// tables in the request, then BatchGetItem returns a
// ProvisionedThroughputExceededException."
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func (e *Engine) admitBatchMember(ctx context.Context, t *storage.Table, kind string) error {
	s := e.realism.Settings(t.Tags)
	if !s.Capacity {
		return nil
	}
	return e.admit(ctx, t, access{kind: kind}, s)
}

// admitTransaction refuses a transaction as a whole while the capacity
// one of its actions needs is used up (the action's table, kind Read for
// TransactGetItems, Write for TransactWriteItems): DynamoDB cancels it
// "when there is insufficient provisioned capacity for the transaction to
// be completed", with TransactionCanceledException whose reasons are
// ProvisionedThroughputExceeded (ThrottlingError past an on-demand
// maximum) for the throttled actions and None for the others.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html#API_TransactGetItems_Errors
func (e *Engine) admitTransaction(ctx context.Context, tables []*storage.Table, kind string) error {
	if e.realism == nil {
		return nil
	}
	var reasons []cancellationReason
	for i, t := range tables {
		err := e.admitBatchMember(ctx, t, kind)
		if err == nil {
			continue
		}
		if reasons == nil {
			reasons = make([]cancellationReason, len(tables))
			for j := range reasons {
				reasons[j].Code = "None"
			}
		}
		reasons[i].Code = "ProvisionedThroughputExceeded"
		var de *ddberr.Error
		if errors.As(err, &de) {
			if de.Name() == "ThrottlingException" {
				reasons[i].Code = "ThrottlingError"
			}
			reasons[i].Message = de.Message
		}
	}
	if reasons == nil {
		return nil
	}
	return transactionCanceled(reasons)
}
