package workers

import (
	"context"
	"log/slog"
	"time"

	"github.com/extenddb/extenddb/internal/metrics"
	"github.com/extenddb/extenddb/internal/storage"
)

// StreamTrimmer removes stream records older than the 24-hour retention
// (storage.StreamRetention) through the backend's storage.StreamStore,
// once at start and then every Every (default one minute).
type StreamTrimmer struct {
	ss    storage.StreamStore
	every time.Duration
	log   *slog.Logger
	// Metrics counts trimmed records; nil counts nothing.
	Metrics *metrics.Metrics
}

// NewStreamTrimmer returns a trimmer over store, or nil when store does not
// implement storage.StreamStore.
func NewStreamTrimmer(store storage.Backend, every time.Duration, log *slog.Logger) *StreamTrimmer {
	ss, ok := store.(storage.StreamStore)
	if !ok {
		return nil
	}
	if every <= 0 {
		every = time.Minute
	}
	if log == nil {
		log = slog.Default()
	}
	return &StreamTrimmer{ss: ss, every: every, log: log}
}

// Run trims until ctx ends.
func (w *StreamTrimmer) Run(ctx context.Context) {
	if w != nil {
		loop(ctx, "stream trimmer", w.every, nil, w.log, func(ctx context.Context) error {
			n, err := w.ss.TrimStreams(ctx, time.Now().Add(-storage.StreamRetention))
			if n > 0 {
				w.Metrics.StreamRecordsTrimmed(n)
				w.log.Info("stream records trimmed", "records", n)
			}
			return err
		})
	}
}
