package sqlite

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// spaceUse puts items of itemSize bytes (DynamoDB's item size) into a new
// database until about 8 MB are stored, closes it, and returns the growth
// of the database file per byte of item.
func spaceUse(t testing.TB, itemSize int, opts Options) float64 {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "space.db")
	opts.Path = path
	b, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("space")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	empty := fileSize(t, path)
	if b, err = Open(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	n := max(20, (8<<20)/itemSize)
	total := 0
	for i := range n {
		pk := fmt.Sprintf("item-%08d", i)
		it := item.Item{"pk": item.S(pk)}
		pad := itemSize - item.Size(it) - len("v")
		raw := make([]byte, pad)
		rand.Read(raw)
		it["v"] = item.S(base64.RawStdEncoding.EncodeToString(raw)[:pad])
		total += item.Size(it)
		put(t, b, tb, it)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return float64(fileSize(t, path)-empty) / float64(total)
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// Items from 1 KB to 400 KB take at most 1.5 times their size on disk
// (measured as the growth of the database file, write-ahead log
// checkpointed). Run with -v to see the ratios reported in
// docs/operations.md: go test -run TestSpaceUse -v ./internal/storage/sqlite/
func TestSpaceUse(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 50 MB")
	}
	for _, size := range []int{900, 1000, 1500, 2000, 3000, 4000, 5000, 10_000, 20_000, 100_000, 400_000} {
		ratio := spaceUse(t, size, Options{})
		t.Logf("items of %7d bytes: %.2f bytes on disk per byte of item", size, ratio)
		if size >= 1000 && ratio > 1.5 {
			t.Errorf("items of %d bytes take %.2f times their size, want at most 1.5", size, ratio)
		}
	}
}

// A table in the layout of earlier versions (WITHOUT ROWID) is read and
// written as before: data files written before the rowid layout stay
// usable without a migration.
func TestEarlierLayoutStillServed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	b, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	tb := hashTable("old")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	name, _ := storage.ItemsTableName(tb.ID)
	oldDDL := "CREATE TABLE " + name + " (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL DEFAULT x'', " +
		"item BLOB NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (h, pk, sk)) WITHOUT ROWID"
	for _, q := range []string{"DROP TABLE " + name, oldDDL} {
		if _, err := b.wconn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	b.forgetReadStmts([]string{name})
	for i := range 30 {
		put(t, b, tb, item.Item{"pk": item.S(fmt.Sprint(i)), "v": item.N(fmt.Sprint(i))})
	}
	put(t, b, tb, item.Item{"pk": item.S("7"), "v": item.N("70")}) // replaces
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err = Open(context.Background(), Options{Path: path}); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, _ := storage.ItemKey(tb, item.Item{"pk": item.S("7")})
	got, err := b.GetItem(ctx, tb, k, true)
	if err != nil || got["v"].S != "70" {
		t.Fatalf("GetItem on the earlier layout: %v %v", got, err)
	}
	n := 0
	if err := b.Scan(ctx, tb, &storage.ScanRequest{}, func(storage.Row) bool { n++; return true }); err != nil || n != 30 {
		t.Fatalf("Scan on the earlier layout: %d rows, %v", n, err)
	}
	var ddl string
	if err := b.wconn.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE name = ?", name).Scan(&ddl); err != nil || !strings.Contains(ddl, "WITHOUT ROWID") {
		t.Fatalf("the table was not left in its layout: %q %v", ddl, err)
	}
}
