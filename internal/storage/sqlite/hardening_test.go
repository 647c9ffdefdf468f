package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/watchdog"
)

// A second Open of the same database, in this process or another, fails at
// once with a clear error naming the holder; after Close it opens again.
func TestDatabaseLockedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	b, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), Options{Path: path})
	want := fmt.Sprintf("sqlite: %s is in use by another extenddb process (pid %d); stop it, or give this one another --data-dir",
		filepath.Dir(path), os.Getpid())
	if err == nil || err.Error() != want {
		t.Fatalf("second Open: %v\nwant %s", err, want)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	b2.Close()
}

// The directory an in-memory database leaves behind when its process dies
// (nothing holds its lock any more) is removed by the next in-memory Open;
// a live one's is not.
func TestInMemoryLeftoversRemoved(t *testing.T) {
	live, err := Open(context.Background(), Options{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	// The watchdog keeps a directory whose lock file it finds held.
	if _, err := os.Stat(filepath.Join(live.tempDir, watchdog.LockName)); err != nil {
		t.Fatalf("in-memory database not locked by %s: %v", watchdog.LockName, err)
	}
	base := filepath.Dir(live.tempDir)
	dead, err := os.MkdirTemp(base, watchdog.DirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"extenddb.db", "extenddb.db-wal", "extenddb.db.lock"} {
		if err := os.WriteFile(filepath.Join(dead, f), []byte("left by a killed server"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	next, err := Open(context.Background(), Options{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("dead in-memory directory %s still there (%v)", dead, err)
	}
	if _, err := os.Stat(live.tempDir); err != nil {
		t.Fatalf("live in-memory directory removed: %v", err)
	}
	tempDir := next.tempDir
	next.Close()
	if _, err := os.Stat(tempDir); !os.IsNotExist(err) {
		t.Fatalf("Close left %s (%v)", tempDir, err)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// 200 concurrent Scans share a bounded pool of reader connections, and the
// descriptors go back to about where they were once they are done.
func TestReaderPoolBounded(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{ReadConns: 4, MaxReadConns: 8})
	tb := hashTable("scanned")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		put(t, b, tb, item.Item{"pk": item.S(strconv.Itoa(i))})
	}
	before := openFDs(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	peak := 0
	for range 200 {
		wg.Go(func() {
			n := 0
			err := b.Scan(ctx, tb, &storage.ScanRequest{}, func(storage.Row) bool {
				if n++; n == 25 {
					mu.Lock()
					peak = max(peak, b.rdb.Stats().OpenConnections)
					mu.Unlock()
				}
				return true
			})
			if err != nil || n != 50 {
				t.Errorf("Scan: %d rows, %v", n, err)
			}
		})
	}
	wg.Wait()
	if peak > 8 {
		t.Fatalf("%d reader connections open at once, bound is 8", peak)
	}
	if after := openFDs(t); after > before+3*4 {
		t.Fatalf("descriptors: %d before, %d after 200 Scans (at most 4 idle readers may stay)", before, after)
	}
}

// A write past the space the database may use fails with ErrStorageFull
// and applies nothing; the database keeps serving reads and, once there is
// room again, writes.
func TestStorageFullIsReported(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{})
	tb := hashTable("full")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	put(t, b, tb, item.Item{"pk": item.S("before")})
	var pages int
	if err := b.wconn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := b.wconn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count=%d", pages)); err != nil {
		t.Fatal(err)
	}
	big := item.Item{"pk": item.S("big"), "v": item.S(strings.Repeat("x", 200_000))}
	k, _ := storage.ItemKey(tb, big)
	err := b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return big, nil })
	if !errors.Is(err, storage.ErrStorageFull) {
		t.Fatalf("write past the space: %v, want ErrStorageFull", err)
	}
	if got, err := b.GetItem(ctx, tb, k, true); err != nil || got != nil {
		t.Fatalf("refused write left %v (%v)", got, err)
	}
	if _, err := b.wconn.ExecContext(ctx, "PRAGMA max_page_count=1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return big, nil }); err != nil {
		t.Fatalf("write once there is room: %v", err)
	}
}

// A database file with damaged pages is refused at start, with what to do.
func TestDamagedFileRefusedAtStart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.db")
	b, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("damaged")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		put(t, b, tb, item.Item{"pk": item.S(strconv.Itoa(i)), "v": item.S(strings.Repeat("v", 300))})
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	garbage := []byte(strings.Repeat("\xa5", 4096))
	for off := st.Size() / 2 / 4096 * 4096; off+4096 < st.Size(); off += 3 * 4096 {
		f.WriteAt(garbage, off)
	}
	f.Close()
	_, err = Open(context.Background(), Options{Path: path})
	if !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), "restore the data directory from a backup") {
		t.Fatalf("damaged file: %v, want ErrCorrupt telling what to do", err)
	}
	// The operator gets the first few problems, not SQLite's up to 100.
	if lines := strings.Count(err.Error(), "\n") + 1; lines > 6 {
		t.Fatalf("damaged file's message has %d lines, want at most 6:\n%v", lines, err)
	}
	// The check can be skipped (e.g. for a very large file); damage then
	// surfaces on read as ErrCorrupt.
	b, err = Open(context.Background(), Options{Path: path, QuickCheckMaxBytes: -1})
	if err != nil {
		t.Fatalf("Open without check: %v", err)
	}
	defer b.Close()
	err = b.Scan(ctx, tb, &storage.ScanRequest{}, func(storage.Row) bool { return true })
	if !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Scan of damaged pages: %v, want ErrCorrupt", err)
	}
}

// GetItemsSnapshot reads items in order, nil for a missing one, and a
// table the storage no longer has is ErrTableNotFound.
func TestGetItemsSnapshot(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{})
	tb := hashTable("snap")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	put(t, b, tb, item.Item{"pk": item.S("a"), "v": item.N("1")})
	put(t, b, tb, item.Item{"pk": item.S("c"), "v": item.N("3")})
	var refs []storage.ItemRef
	for _, pk := range []string{"c", "b", "a"} {
		k, err := storage.ItemKey(tb, item.Item{"pk": item.S(pk)})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, storage.ItemRef{Table: tb, Key: k})
	}
	got, err := b.GetItemsSnapshot(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1] != nil || got[0]["v"].S != "3" || got[2]["v"].S != "1" {
		t.Fatalf("snapshot read: %v", got)
	}
	if err := b.DeleteTable(ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GetItemsSnapshot(ctx, refs); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("vanished table: %v, want ErrTableNotFound", err)
	}
}
