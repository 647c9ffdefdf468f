package workers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// TTLConfig tunes a TTL worker. The zero value works.
type TTLConfig struct {
	// PageConfig's PageSize is how many items one backfill transaction
	// registers, and how many expiry rows one drain transaction removes;
	// its PageDelay is a pause before every backfill and drain page (tests
	// use it to observe ENABLING and DISABLING). Its Metrics counts expired
	// items, expiry lag and transition pages.
	PageConfig
	// Interval is how often expired items are looked for (and pending
	// backfills and drains resumed); default 30 s.
	Interval time.Duration
	// Batch is how many expired items one delete transaction removes;
	// default 256.
	Batch int
	// SettleTime is the time budget of Settle (after its first page,
	// which always runs); default 100 ms.
	SettleTime time.Duration
	// Owner names this process in leases (storage.Leaser); default random.
	Owner string
}

// TTL runs the Time to Live lifecycle through the backend's
// storage.TTLStore: it finishes ENABLING tables (the backfill, resumed from
// its durable cursor after a restart) and DISABLING ones (the drain), and
// deletes expired items through the normal write path, each conditioned
// on still being expired, with stream records naming the TTL service.
// Several processes sharing a backend that implements storage.Leaser
// expire each table from one of them at a time.
type TTL struct {
	backfiller
	cfg TTLConfig
}

// NewTTL returns a worker over store.
func NewTTL(store storage.Backend, cfg TTLConfig) *TTL {
	cfg.setDefaults()
	cfg.Interval = orDefault(cfg.Interval, 30*time.Second)
	cfg.Batch = orDefault(cfg.Batch, 256)
	cfg.SettleTime = orDefault(cfg.SettleTime, settleTime)
	if cfg.Owner == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Owner = hex.EncodeToString(b[:])
	}
	w := &TTL{backfiller: newBackfiller(store, cfg.Log), cfg: cfg}
	w.register(KindTTLBackfill, w.runTransition(storage.TTLEnabling, w.store.BackfillTTL))
	w.register(KindTTLDrain, w.runTransition(storage.TTLDisabling, w.store.DrainTTL))
	return w
}

// Run works until ctx ends: a pass at start, then one after every Kick
// and every Interval.
func (w *TTL) Run(ctx context.Context) {
	loop(ctx, "ttl worker", w.cfg.Interval, w.kick, w.cfg.Log, w.RunOnce)
}

// RunOnce makes sure every pending backfill and drain has its job, runs
// those this process may run (not those another process holds) to their
// end, and deletes the expired items of every table, then returns. Errors
// of one table do not stop the others; the first is returned.
func (w *TTL) RunOnce(ctx context.Context) error {
	first := w.ensureAndRun(ctx, w.cfg.Accounts, func(t *storage.Table) error {
		kind, ok := ttlJobKind[t.TTL.Status]
		if !ok {
			return nil
		}
		return ensureJob(ctx, w.jobs, kind, fmt.Sprintf("%s.%d", t.ID, t.TTL.Generation), t.Account,
			backfillParams{Table: t.Name, TableID: t.ID, Generation: t.TTL.Generation})
	})
	err := eachTable(ctx, w.store, w.cfg.Accounts, func(t *storage.Table) error {
		if !t.TTL.Maintained() {
			return nil
		}
		_, err := w.ExpireTable(ctx, t)
		return err
	})
	if first == nil {
		first = err
	}
	return first
}

// ttlJobKind is the job kind of each pending TTL transition.
var ttlJobKind = map[string]string{storage.TTLEnabling: KindTTLBackfill, storage.TTLDisabling: KindTTLDrain}

// The budget of Settle: about this many items (backfill) or expiry rows
// (drain), and this much time by default (TTLConfig.SettleTime).
const (
	settleItems = 4096
	settleTime  = 100 * time.Millisecond
)

// Settle runs the backfill or drain that an accepted UpdateTimeToLive left
// pending on t (its catalog entry as that call committed it) inline: pages
// of PageSize items each, the first two always, the next ones while fewer
// than settleItems items have gone and SettleTime has not passed since the
// end of the first page, so that a backend whose first page waits first
// (Cassandra's grace, ADR 0018g) still settles a table of a few pages.
// PageDelay is waited before each page only while it fits in the rest of
// the budget (before the first page, SettleTime from the call); else
// Settle stops there. It reports
// whether the transition finished: then a small
// table is ENABLED or DISABLED by the time UpdateTimeToLive returns, as
// DynamoDB's DescribeTimeToLive reports it at once. A larger table stays
// ENABLING or DISABLING and Run completes it; a page that fails is left to
// Run as well.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html
func (w *TTL) Settle(ctx context.Context, t *storage.Table) bool {
	var page func(ctx context.Context, account, name string, gen int64, limit int) (bool, error)
	switch t.TTL.Status {
	case storage.TTLEnabling:
		page = w.store.BackfillTTL
	case storage.TTLDisabling:
		page = w.store.DrainTTL
	default:
		return true
	}
	deadline := time.Now().Add(w.cfg.SettleTime)
	for n := 0; n < settleItems; n += w.cfg.PageSize {
		if d := w.cfg.PageDelay; d > 0 {
			if time.Until(deadline) < d {
				return false
			}
			select {
			case <-ctx.Done():
				return false
			case <-time.After(d):
			}
		}
		done, err := page(ctx, t.Account, t.Name, t.TTL.Generation, w.cfg.PageSize)
		if err != nil || done {
			return done && err == nil
		}
		if n == 0 {
			deadline = time.Now().Add(w.cfg.SettleTime)
		} else if time.Now().After(deadline) {
			return false
		}
	}
	return false
}

// runTransition is the job of one TTL backfill (from ENABLING) or drain
// (from DISABLING): pages of the job's generation until done (the page
// reports done too once the table moved on to another generation).
func (w *TTL) runTransition(from string, page func(ctx context.Context, account, name string, gen int64, limit int) (bool, error)) jobs.Handler {
	return func(ctx context.Context, run *jobs.Run) error {
		var p backfillParams
		if err := run.Job.DecodeParams(&p); err != nil {
			return err
		}
		start := time.Now()
		account := run.Job.Account
		one := func(ctx context.Context) (bool, error) {
			return page(ctx, account, p.Table, p.Generation, w.cfg.PageSize)
		}
		n, finished, err := runPages(ctx, run, w.cfg.Log, w.cfg.PageSize, w.cfg.PageDelay, one, func() { w.cfg.Metrics.BackfillPage(ttlJob[from]) })
		if finished {
			w.cfg.Log.Info("ttl transition finished", "table", p.Table, "from", from, "pages", n, "took", time.Since(start))
		}
		return err
	}
}

// ttlJob names TTL transitions in the backfill metrics.
var ttlJob = map[string]string{storage.TTLEnabling: "ttl_enable", storage.TTLDisabling: "ttl_disable"}

// ExpireTable deletes the items of t that are expired now, in batches of
// cfg.Batch per write transaction (on a storage.ParallelWriter, as that
// many single-item writes, several at once), and returns how many it
// deleted. Each batch reads the table's entry again; the pass ends when
// the table is another one or its TTL changed. Each delete is
// conditioned on the item still being expired (its current image, read
// under the write's lock) and carries the TTL service identity. Without
// the table's lease (storage.Leaser) it does nothing; the lease is renewed
// between batches, and the pass ends (without an error) once another
// process took it.
func (w *TTL) ExpireTable(ctx context.Context, t *storage.Table) (int, error) {
	lease := w.expiryLease(t)
	ctx = storage.WithUserIdentity(ctx, storage.TTLService)
	now := w.cfg.Now()
	from := now.Unix() - int64(storage.TTLMaxAge/time.Second)
	total := 0
	for batch := 0; ctx.Err() == nil; batch++ {
		if own, err := lease.hold(ctx); err != nil || !own {
			if err == nil && batch > 0 {
				w.cfg.Log.Info("ttl lease lost; expiry pass ends", "table", t.Name, "expired", total)
			}
			return total, err
		}
		if batch > 0 {
			// Each batch works from a fresh catalog entry: a long pass
			// follows the table's changes (and, on Cassandra, writes derive
			// their rows from it without reading the catalog each).
			cur, err := w.store.GetTable(ctx, t.Account, t.Name)
			if err != nil {
				return total, err
			}
			if cur.ID != t.ID || !cur.TTL.Maintained() || cur.TTL.Generation != t.TTL.Generation {
				return total, nil
			}
			t = cur
		}
		rows, err := w.store.ExpiredRows(ctx, t, from, now.Unix(), w.cfg.Batch)
		if err != nil || len(rows) == 0 {
			return total, err
		}
		deleted := make([]bool, len(rows))
		ms := make([]storage.Mutation, len(rows))
		for i, r := range rows {
			ms[i] = storage.Mutation{Table: t, Key: r.Key, Fn: func(old item.Item) (item.Item, error) {
				deleted[i] = false
				if old == nil || !storage.StillExpired(t, old, now) {
					return old, nil
				}
				deleted[i] = true
				return nil, nil
			}}
		}
		if err := w.deleteExpired(ctx, ms); err != nil {
			return total, err
		}
		n := 0
		for _, d := range deleted {
			if d {
				n++
			}
		}
		total += n
		if n > 0 {
			w.cfg.Metrics.TTLExpired(n, now.Sub(time.Unix(rows[len(rows)-1].ExpireAt, 0)))
			if t.StreamEnabled() {
				// Every TTL deletion appends a REMOVE record.
				w.cfg.Metrics.StreamRecordsWritten(n)
			}
		}
		if len(rows) < w.cfg.Batch {
			break
		}
		// The next batch starts past the rows of this one: every row
		// expiring before the batch's last second was in it, deleted or
		// left (its item gone or no longer expired: rows a write left
		// behind, which a backend that writes them after the item, like
		// Cassandra, can have). Reading from the pass's start again would
		// read them again, and on Cassandra walk the tombstones of every
		// row deleted so far (docs/adr/0018f). The window starts after
		// (from is exclusive) the second before the batch's last one, so
		// that rows of that second beyond the batch are read again; a
		// full batch of one second in which nothing was deleted is looked
		// past rather than stopped at for good.
		first, last := rows[0].ExpireAt, rows[len(rows)-1].ExpireAt
		switch {
		case first < last:
			from = last - 1
		case n == 0:
			from = last
		}
	}
	return total, ctx.Err()
}

// leaseHold is the lease of one background pass on a storage.Leaser (a
// nil Leaser: a backend one process owns, where the pass always holds it).
type leaseHold struct {
	l           storage.Leaser
	name, owner string
	ttl         time.Duration
	renewed     time.Time // when the last successful claim was sent; zero before the first
}

// expiryLease is the lease "ttl/<table id>" of t's expiry passes, taken
// for three intervals, so that a process that stops leaves it to another
// within three passes' time.
func (w *TTL) expiryLease(t *storage.Table) *leaseHold {
	l, _ := w.store.(storage.Leaser)
	return &leaseHold{l: l, name: "ttl/" + t.ID, owner: w.cfg.Owner, ttl: 3 * w.cfg.Interval}
}

// hold takes the lease on its first call and renews it on a later one
// once a third of its time has passed since the last claim (a pass longer
// than the lease would otherwise run in two processes at once); it reports
// false while, or once, another owner holds it.
func (h *leaseHold) hold(ctx context.Context) (bool, error) {
	if h.l == nil || (!h.renewed.IsZero() && time.Since(h.renewed) < h.ttl/3) {
		return true, nil
	}
	sent := time.Now()
	own, err := h.l.AcquireLease(ctx, h.name, h.owner, h.ttl)
	if err != nil || !own {
		return false, err
	}
	h.renewed = sent
	return true, nil
}

// deleteExpired applies the conditional deletes ms of one expiry batch: in
// one write transaction, or, on a backend whose single-item writes gain
// from running at once (storage.ParallelWriter; there a transaction costs
// several rounds per item on top of the writes), as independent Mutate
// calls, up to its WriteParallelism at once. Either way each delete is
// decided by its MutateFunc on the item's current image under the write's
// fence; nothing needs the deletes of one batch to land together.
func (w *TTL) deleteExpired(ctx context.Context, ms []storage.Mutation) error {
	n := storage.WriteParallelism(w.store)
	if n <= 1 {
		return w.store.TransactWrite(ctx, ms)
	}
	return storage.EachWrite(ctx, len(ms), n, func(i int) error {
		return w.store.Mutate(ctx, ms[i].Table, ms[i].Key, ms[i].Fn)
	})
}
