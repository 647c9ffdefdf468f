package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
)

// Periodic is a background job that runs one pass at start and then one
// every interval, until its context ends or the backend is closed. The
// stream trimmer, the token sweeper and write recovery are Periodic.
type Periodic struct {
	name  string
	every time.Duration
	log   *slog.Logger
	pass  func(ctx context.Context) error
}

func newPeriodic(name string, every, dflt time.Duration, log *slog.Logger, pass func(ctx context.Context) error) *Periodic {
	return &Periodic{name: name, every: orDefault(every, dflt), log: logOrDefault(log), pass: pass}
}

// Run passes until ctx ends or the backend is closed. A nil Periodic (a
// job the backend does not need) returns at once.
func (p *Periodic) Run(ctx context.Context) {
	if p != nil {
		loop(ctx, p.name, p.every, nil, p.log, p.pass)
	}
}

// NewStreamTrimmer removes stream records (not the change history, see
// NewHistoryPruner) older than the 24-hour retention
// (storage.StreamRetention), every every (default one minute), counting
// them in m (nil counts nothing).
func NewStreamTrimmer(ss storage.StreamStore, every time.Duration, log *slog.Logger, m *metrics.Metrics) *Periodic {
	return newStreamTrimmer(ss, every, log, m, time.Now)
}

func newStreamTrimmer(ss storage.StreamStore, every time.Duration, log *slog.Logger, m *metrics.Metrics, now func() time.Time) *Periodic {
	p := newPeriodic("stream trimmer", every, time.Minute, log, nil)
	p.pass = func(ctx context.Context) error {
		n, err := ss.TrimStreams(ctx, now().Add(-storage.StreamRetention))
		if n > 0 {
			m.StreamRecordsTrimmed(n)
			p.log.Info("stream records trimmed", "records", n)
		}
		return err
	}
	return p
}

// NewTokenSweeper deletes the dead ClientRequestToken records of
// TransactWriteItems (completed more than storage.TokenTTL ago, or claims
// that lapsed), every every (default one minute). Dead records already
// count as absent; sweeping only reclaims their space.
func NewTokenSweeper(ts storage.TokenStore, every time.Duration, log *slog.Logger) *Periodic {
	return newTokenSweeper(ts, every, log, time.Now)
}

func newTokenSweeper(ts storage.TokenStore, every time.Duration, log *slog.Logger, now func() time.Time) *Periodic {
	return newPeriodic("token sweeper", every, time.Minute, log, func(ctx context.Context) error {
		_, err := ts.SweepTokens(ctx, now())
		return err
	})
}

// NewRecoverer completes the writes that stopped frontends left without
// their derived rows (index rows, stream records, expiry rows), and those
// whose derived rows failed on a live one (a Cassandra repair), every
// every (default ten seconds). It returns nil when store does not
// implement the optional storage.Recoverer (its writes have no crash gap).
func NewRecoverer(store storage.Backend, every time.Duration, log *slog.Logger) *Periodic {
	r, ok := store.(storage.Recoverer)
	if !ok {
		return nil
	}
	p := newPeriodic("write recovery", every, 10*time.Second, log, nil)
	p.pass = func(ctx context.Context) error {
		n, err := r.Recover(ctx)
		if n > 0 {
			p.log.Warn("repaired the derived rows of committed writes", "writes", n)
		}
		return err
	}
	return p
}
