package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/storagetest"
)

func openTemp(t testing.TB, opts Options) (*Backend, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.db")
	opts.Path = path
	b, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b, path
}

func TestContract(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		b, _ := openTemp(t, Options{})
		return b
	})
}

func TestContractInMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		b, err := Open(context.Background(), Options{Path: ""})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	})
}

func hashTable(name string) *storage.Table {
	return &storage.Table{
		Account:              "000000000001",
		Name:                 name,
		ID:                   uuid.NewString(),
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}},
		Status:               storage.StatusActive,
	}
}

func put(t testing.TB, b storage.Backend, tb *storage.Table, it item.Item) {
	t.Helper()
	k, err := storage.ItemKey(tb, it)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Mutate(context.Background(), tb, k, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
		t.Fatal(err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.db")
	b, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("t")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			put(t, b, tb, item.Item{"pk": item.S(fmt.Sprint(i))})
		}()
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("WAL file after Close: %v", err)
	}
	if _, err := b.GetTable(ctx, tb.Account, "t"); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("GetTable after Close: %v", err)
	}
	if err := b.Mutate(ctx, tb, storage.Key{PK: []byte("x")}, nil); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Mutate after Close: %v", err)
	}

	b, err = Open(context.Background(), Options{Path: path, Synchronous: "NORMAL"}) // migrations re-run as no-ops
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.GetTable(ctx, tb.Account, "t")
	if err != nil || got.ID != tb.ID {
		t.Fatalf("GetTable after reopen: %+v, %v", got, err)
	}
	st, err := b.Stats(ctx, got)
	if err != nil || st.ItemCount != 50 {
		t.Fatalf("Stats after reopen: %+v, %v", st, err)
	}
	var versions int
	if err := b.rdb.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&versions); err != nil || versions != len(migrations)-1 {
		t.Fatalf("schema_migrations rows = %d, %v", versions, err)
	}
}

// TestUpdateTableIndexes adds a GSI to a table with items (it is filled in
// the same transaction) and removes it again (its table is dropped).
func TestUpdateTableIndexes(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{})
	tb := hashTable("t")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 1200 {
		it := item.Item{"pk": item.S(fmt.Sprint(i))}
		if i%3 == 0 {
			it["g"] = item.S(fmt.Sprint("g", i%7))
		}
		put(t, b, tb, it)
	}
	up, err := b.UpdateTable(ctx, tb.Account, "t", func(t *storage.Table) error {
		t.Indexes = append(t.Indexes, storage.Index{IndexName: "g", Global: true,
			KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.Indexes[0].ID == "" {
		t.Fatal("new index got no ID")
	}
	count := 0
	if err := b.Scan(ctx, up, &storage.ScanRequest{Index: "g"}, func(r storage.Row) bool {
		count++
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if count != 400 {
		t.Fatalf("back-filled index has %d rows, want 400", count)
	}
	// Writes through the stale entry still maintain the new index: the
	// writer follows the committed catalog.
	put(t, b, tb, item.Item{"pk": item.S("new"), "g": item.S("fresh")})
	var rows []storage.Row
	if err := b.Query(ctx, up, &storage.QueryRequest{Index: "g", PK: item.EncodeKey(item.S("fresh")), Forward: true}, func(r storage.Row) bool {
		rows = append(rows, r)
		return true
	}); err != nil || len(rows) != 1 || !bytes.Equal(rows[0].Pos.Key.PK, item.EncodeKey(item.S("new"))) {
		t.Fatalf("query of the new index: %v, %v", rows, err)
	}

	down, err := b.UpdateTable(ctx, tb.Account, "t", func(t *storage.Table) error {
		t.Indexes = nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Scan(ctx, up, &storage.ScanRequest{Index: "g"}, func(storage.Row) bool { return true }); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("scan of a dropped index: %v", err)
	}
	put(t, b, down, item.Item{"pk": item.S("after"), "g": item.S("x")})
	if _, err := b.UpdateTable(ctx, tb.Account, "t", func(t *storage.Table) error {
		t.Name = "renamed"
		return nil
	}); err == nil {
		t.Fatal("UpdateTable allowed a rename")
	}
}

func TestInvalidIDs(t *testing.T) {
	b, _ := openTemp(t, Options{})
	tb := hashTable("t")
	tb.ID = "x; DROP TABLE catalog"
	if err := b.CreateTable(context.Background(), tb); err == nil {
		t.Fatal("CreateTable accepted a non-hex ID")
	}
	if _, err := Open(context.Background(), Options{Path: filepath.Join(t.TempDir(), "x.db"), Synchronous: "SOMETIMES"}); err == nil {
		t.Fatal("Open accepted a bad Synchronous")
	}
}

func TestSuccessor(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte("a"), []byte("b")},
		{[]byte{0x01, 0xFF}, []byte{0x02}},
		{[]byte{0x00, 0xFF, 0xFF}, []byte{0x01}},
		{[]byte{0xFE}, []byte{0xFF}},
		{[]byte{0xFF}, nil},
		{[]byte{0xFF, 0xFF}, nil},
		{nil, nil},
	} {
		if got := storage.Successor(c.in); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("storage.Successor(%x) = %x, want %x", c.in, got, c.want)
		}
	}
}

// TestCloseFinishesPendingWrites closes while writers are queued: every
// write either committed or failed with ErrClosed, and every committed one
// is there after reopening.
func TestCloseFinishesPendingWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.db")
	b, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("t")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				pk := fmt.Sprint(w, "-", i)
				err := b.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(item.S(pk))}, func(item.Item) (item.Item, error) {
					return item.Item{"pk": item.S(pk)}, nil
				})
				if errors.Is(err, storage.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("Mutate: %v", err)
					return
				}
				mu.Lock()
				acked[pk] = true
				mu.Unlock()
			}
		}()
	}
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n > 300 {
			break
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	b, err = Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for pk := range acked {
		it, err := b.GetItem(ctx, tb, storage.Key{PK: item.EncodeKey(item.S(pk))}, true)
		if err != nil || it == nil {
			t.Fatalf("acknowledged write %s lost: %v", pk, err)
		}
	}
}
