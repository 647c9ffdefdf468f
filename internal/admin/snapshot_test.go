package admin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

func newStore(tb testing.TB) (storage.Backend, string) {
	tb.Helper()
	dir := tb.TempDir()
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "data.db")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	return b, filepath.Join(dir, "snapshots")
}

// fill creates table name in the default namespace with n items.
func fill(tb testing.TB, b storage.Backend, name string, n int) *storage.Table {
	tb.Helper()
	ctx := context.Background()
	t := &storage.Table{Account: storage.DefaultAccount, Name: name, ID: uuid.NewString(), Status: storage.StatusActive,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST", CreatedAt: time.Now()}
	if err := b.CreateTable(ctx, t); err != nil {
		tb.Fatal(err)
	}
	i := 0
	err := load(ctx, b, t, func() (item.Item, error) {
		if i == n {
			return nil, nil
		}
		i++
		return item.Item{"pk": item.S(fmt.Sprintf("k%06d", i)), "v": item.N(fmt.Sprint(i))}, nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func count(tb testing.TB, b storage.Backend, name string) int {
	tb.Helper()
	t, err := b.GetTable(context.Background(), storage.DefaultAccount, name)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	if err := scanAll(context.Background(), b, t, func(item.Item) error { n++; return nil }); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestSnapshotRoundTrip: a restore brings back the saved items, removes
// the tables created since and keeps the table's name and creation time.
func TestSnapshotRoundTrip(t *testing.T) {
	b, root := newStore(t)
	ctx := context.Background()
	src := fill(t, b, "a", 300)
	s := NewSnapshots(b, root, time.Now)
	if _, err := s.Save(ctx, storage.DefaultAccount, "base", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Truncate(ctx, b, storage.DefaultAccount, "a"); err != nil {
		t.Fatal(err)
	}
	fill(t, b, "b", 1)
	if n := count(t, b, "a"); n != 0 {
		t.Fatalf("%d items after truncate", n)
	}
	if _, err := s.Restore(ctx, storage.DefaultAccount, "base"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, b, "a"); n != 300 {
		t.Fatalf("%d items after restore", n)
	}
	got, err := b.GetTable(ctx, storage.DefaultAccount, "a")
	if err != nil || !got.CreatedAt.Equal(src.CreatedAt) || got.ID == src.ID {
		t.Fatalf("restored entry %+v, %v", got, err)
	}
	if _, err := b.GetTable(ctx, storage.DefaultAccount, "b"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("table created after the snapshot: %v", err)
	}
	if _, err := s.Restore(ctx, storage.DefaultAccount, "nope"); !errors.Is(err, errNoSnapshot) {
		t.Fatalf("restore of a missing snapshot: %v", err)
	}
}

// TestDamagedSnapshotChangesNothing: a snapshot whose items file was cut
// short is refused before any table is touched.
func TestDamagedSnapshotChangesNothing(t *testing.T) {
	b, root := newStore(t)
	ctx := context.Background()
	fill(t, b, "a", 50)
	s := NewSnapshots(b, root, time.Now)
	if _, err := s.Save(ctx, storage.DefaultAccount, "base", nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.dir(storage.DefaultAccount, "base"), "0.items")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()/2); err != nil {
		t.Fatal(err)
	}
	fill(t, b, "b", 1)
	if _, err := s.Restore(ctx, storage.DefaultAccount, "base"); err == nil || !strings.Contains(err.Error(), "snapshot base is damaged") {
		t.Fatalf("restore of a damaged snapshot: %v", err)
	}
	if n := count(t, b, "a"); n != 50 {
		t.Fatalf("table a has %d items after a refused restore", n)
	}
	if n := count(t, b, "b"); n != 1 {
		t.Fatalf("table b has %d items after a refused restore", n)
	}
}

// BenchmarkSnapshotRestore restores a snapshot of one table of 1,000
// items on SQLite (an ephemeral file in a temporary directory).
func BenchmarkSnapshotRestore(b *testing.B) { benchmarkRestore(b, 1000) }

// BenchmarkSnapshotRestore10k restores a table of 10,000 items on SQLite,
// the size a test suite's seed data reaches.
func BenchmarkSnapshotRestore10k(b *testing.B) { benchmarkRestore(b, 10000) }

func benchmarkRestore(b *testing.B, items int) {
	store, root := newStore(b)
	ctx := context.Background()
	fill(b, store, "a", items)
	s := NewSnapshots(store, root, time.Now)
	if _, err := s.Save(ctx, storage.DefaultAccount, "base", nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.Restore(ctx, storage.DefaultAccount, "base"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTruncate truncates a table of 1,000 items on SQLite.
func BenchmarkTruncate(b *testing.B) {
	store, root := newStore(b)
	ctx := context.Background()
	fill(b, store, "a", 1000)
	s := NewSnapshots(store, root, time.Now)
	if _, err := s.Save(ctx, storage.DefaultAccount, "base", nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if _, err := s.Restore(ctx, storage.DefaultAccount, "base"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Truncate(ctx, store, storage.DefaultAccount, "a"); err != nil {
			b.Fatal(err)
		}
	}
}
