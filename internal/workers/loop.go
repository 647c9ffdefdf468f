package workers

import (
	"context"
	"errors"
	"log/slog"
	"time"

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
