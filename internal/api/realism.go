package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/realism"
	"github.com/extenddb/extenddb/internal/storage"
)

// The realism effects (internal/realism, docs/realism-and-triggers.md),
// applied when Config.Realism is set. With it nil, the only cost on the
// request path is one nil check per item operation.

// access is what an item request does, as the realism effects see it.
type access struct {
	kind     string           // realism.Read or realism.Write
	index    string           // the IndexName of a Query or Scan
	eventual bool             // an eventually consistent read
	key      item.Item        // GetItem's Key
	proj     *expr.Projection // GetItem's projection
}

// readAccess is the access of a Query or Scan.
func readAccess(in *readInput) access {
	a := access{kind: realism.Read, eventual: in.ConsistentRead == nil || !*in.ConsistentRead}
	if in.IndexName != nil {
		a.index = *in.IndexName
	}
	return a
}

// regionKey carries the request's region to the throttling errors' ARNs.
type regionKey struct{}

// realisticRun runs an item operation on t with the table's realism
// settings: capacity is admitted first, then the result may be made stale
// (an eventually consistent GetItem) or lagging (a read of a global
// secondary index).
func (e *Engine) realisticRun(ctx context.Context, t *storage.Table, a access, run func() (any, error)) (any, error) {
	s := e.realism.Settings(t.Tags)
	if s.Capacity {
		if err := e.admit(ctx, t, a.kind, s); err != nil {
			return nil, err
		}
	}
	out, err := run()
	if err != nil {
		return out, err
	}
	switch o := out.(type) {
	case *getItemOutput:
		if a.eventual && s.StaleReadWindow > 0 {
			e.staleGet(t, a, o, s)
		}
	case *readOutput:
		if a.index != "" && s.GSILag > 0 && isGlobalIndex(t, a.index) {
			e.lagIndex(t, o, s)
		}
	}
	return out, nil
}

// recentKey names an item of t for the realism's recent writes.
func recentKey(t *storage.Table, k storage.Key) string {
	return t.ID + "\x00" + string(k.PK) + "\x00" + string(k.SK)
}

// realisticMutate is mutate remembering the image each write replaced,
// for stale reads and index lag.
func (e *Engine) realisticMutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	var old item.Item
	err := e.meteredMutate(ctx, t, key, func(o item.Item) (item.Item, error) {
		old = o
		return fn(o)
	})
	if err == nil {
		e.realism.Wrote(recentKey(t, key), old)
	}
	return err
}

// staleGet replaces the item of an eventually consistent GetItem by its
// previous image when it was written within the stale read window, at the
// stale read rate.
func (e *Engine) staleGet(t *storage.Table, a access, o *getItemOutput, s realism.Settings) {
	k, err := requestKey(t, schemaOf(t, t.KeySchema), a.key)
	if err != nil {
		return
	}
	old, ok := e.realism.Recent(recentKey(t, k), s.StaleReadWindow)
	if ok && e.realism.Roll(s.StaleReadRate) {
		o.item = projectItem(a.proj, old)
	}
}

// lagIndex hides from a page of a global secondary index the items
// written within the index lag, as if their index rows had not arrived.
func (e *Engine) lagIndex(t *storage.Table, o *readOutput, s realism.Settings) {
	ks := schemaOf(t, t.KeySchema)
	kept := o.items[:0]
	for _, it := range o.items {
		key := item.Item{ks.hash: it[ks.hash]}
		if ks.rng != "" {
			key[ks.rng] = it[ks.rng]
		}
		if k, err := requestKey(t, ks, key); err == nil {
			if _, recent := e.realism.Recent(recentKey(t, k), s.GSILag); recent {
				continue
			}
		}
		kept = append(kept, it)
	}
	o.n -= len(o.items) - len(kept)
	o.items = kept
}

func isGlobalIndex(t *storage.Table, name string) bool {
	for i := range t.Indexes {
		if t.Indexes[i].IndexName == name {
			return t.Indexes[i].Global
		}
	}
	return false
}

// admit refuses a request on t while the table's capacity of its kind is
// used up: ProvisionedThroughputExceededException for a PROVISIONED
// table, ThrottlingException for an on-demand table past its maximum
// throughput. Both carry ThrottlingReasons naming the table's ARN.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html
func (e *Engine) admit(ctx context.Context, t *storage.Table, kind string, s realism.Settings) error {
	rate, burst, limit := throughputOf(t, kind)
	if limit == "" {
		return nil
	}
	if burst == 0 {
		burst = s.Burst
	}
	if e.realism.Admit(t.Name+"/"+kind, rate, burst) {
		return nil
	}
	region, _ := ctx.Value(regionKey{}).(string)
	reasons := []throttlingReason{{Reason: "Table" + kind + limit, Resource: e.tableArn(region, t)}}
	if limit == limitOnDemand {
		return ddberr.Throttling("Throughput exceeds the maximum OnDemandThroughput configured on table or index").With("ThrottlingReasons", reasons)
	}
	return ddberr.ProvisionedThroughputExceeded("The level of configured provisioned throughput for the table was exceeded. "+
		"Consider increasing your provisioning level with the UpdateTable API.").With("ThrottlingReasons", reasons)
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
		r.Charge(table+"/"+k, units)
		if next != nil {
			next(table, kind, units, items, bytes)
		}
	}
}

// faultOps are the operations faults are injected into, and whether they
// are transactions (a conflict cancels them) or single-item writes (a
// conflict fails them).
var faultOps = map[string]string{
	"GetItem": "", "Query": "", "Scan": "", "BatchGetItem": "", "BatchWriteItem": "",
	"ExecuteStatement": "", "BatchExecuteStatement": "",
	"PutItem": "write", "UpdateItem": "write", "DeleteItem": "write",
	"TransactWriteItems": "tx", "TransactGetItems": "tx", "ExecuteTransaction": "tx",
}

// injectFault fails a request with an injected fault, at the server-wide
// rates: InternalServerError, or a transaction conflict worded as
// DynamoDB words it for a single-item write (TransactionConflictException)
// and for a transaction (TransactionCanceledException whose first reason
// is TransactionConflict).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
func (e *Engine) injectFault(r *protocol.Request) error {
	kind, ok := faultOps[r.Operation]
	if !ok || r.Service != "DynamoDB" {
		return nil
	}
	s := e.realism.Defaults()
	if e.realism.Roll(s.InternalErrorRate) {
		return ddberr.Internal("Internal server error")
	}
	if kind == "" || !e.realism.Roll(s.TransactionConflictRate) {
		return nil
	}
	if kind == "write" {
		return ddberr.TransactionConflict(txConflictMessage)
	}
	var tx struct {
		TransactItems      []json.RawMessage
		TransactStatements []json.RawMessage
	}
	if json.Unmarshal(r.Body, &tx) != nil {
		return nil // the operation reports the malformed request
	}
	n := max(len(tx.TransactItems), len(tx.TransactStatements))
	if n == 0 {
		return nil
	}
	reasons := make([]cancellationReason, n)
	reasons[0] = cancellationReason{Code: "TransactionConflict", Message: txConflictMessage}
	for i := 1; i < n; i++ {
		reasons[i] = cancellationReason{Code: "None"}
	}
	return transactionCanceled(reasons)
}
