package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// TokenSweeper deletes the dead ClientRequestToken records of
// TransactWriteItems (completed more than storage.TokenTTL ago, or claims
// that lapsed) through the backend's storage.TokenStore, once at start and
// then every Every (default one minute). Dead records already count as
// absent; sweeping only reclaims their space.
type TokenSweeper struct {
	ts    storage.TokenStore
	every time.Duration
	log   *slog.Logger
}

// NewTokenSweeper returns a sweeper over store, or nil when store does not
// implement storage.TokenStore.
func NewTokenSweeper(store storage.Backend, every time.Duration, log *slog.Logger) *TokenSweeper {
	ts, ok := store.(storage.TokenStore)
	if !ok {
		return nil
	}
	if every <= 0 {
		every = time.Minute
	}
	if log == nil {
		log = slog.Default()
	}
	return &TokenSweeper{ts: ts, every: every, log: log}
}

// Run sweeps until ctx ends.
func (w *TokenSweeper) Run(ctx context.Context) {
	if w != nil {
		loop(ctx, "token sweeper", w.every, nil, w.log, func(ctx context.Context) error {
			_, err := w.ts.SweepTokens(ctx, time.Now())
			return err
		})
	}
}
