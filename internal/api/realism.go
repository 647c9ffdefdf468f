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
	proj     *expr.Projection // the read's projection
	filter   *expr.Condition  // the filter of a Query or Scan
	// capacity is the ReturnConsumedCapacity member of a Query or Scan,
	// set for the realism to learn what a read of an index consumed.
	capacity **string
}

// readAccess is the access of a Query or Scan.
func readAccess(in *readInput) access {
	a := access{kind: realism.Read, eventual: in.ConsistentRead == nil || !*in.ConsistentRead, proj: in.proj, filter: in.filter,
		capacity: &in.ReturnConsumedCapacity}
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
	var hidden bool // capacity asked for on the caller's behalf
	if s.Capacity {
		if err := e.admit(ctx, t, a, s); err != nil {
			return nil, err
		}
		hidden = a.askCapacity()
	}
	out, err := run()
	if err != nil {
		return out, err
	}
	if s.Capacity {
		e.chargeIndexRead(t, a, out, hidden)
	}
	switch o := out.(type) {
	case *getItemOutput:
		if a.eventual && s.StaleReadWindow > 0 {
			e.staleGet(t, a, o, s)
		}
	case *readOutput:
		switch {
		case a.index != "" && s.GSILag > 0 && globalIndex(t, a.index) != nil:
			e.lagIndex(t, o, s)
		case a.index == "" && a.eventual && s.StaleReadWindow > 0:
			e.staleRead(t, a, o, s)
		}
	}
	return out, nil
}

// statusDelay is how long a change of t keeps it CREATING, UPDATING or
// DELETING: the realism setting status-delay of the table (its tag, or
// --realism) when there is one, Config.StatusDelay otherwise.
func (e *Engine) statusDelay(t *storage.Table) time.Duration {
	if e.realism != nil {
		if s := e.realism.Settings(t.Tags); s.HasStatusDelay {
			return s.StatusDelay
		}
	}
	return e.cfg.StatusDelay
}

// recentKey names an item of t for the realism's recent writes.
func recentKey(t *storage.Table, k storage.Key) string {
	return t.ID + "\x00" + string(k.PK) + "\x00" + string(k.SK)
}

// realisticMutate is mutate remembering the image each write replaced,
// for stale reads and index lag.
func (e *Engine) realisticMutate(ctx context.Context, t *storage.Table, key storage.Key, fn storage.MutateFunc) error {
	var old, nw item.Item
	err := e.meteredMutate(ctx, t, key, observed(fn, &old, &nw))
	if err == nil {
		e.realism.Wrote(recentKey(t, key), old)
		e.chargeIndexWrite(t, old, nw)
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

// staleItem is what an eventually consistent read of the item k of t
// (BatchGetItem) returns: the image before a write within the stale read
// window, at the stale read rate, or else it, the current image.
func (e *Engine) staleItem(t *storage.Table, k storage.Key, it item.Item) item.Item {
	s := e.realism.Settings(t.Tags)
	if s.StaleReadWindow <= 0 {
		return it
	}
	if old, ok := e.realism.Recent(recentKey(t, k), s.StaleReadWindow); ok && e.realism.Roll(s.StaleReadRate) {
		return old
	}
	return it
}

// lagIndex hides from a page of a global secondary index the items
// written within the index lag, as if their index rows had not arrived.
func (e *Engine) lagIndex(t *storage.Table, o *readOutput, s realism.Settings) {
	e.ageItems(t, o, func(key string) (item.Item, bool, bool) {
		_, recent := e.realism.Recent(key, s.GSILag)
		return nil, recent, recent
	})
}

// staleRead gives the items of an eventually consistent Query or Scan of
// a table written within the stale read window their previous image, at
// the stale read rate: projected and filtered like the others, and left
// out when there was none (the item was created within the window) or
// the filter refuses it.
func (e *Engine) staleRead(t *storage.Table, a access, o *readOutput, s realism.Settings) {
	e.ageItems(t, o, func(key string) (item.Item, bool, bool) {
		old, recent := e.realism.Recent(key, s.StaleReadWindow)
		if !recent || !e.realism.Roll(s.StaleReadRate) {
			return nil, false, false
		}
		if old == nil {
			return nil, false, true
		}
		if a.filter != nil {
			if ok, err := a.filter.Eval(old); err != nil || !ok {
				return nil, false, true
			}
		}
		return projectItem(a.proj, old), true, false
	})
}

// ageItems replaces or drops the items of a page as older reports for
// each item's key: the image to show instead (when replace), or drop. An
// item whose table key the projection left out is kept as it is.
func (e *Engine) ageItems(t *storage.Table, o *readOutput, older func(key string) (img item.Item, replace, drop bool)) {
	if o.count {
		return
	}
	ks := schemaOf(t, t.KeySchema)
	kept := o.items[:0]
	for _, it := range o.items {
		key := item.Item{ks.hash: it[ks.hash]}
		if ks.rng != "" {
			key[ks.rng] = it[ks.rng]
		}
		if k, err := requestKey(t, ks, key); err == nil {
			img, replace, drop := older(recentKey(t, k))
			if drop {
				continue
			}
			if replace {
				it = img
			}
		}
		kept = append(kept, it)
	}
	o.n -= len(o.items) - len(kept)
	o.items = kept
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
