package workers

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// TestHistoryPruner keeps each table's change history for its own
// recovery period: two days on, a table with RecoveryPeriodInDays 1 has
// lost its history and one with 35 keeps it, whatever the 24-hour
// retention of stream records.
func TestHistoryPruner(t *testing.T) {
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: t.TempDir() + "/db.sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	mk := func(name string, days int) *storage.Table {
		tb := &storage.Table{
			Account: storage.DefaultAccount, Name: name, ID: uuid.NewString(),
			KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			PointInTimeRecovery:  &storage.PointInTimeRecovery{RecoveryPeriodInDays: days, EnabledAt: time.Now()},
			Status:               storage.StatusActive,
		}
		if err := b.CreateTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"1", "2"} {
			it := item.Item{"pk": item.S("a"), "v": item.N(v)}
			k, _ := storage.ItemKey(tb, it)
			if err := b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
				t.Fatal(err)
			}
		}
		return tb
	}
	short, long := mk("short", 1), mk("long", 35)
	kept := func(tb *storage.Table) int {
		rs, err := b.ReadStream(ctx, tb.ID, storage.HistoryLabel, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	now := time.Now()
	counted := &trimCounter{Backend: b}
	p := newHistoryPruner(counted, nil, time.Hour, nil, func() time.Time { return now })
	if err := p.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if s, l := kept(short), kept(long); s != 2 || l != 2 {
		t.Fatalf("now: history records %d and %d, want 2 and 2", s, l)
	}
	if counted.trims != 0 {
		t.Fatalf("a pass with nothing to prune trimmed %d times, want none (no write)", counted.trims)
	}
	now = now.Add(48 * time.Hour)
	if err := p.pass(ctx); err != nil {
		t.Fatal(err)
	}
	if s, l := kept(short), kept(long); s != 0 || l != 2 {
		t.Fatalf("two days on: history records %d and %d, want 0 and 2", s, l)
	}
	if counted.trims != 1 {
		t.Fatalf("two days on: %d trims, want 1 (the short table's)", counted.trims)
	}
}

// trimCounter counts the TrimHistory calls (write transactions) made on
// a real backend.
type trimCounter struct {
	*sqlite.Backend
	trims int
}

func (c *trimCounter) TrimHistory(ctx context.Context, tableID string, cutoff time.Time) (int64, error) {
	c.trims++
	return c.Backend.TrimHistory(ctx, tableID, cutoff)
}
