package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// historyStore is what the history pruner needs of a backend.
type historyStore interface {
	storage.Catalog
	storage.StreamStore
}

// NewHistoryPruner prunes the change history of point in time recovery,
// every every (default ten minutes): each table of accounts (default
// storage.DefaultAccount, and every namespace that has tables) keeps the
// history of its recovery window, RecoveryPeriodInDays (1 to 35) days,
// and loses what is older; a table whose recovery is disabled loses all
// of it (storage.HistoryCutoff). A table whose oldest record is within its
// window costs one read, and no write, per pass.
func NewHistoryPruner(store historyStore, accounts []string, every time.Duration, log *slog.Logger) *Periodic {
	return newHistoryPruner(store, accounts, every, log, time.Now)
}

func newHistoryPruner(store historyStore, accounts []string, every time.Duration, log *slog.Logger, now func() time.Time) *Periodic {
	accounts = accountsOrDefault(accounts)
	p := newPeriodic("history pruner", every, 10*time.Minute, log, nil)
	p.pass = func(ctx context.Context) error {
		var total int64
		err := eachTable(ctx, store, accounts, func(t *storage.Table) error {
			cutoff := storage.HistoryCutoff(t, now())
			// One read of the oldest record tells whether there is
			// anything to prune: most passes over most tables (those
			// without history, those pruned a pass ago) write nothing.
			oldest, err := store.ReadStream(ctx, t.ID, storage.HistoryLabel, 0, 1)
			if err != nil || len(oldest) == 0 || !oldest[0].CreatedAt.Before(cutoff) {
				return err
			}
			n, err := store.TrimHistory(ctx, t.ID, cutoff)
			total += n
			return err
		})
		if total > 0 {
			p.log.Info("change history pruned", "records", total)
		}
		return err
	}
	return p
}
