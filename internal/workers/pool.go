package workers

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
)

// Config is the configuration of the background workers, as values:
// cmd/extenddb reads them from flags, the configuration file and the
// environment, and internal/server passes them in. The zero value works.
type Config struct {
	// Accounts whose tables the workers look after; default
	// storage.DefaultAccount.
	Accounts []string
	// TTLInterval is how often expired items are looked for; default 30 s.
	TTLInterval time.Duration
	// TTLPageSize is how many items a TTL backfill or drain page handles;
	// default 256.
	TTLPageSize int
	// TTLPageDelay is a pause before every TTL backfill and drain page;
	// zero by default (tests use it to observe ENABLING and DISABLING).
	TTLPageDelay time.Duration
	// IndexPageDelay is a pause between the pages of an online index
	// build; zero by default (tests use it to observe CREATING).
	IndexPageDelay time.Duration
	Log            *slog.Logger
	// Metrics counts the workers' progress (internal/metrics); nil counts
	// nothing.
	Metrics *metrics.Metrics
	// Now is the clock (internal/clock) of TTL expiry, stream retention,
	// the change history's retention and the token sweep; default
	// time.Now.
	Now func() time.Time
}

// Pool is the set of background workers of one server: online index
// builds and drops, the Time to Live lifecycle, stream retention, the
// retention of the change history of point in time recovery, the
// sweep of dead ClientRequestTokens and, on a backend that needs it
// (storage.Recoverer), the recovery of interrupted writes.
type Pool struct {
	Indexes *Indexes
	TTL     *TTL
	jobs    []*Periodic
}

// New returns the workers over store; Run starts them.
func New(store storage.Backend, cfg Config) *Pool {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	cfg.Now = clockOrDefault(cfg.Now)
	return &Pool{
		Indexes: NewIndexes(store, IndexConfig{PageConfig: PageConfig{Accounts: cfg.Accounts, PageDelay: cfg.IndexPageDelay, Log: cfg.Log, Metrics: cfg.Metrics, Now: cfg.Now}}),
		TTL: NewTTL(store, TTLConfig{Interval: cfg.TTLInterval,
			PageConfig: PageConfig{Accounts: cfg.Accounts, PageSize: cfg.TTLPageSize, PageDelay: cfg.TTLPageDelay, Log: cfg.Log, Metrics: cfg.Metrics, Now: cfg.Now}}),
		jobs: []*Periodic{
			newStreamTrimmer(store, 0, cfg.Log, cfg.Metrics, cfg.Now),
			newHistoryPruner(store, cfg.Accounts, 0, cfg.Log, cfg.Now),
			newTokenSweeper(store, 0, cfg.Log, cfg.Now),
			NewRecoverer(store, 0, cfg.Log),
		},
	}
}

// Run runs every worker until ctx ends (or the backend is closed), and
// returns when all have stopped.
func (p *Pool) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { p.Indexes.Run(ctx) })
	wg.Go(func() { p.TTL.Run(ctx) })
	for _, j := range p.jobs {
		wg.Go(func() { j.Run(ctx) })
	}
	wg.Wait()
}
