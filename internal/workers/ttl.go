package workers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
)

// TTLConfig tunes a TTL worker. The zero value works.
type TTLConfig struct {
	// Accounts whose tables the worker looks after; default
	// "000000000000".
	Accounts []string
	// Interval is how often expired items are looked for (and pending
	// backfills and drains resumed); default 30 s, or the environment
	// variable EXTENDDB_TTL_INTERVAL (a Go duration) when zero.
	Interval time.Duration
	// PageSize is how many items one backfill transaction registers, and
	// how many expiry rows one drain transaction removes; default 256, or
	// EXTENDDB_TTL_PAGE_SIZE when zero.
	PageSize int
	// PageDelay is a pause before every backfill and drain page, zero by
	// default, or EXTENDDB_TTL_PAGE_DELAY (a Go duration) when zero. Tests
	// use it to observe ENABLING and DISABLING.
	PageDelay time.Duration
	// Batch is how many expired items one delete transaction removes;
	// default 256.
	Batch int
	// Owner names this process in leases (storage.Leaser); default random.
	Owner string
	Log   *slog.Logger
	// Metrics counts expired items, expiry lag and transition pages; nil
	// counts nothing.
	Metrics *metrics.Metrics
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// TTL runs the Time to Live lifecycle through the backend's
// storage.TTLStore: it finishes ENABLING tables (the backfill, resumed from
// its durable cursor after a restart) and DISABLING ones (the drain), and
// deletes expired items through the normal write path, each conditioned
// on still being expired, with stream records naming the TTL service.
// Several processes sharing a backend that implements storage.Leaser
// expire each table from one of them at a time.
type TTL struct {
	store storage.Backend
	ts    storage.TTLStore
	cfg   TTLConfig
	kick  kicker
}

// NewTTL returns a worker over store, or nil when store does not implement
// storage.TTLStore.
func NewTTL(store storage.Backend, cfg TTLConfig) *TTL {
	ts, ok := store.(storage.TTLStore)
	if !ok {
		return nil
	}
	if len(cfg.Accounts) == 0 {
		cfg.Accounts = []string{"000000000000"}
	}
	if cfg.Interval <= 0 {
		cfg.Interval, _ = time.ParseDuration(os.Getenv("EXTENDDB_TTL_INTERVAL"))
		if cfg.Interval <= 0 {
			cfg.Interval = 30 * time.Second
		}
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize, _ = strconv.Atoi(os.Getenv("EXTENDDB_TTL_PAGE_SIZE"))
		if cfg.PageSize <= 0 {
			cfg.PageSize = 256
		}
	}
	if cfg.PageDelay == 0 {
		cfg.PageDelay, _ = time.ParseDuration(os.Getenv("EXTENDDB_TTL_PAGE_DELAY"))
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 256
	}
	if cfg.Owner == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Owner = hex.EncodeToString(b[:])
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &TTL{store: store, ts: ts, cfg: cfg, kick: newKicker()}
}

// Kick wakes the worker for new work. It never blocks.
func (w *TTL) Kick() {
	if w != nil {
		w.kick.kick()
	}
}

// Run works until ctx ends: a pass at start, then one after every Kick
// and every Interval.
func (w *TTL) Run(ctx context.Context) {
	if w != nil {
		loop(ctx, "ttl worker", w.cfg.Interval, w.kick, w.cfg.Log, w.RunOnce)
	}
}

// RunOnce finishes pending backfills and drains and deletes the expired
// items of every table, then returns. Errors of one table do not stop the
// others; the first is returned.
func (w *TTL) RunOnce(ctx context.Context) error {
	var first error
	note := func(err error) {
		if err != nil && !errors.Is(err, storage.ErrTableNotFound) && first == nil {
			first = err
		}
	}
	for _, account := range w.cfg.Accounts {
		names, err := w.store.ListTables(ctx, account)
		if err != nil {
			return err
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t, err := w.store.GetTable(ctx, account, name)
			if err != nil {
				note(err)
				continue
			}
			switch t.TTL.Status {
			case storage.TTLEnabling:
				note(w.pages(ctx, t, w.ts.BackfillTTL))
			case storage.TTLDisabling:
				note(w.pages(ctx, t, w.ts.DrainTTL))
				continue
			}
			if t.TTL.Maintained() {
				_, err := w.ExpireTable(ctx, t)
				note(err)
			}
		}
	}
	return first
}

// pages runs backfill or drain pages of t's current generation until done.
func (w *TTL) pages(ctx context.Context, t *storage.Table, page func(ctx context.Context, account, name string, gen int64, limit int) (bool, error)) error {
	start, n := time.Now(), 0
	for {
		if w.cfg.PageDelay > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(w.cfg.PageDelay):
			}
		}
		done, err := page(ctx, t.Account, t.Name, t.TTL.Generation, w.cfg.PageSize)
		if err != nil {
			return err
		}
		n++
		w.cfg.Metrics.BackfillPage(ttlJob[t.TTL.Status])
		if done {
			w.cfg.Log.Info("ttl transition finished", "table", t.Name, "from", t.TTL.Status, "pages", n, "took", time.Since(start))
			return nil
		}
	}
}

// ttlJob names TTL transitions in the backfill metrics.
var ttlJob = map[string]string{storage.TTLEnabling: "ttl_enable", storage.TTLDisabling: "ttl_disable"}

// ExpireTable deletes the items of t that are expired now, in batches of
// cfg.Batch per write transaction, and returns how many it deleted. Each
// delete is conditioned on the item still being expired (its current
// image, read under the write's lock) and carries the TTL service
// identity. Without the table's lease (storage.Leaser) it does nothing.
func (w *TTL) ExpireTable(ctx context.Context, t *storage.Table) (int, error) {
	if l, ok := w.store.(storage.Leaser); ok {
		own, err := l.AcquireLease(ctx, "ttl/"+t.ID, w.cfg.Owner, 3*w.cfg.Interval)
		if err != nil || !own {
			return 0, err
		}
	}
	ctx = storage.WithUserIdentity(ctx, storage.TTLService)
	now := w.cfg.Now()
	from := now.Unix() - int64(storage.TTLMaxAge/time.Second)
	total := 0
	for ctx.Err() == nil {
		rows, err := w.ts.ExpiredRows(ctx, t, from, now.Unix(), w.cfg.Batch)
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
		if err := w.apply(ctx, ms); err != nil {
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
		}
		if len(rows) < w.cfg.Batch {
			break
		}
		if n == 0 {
			// A full batch of rows whose items are gone or no longer
			// expired (rows a write left behind, which a backend that
			// writes them after the item, like Cassandra, can have): look
			// past them rather than stop at them for good. The window
			// starts after (from is exclusive) the batch's last second, or
			// the second before it when the batch spans several, so that
			// rows of that second beyond the batch are read again.
			first, last := rows[0].ExpireAt, rows[len(rows)-1].ExpireAt
			if first < last {
				from = last - 1
			} else {
				from = last
			}
		}
	}
	return total, ctx.Err()
}

// apply commits a batch of expiry deletes: in one write transaction, or one
// by one on a backend whose transactions are pending (each delete is
// independent, so the batch only saves round trips).
func (w *TTL) apply(ctx context.Context, ms []storage.Mutation) error {
	if storage.Pending(w.store, "transactions") == "" {
		return w.store.TransactWrite(ctx, ms)
	}
	for _, m := range ms {
		if err := w.store.Mutate(ctx, m.Table, m.Key, m.Fn); err != nil {
			return err
		}
	}
	return nil
}
