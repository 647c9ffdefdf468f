package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// historySeqs reads the sequence numbers of tb's change history.
func historySeqs(t *testing.T, b *Backend, tb *storage.Table) []uint64 {
	t.Helper()
	rs, err := b.ReadStream(context.Background(), tb.ID, storage.HistoryLabel, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, r := range rs {
		seqs = append(seqs, r.Seq)
	}
	return seqs
}

func reopen(t *testing.T, b *Backend, path string) *Backend {
	t.Helper()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A database whose change history is in stream_records (written before the
// history had a table of its own) has it moved, sequence numbers kept, when
// it is opened; later records number after it, and after a trim of all of
// it and a restart, after the trim mark.
func TestHistoryMovedToItsTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.db")
	b, err := Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("history")
	tb.PointInTimeRecovery = &storage.PointInTimeRecovery{RecoveryPeriodInDays: 1, EnabledAt: time.Now()}
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		put(t, b, tb, item.Item{"pk": item.S(fmt.Sprint(i))})
	}
	before := historySeqs(t, b, tb)
	for _, q := range []string{
		"INSERT INTO stream_records (seq, tid, label, created, rec) SELECT seq + 100, tid, 'pitr', created, rec FROM history",
		"DROP TABLE history",
		"DELETE FROM schema_migrations WHERE version = 5",
	} {
		if _, err := b.wconn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	b = reopen(t, b, path)
	defer func() { b.Close() }()
	moved := historySeqs(t, b, tb)
	if len(before) != 3 || fmt.Sprint(moved) != fmt.Sprint([]uint64{before[0] + 100, before[1] + 100, before[2] + 100}) {
		t.Fatalf("history after the move %v, before %v (+100)", moved, before)
	}
	var left int
	if err := b.wconn.QueryRowContext(ctx, "SELECT count(*) FROM stream_records WHERE label = 'pitr'").Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d history records left in stream_records (%v)", left, err)
	}
	put(t, b, tb, item.Item{"pk": item.S("after")})
	if seqs := historySeqs(t, b, tb); len(seqs) != 4 || seqs[3] <= moved[2] {
		t.Fatalf("history %v: the new record does not number after the moved ones", seqs)
	}
	n, err := b.TrimHistory(ctx, tb.ID, time.Now().Add(time.Hour))
	if err != nil || n != 4 {
		t.Fatalf("TrimHistory removed %d (%v), want 4", n, err)
	}
	bounds, err := b.StreamBounds(ctx, tb.ID, storage.HistoryLabel)
	if err != nil || bounds.Trimmed <= moved[2] || bounds.First != 0 {
		t.Fatalf("bounds after the trim %+v (%v)", bounds, err)
	}
	b = reopen(t, b, path)
	put(t, b, tb, item.Item{"pk": item.S("last")})
	if seqs := historySeqs(t, b, tb); len(seqs) != 1 || seqs[0] <= bounds.Trimmed {
		t.Fatalf("history %v after a restart: not above the trim mark %d", seqs, bounds.Trimmed)
	}
}
