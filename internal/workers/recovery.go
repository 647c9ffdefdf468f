package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// Recoverer completes the writes that stopped frontends left without their
// derived rows (index rows, stream records, expiry rows), through the
// backend's storage.Recoverer, once at start and then every Every (default
// ten seconds).
type Recoverer struct {
	r     storage.Recoverer
	every time.Duration
	log   *slog.Logger
}

// NewRecoverer returns a recoverer over store, or nil when store does not
// implement storage.Recoverer (its writes have no crash gap).
func NewRecoverer(store storage.Backend, every time.Duration, log *slog.Logger) *Recoverer {
	r, ok := store.(storage.Recoverer)
	if !ok {
		return nil
	}
	if every <= 0 {
		every = 10 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &Recoverer{r: r, every: every, log: log}
}

// Run recovers until ctx ends or the backend is closed.
func (w *Recoverer) Run(ctx context.Context) {
	if w != nil {
		loop(ctx, "write recovery", w.every, nil, w.log, func(ctx context.Context) error {
			n, err := w.r.Recover(ctx)
			if n > 0 {
				w.log.Warn("repaired writes of stopped frontends", "writes", n)
			}
			return err
		})
	}
}
