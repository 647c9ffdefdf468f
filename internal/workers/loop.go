package workers

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
)

// kicker wakes a worker for new work.
type kicker chan struct{}

func newKicker() kicker { return make(kicker, 1) }

// kick wakes the worker; it never blocks.
func (k kicker) kick() {
	select {
	case k <- struct{}{}:
	default:
	}
}

// loop runs pass at once and then after every wake-up (a tick of every,
// or a kick when kick is not nil) until ctx ends or pass reports
// storage.ErrClosed. Other errors are logged as name's and the loop goes
// on.
func loop(ctx context.Context, name string, every time.Duration, kick kicker, log *slog.Logger, pass func(context.Context) error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := pass(ctx); errors.Is(err, storage.ErrClosed) {
			return
		} else if err != nil && ctx.Err() == nil {
			log.Error(name, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-t.C:
		}
	}
}

// eachTable calls visit with every table of accounts, in name order. A
// table that is gone (ErrTableNotFound, from reading it or from visit) is
// skipped; other errors of one table do not stop the others, and the first
// is returned. An error listing an account's tables, or the end of ctx,
// stops the pass.
func eachTable(ctx context.Context, store storage.Catalog, accounts []string, visit func(t *storage.Table) error) error {
	var first error
	// Every namespace (account and region) that has tables.
	accounts, err := storage.Namespaces(ctx, store, accounts)
	if err != nil {
		return err
	}
	for _, account := range accounts {
		names, err := store.ListTables(ctx, account)
		if err != nil {
			return err
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t, err := store.GetTable(ctx, account, name)
			if err == nil {
				err = visit(t)
			}
			if err != nil && !errors.Is(err, storage.ErrTableNotFound) && first == nil {
				first = err
			}
		}
	}
	return first
}

// PageConfig is what the Indexes and TTL workers, which both work through
// their backfills a page at a time, are tuned by alike. The zero value
// works.
type PageConfig struct {
	// Accounts whose tables the worker looks after; default
	// storage.DefaultAccount.
	Accounts []string
	// PageSize is how many items one page handles; default 256.
	PageSize int
	// PageDelay is a pause between pages, zero by default.
	PageDelay time.Duration
	// Log is the worker's logger; default slog.Default().
	Log *slog.Logger
	// Metrics counts the worker's progress; nil counts nothing.
	Metrics *metrics.Metrics
	// Now is the worker's clock; default time.Now.
	Now func() time.Time
}

// setDefaults fills in the defaults of the members left zero.
func (c *PageConfig) setDefaults() {
	c.Accounts, c.Log, c.Now = accountsOrDefault(c.Accounts), logOrDefault(c.Log), clockOrDefault(c.Now)
	c.PageSize = orDefault(c.PageSize, 256)
}

// orDefault is v, or d when v is not positive.
func orDefault[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

func logOrDefault(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.Default()
	}
	return log
}

// clockOrDefault is now, or time.Now when now is nil.
func clockOrDefault(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

func accountsOrDefault(accounts []string) []string {
	if len(accounts) == 0 {
		return []string{storage.DefaultAccount}
	}
	return accounts
}
