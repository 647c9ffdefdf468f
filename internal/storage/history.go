package storage

import (
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// The change history of point in time recovery. While a table's
// PointInTimeRecovery is set (its committed catalog entry), every Mutate
// and TransactWrite appends HistoryRecordFor(t, old, new, now) for each
// changed item, in the write's own transaction, to the stream (t.ID,
// HistoryLabel) of StreamStore: the same storage, ordering and atomicity
// as a stream record. TrimStreams leaves it alone: it is kept for the
// table's recovery period (RecoveryPeriodInDays) and pruned past it by
// TrimHistory (see HistoryCutoff).
// ReadStream(t.ID, HistoryLabel, ...) reads it back in commit order.

// HistoryLabel is the stream label of a table's change history. Stream
// labels of DynamoDB Streams are timestamps, so it never names one.
const HistoryLabel = "pitr"

// HistoryEnabled reports whether item writes of t append history records:
// while point in time recovery is enabled, and while a snapshot read
// captures the history (HistoryCaptures).
func (t *Table) HistoryEnabled() bool {
	return t.PointInTimeRecovery != nil || len(t.HistoryCaptures) > 0
}

// HistoryRecordFor derives the history record of one item write of t: its
// event, keys and image before the write (nil when absent) at now, with
// CreatedAt in whole seconds. The image after is not kept: a restore to a
// time undoes the changes after it, for which the images before suffice. It returns nil when t keeps no history and when the write
// changes nothing. It is pure: every backend stores exactly this record.
func HistoryRecordFor(t *Table, old, new item.Item, now time.Time) *StreamRecord {
	if !t.HistoryEnabled() {
		return nil
	}
	r := changeRecord(t, old, new, ViewOldImage, now)
	if r != nil {
		r.OldImage = old
	}
	return r
}

// ChangeRecords derives both records of one item write of t: its stream
// record (StreamRecordFor) and its history record (HistoryRecordFor),
// each nil when not kept, comparing old and new only once. Backends call
// it on every item write.
func ChangeRecords(t *Table, old, new item.Item, id *UserIdentity, now time.Time) (stream, history *StreamRecord) {
	streamOn, historyOn := t.StreamEnabled(), t.HistoryEnabled()
	if !streamOn && !historyOn {
		return nil, nil
	}
	base := changeRecord(t, old, new, "", now)
	if base == nil {
		return nil, nil
	}
	if streamOn {
		r := *base
		stream = withImages(&r, t.Stream.StreamViewType, old, new, id)
	}
	if historyOn {
		h := base // the last use of base: no copy needed
		if streamOn {
			c := *base
			h = &c
		}
		h.ViewType, h.OldImage = ViewOldImage, old
		history = h
	}
	return stream, history
}

// HistoryCutoff is the time before which t's change history is no longer
// needed at now: an hour before the start of its recovery window (now
// less RecoveryPeriodInDays days) while point in time recovery is enabled,
// and an hour before now once it is disabled. The hour's margin keeps a
// pruner that read t just before its settings changed (recovery enabled
// again, a longer period) from removing history the new settings keep.
// A history capture in progress keeps everything from an hour before it
// started.
func HistoryCutoff(t *Table, now time.Time) time.Time {
	if p := t.PointInTimeRecovery; p != nil {
		now = now.AddDate(0, 0, -p.RecoveryPeriodInDays)
	}
	for _, at := range t.HistoryCaptures {
		if at.Before(now) {
			now = at
		}
	}
	return now.Add(-historyMargin)
}

// historyMargin is how much longer than needed the history is kept.
const historyMargin = time.Hour
