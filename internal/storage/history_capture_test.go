package storage

import (
	"testing"
	"time"
)

// A history capture (a snapshot read rebuilt from the change history)
// turns history on without point in time recovery, and keeps the history
// from an hour before it started from being pruned.
func TestHistoryCapture(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tb := &Table{}
	if tb.HistoryEnabled() {
		t.Fatal("history on without recovery or capture")
	}
	if got, want := HistoryCutoff(tb, now), now.Add(-time.Hour); !got.Equal(want) {
		t.Fatalf("cutoff %v, want %v", got, want)
	}
	started := now.Add(-3 * time.Hour)
	tb.HistoryCaptures = map[string]time.Time{"a": started, "b": now.Add(-time.Minute)}
	if !tb.HistoryEnabled() {
		t.Fatal("history off during a capture")
	}
	if got, want := HistoryCutoff(tb, now), started.Add(-time.Hour); !got.Equal(want) {
		t.Fatalf("cutoff during captures %v, want %v", got, want)
	}
	tb.PointInTimeRecovery = &PointInTimeRecovery{RecoveryPeriodInDays: 1}
	if got, want := HistoryCutoff(tb, now), now.AddDate(0, 0, -1).Add(-time.Hour); !got.Equal(want) {
		t.Fatalf("cutoff with recovery and a newer capture %v, want %v", got, want)
	}
}
