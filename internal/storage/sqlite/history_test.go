package sqlite

import (
	"context"
	"errors"
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
// it is opened (by migration 5 into history, then by 6 into history_rows); later records number after it, and after a trim of all of
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
		`INSERT INTO stream_records (seq, tid, label, created, rec)
			SELECT h.id - (t.n << 40) + 100, t.tid, 'pitr', h.created, h.rec FROM history_rows h JOIN history_tables t ON h.id >> 40 = t.n`,
		"DROP TABLE history_rows",
		"DROP TABLE history_tables",
		"DELETE FROM schema_migrations WHERE version >= 5",
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

// The first history record of a table gives it a number in
// history_tables; when the transaction that did so rolls back, the number
// goes with it, and the table's next record still lands in (and is read
// back from) its history, as do the records of a table deleted and of
// one created after it, each only its own.
func TestHistoryNumberRolledBack(t *testing.T) {
	ctx := context.Background()
	b, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "data.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tb := hashTable("rolled")
	tb.PointInTimeRecovery = &storage.PointInTimeRecovery{RecoveryPeriodInDays: 1, EnabledAt: time.Now()}
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("condition failed")
	set := func(it item.Item) storage.MutateFunc {
		return func(item.Item) (item.Item, error) { return it, nil }
	}
	err = b.TransactWrite(ctx, []storage.Mutation{
		{Table: tb, Key: storage.Key{PK: []byte("a")}, Fn: set(item.Item{"pk": item.S("a")})},
		{Table: tb, Key: storage.Key{PK: []byte("b")}, Fn: func(item.Item) (item.Item, error) { return nil, refuse }},
	})
	var te *storage.TransactionError
	if !errors.As(err, &te) {
		t.Fatalf("TransactWrite: %v, want a TransactionError", err)
	}
	put(t, b, tb, item.Item{"pk": item.S("c")})
	rs, err := b.ReadStream(ctx, tb.ID, storage.HistoryLabel, 0, 10)
	if err != nil || len(rs) != 1 || rs[0].Keys["pk"].S != "c" {
		t.Fatalf("history after a rolled-back first record: %+v (%v), want c's record alone", rs, err)
	}
	other := hashTable("other")
	other.PointInTimeRecovery = tb.PointInTimeRecovery
	if err := b.CreateTable(ctx, other); err != nil {
		t.Fatal(err)
	}
	put(t, b, other, item.Item{"pk": item.S("o")})
	if err := b.DeleteTable(ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	later := hashTable("later")
	later.PointInTimeRecovery = tb.PointInTimeRecovery
	if err := b.CreateTable(ctx, later); err != nil {
		t.Fatal(err)
	}
	put(t, b, later, item.Item{"pk": item.S("l")})
	for _, c := range []struct {
		tb   *storage.Table
		want string
	}{{tb, ""}, {other, "o"}, {later, "l"}} {
		rs, err := b.ReadStream(ctx, c.tb.ID, storage.HistoryLabel, 0, 10)
		got := ""
		for _, r := range rs {
			got += r.Keys["pk"].S
		}
		if err != nil || got != c.want {
			t.Errorf("history of %s: %q (%v), want %q", c.tb.Name, got, err, c.want)
		}
	}
}
