package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Contract test of the change history of point in time recovery (see
// storage.HistoryRecordFor): while a table's PointInTimeRecovery is set,
// every changed item appends a record with its old image to the stream
// (t.ID, storage.HistoryLabel), in the write's transaction; a table
// without it gets none.

// historyTests are added to Run's list.
var historyTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"HistoryRecords", testHistoryRecords},
	{"HistoryRetention", testHistoryRetention},
}

func testHistoryRecords(t *testing.T, e *env) {
	e.holdStreams(false)
	tb := e.table("history", "")
	tb.PointInTimeRecovery = &storage.PointInTimeRecovery{RecoveryPeriodInDays: 35, EnabledAt: time.Now()}
	tb = e.create(tb)
	plain := e.create(e.table("nohistory", ""))
	e.put(plain, item.Item{"pk": s("a")})

	e.put(tb, item.Item{"pk": s("a"), "v": n("1")})
	e.put(tb, item.Item{"pk": s("a"), "v": n("1")}) // equal image: no record
	e.put(tb, item.Item{"pk": s("a"), "v": n("2")})
	e.del(tb, e.key(tb, item.Item{"pk": s("a")}))
	e.del(tb, e.key(tb, item.Item{"pk": s("missing")})) // nothing deleted: no record
	if err := e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("b")}), Fn: func(item.Item) (item.Item, error) { return item.Item{"pk": s("b")}, nil }},
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("c")}), Fn: func(item.Item) (item.Item, error) { return nil, errors.New("cancel") }},
	}); err == nil {
		t.Fatal("cancelled transaction succeeded")
	}
	if err := e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: tb, Key: e.key(tb, item.Item{"pk": s("d")}), Fn: func(item.Item) (item.Item, error) { return item.Item{"pk": s("d")}, nil }},
	}); err != nil {
		t.Fatal(err)
	}
	history := &storage.Table{ID: tb.ID, LatestStreamLabel: storage.HistoryLabel}
	var got []string
	rs := e.records(e.b, history)
	for _, r := range rs {
		got = append(got, fmt.Sprintf("%s %s old=%s", r.EventName, r.Keys["pk"].S, r.OldImage["v"].S))
	}
	if want := "[INSERT a old= MODIFY a old=1 REMOVE a old=2 INSERT d old=]"; fmt.Sprint(got) != want {
		t.Fatalf("history %v, want %s", got, want)
	}
	if rs[0].CreatedAt.IsZero() || rs[0].ViewType != storage.ViewOldImage || rs[0].OldImage != nil || rs[1].NewImage != nil {
		t.Fatalf("history record %+v", rs[0])
	}
	if rs := e.records(e.b, &storage.Table{ID: plain.ID, LatestStreamLabel: storage.HistoryLabel}); len(rs) != 0 {
		t.Fatalf("a table without point in time recovery has %d history records", len(rs))
	}
}

// testHistoryRetention: the change history outlives the streams' trim
// (it is kept for the recovery period, up to 35 days, not the streams' 24
// hours) and TrimHistory prunes one table's history before a cutoff,
// raising its trim mark, and nothing else.
func testHistoryRetention(t *testing.T, e *env) {
	e.holdStreams(true)
	pitr := &storage.PointInTimeRecovery{RecoveryPeriodInDays: 1, EnabledAt: time.Now()}
	tb, other := e.table("retained", ""), e.table("retainedother", "")
	tb.PointInTimeRecovery, other.PointInTimeRecovery = pitr, pitr
	tb, other = e.create(tb), e.create(other)
	e.put(tb, item.Item{"pk": s("a"), "v": n("1")})
	e.put(tb, item.Item{"pk": s("a"), "v": n("2")})
	e.put(other, item.Item{"pk": s("a")})
	history := &storage.Table{ID: tb.ID, LatestStreamLabel: storage.HistoryLabel}
	otherHistory := &storage.Table{ID: other.ID, LatestStreamLabel: storage.HistoryLabel}
	if _, err := e.b.TrimStreams(e.ctx, time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rs := e.records(e.b, history)
	if len(rs) != 2 {
		t.Fatalf("after TrimStreams the history has %d records, want 2", len(rs))
	}
	if n, err := e.b.TrimHistory(e.ctx, tb.ID, time.Now().Add(-2*time.Hour)); err != nil || n != 0 {
		t.Fatalf("TrimHistory before the records: %d %v", n, err)
	}
	if n, err := e.b.TrimHistory(e.ctx, tb.ID, time.Now().Add(2*time.Hour)); err != nil || n != 2 {
		t.Fatalf("TrimHistory after the records: %d %v, want 2", n, err)
	}
	bd, err := e.b.StreamBounds(e.ctx, tb.ID, storage.HistoryLabel)
	if err != nil || bd.First != 0 || bd.Trimmed != rs[1].Seq {
		t.Errorf("history bounds after TrimHistory: %+v %v", bd, err)
	}
	if rs := e.records(e.b, otherHistory); len(rs) != 1 {
		t.Errorf("another table's history has %d records after TrimHistory, want 1", len(rs))
	}
}
