package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// A new database file gets Options.PageSize; an existing one keeps the
// page size it was created with, and an invalid size is refused.
func TestPageSizeOfNewDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.db")
	pageSize := func(opts Options) int {
		t.Helper()
		opts.Path = path
		b, err := Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		var n int
		if err := b.wconn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := pageSize(Options{PageSize: 16384}); got != 16384 {
		t.Errorf("new database: page size %d, want 16384", got)
	}
	if got := pageSize(Options{PageSize: 8192}); got != 16384 {
		t.Errorf("existing database: page size %d, want the 16384 it was created with", got)
	}
	for _, bad := range []int{-1, 100, 1000, 131072} {
		if _, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "bad.db"), PageSize: bad}); err == nil {
			t.Errorf("PageSize %d accepted", bad)
		}
	}
}

// Options.MmapSizeBytes applies to the writer and to every reader, and
// items written and read through the map are the ones stored.
func TestMmapSize(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{MmapSizeBytes: 1 << 20})
	for _, c := range []struct {
		name string
		get  func() (int64, error)
	}{
		{"writer", func() (n int64, err error) {
			return n, b.wconn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&n)
		}},
		{"reader", func() (n int64, err error) { return n, b.rdb.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&n) }},
	} {
		if n, err := c.get(); err != nil || n != 1<<20 {
			t.Errorf("%s: mmap_size %d, %v; want %d", c.name, n, err, 1<<20)
		}
	}
	tb := hashTable("m")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		put(t, b, tb, item.Item{"pk": item.S(fmt.Sprint(i)), "v": item.N(fmt.Sprint(i * 3))})
	}
	got, err := b.GetItem(ctx, tb, storage.Key{PK: item.EncodeKey(item.S("7"))}, true)
	if err != nil || got["v"].S != "21" {
		t.Fatalf("GetItem through the map: %v %v", got, err)
	}
}

// settingsUnderTest are the page, cache and map settings compared in
// ADR 0018c.
var settingsUnderTest = []struct {
	name string
	opts Options
}{
	{"page=4096/mmap=0", Options{}},
	{"page=8192/mmap=0", Options{PageSize: 8192}},
	{"page=16384/mmap=0", Options{PageSize: 16384}},
	{"page=4096/mmap=256MiB", Options{MmapSizeBytes: 256 << 20}},
	{"page=4096/cache=16MiB", Options{CacheSizeKiB: 16 << 10}},
}

// processCPU is the CPU time (user and system) the test process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start as
// cpu-us/op: on a shared machine it moves much less than wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
}

// BenchmarkSettings measures, for each setting, serial puts of new
// ~250-byte items (synchronous OFF, so the disk does not dominate),
// GetItem and 10-item Query against 20,000 stored items (the page cache
// warm), in process CPU time per operation:
//
//	go test -run X -bench Settings -benchtime 20000x ./internal/storage/sqlite/
func BenchmarkSettings(b *testing.B) {
	ctx := context.Background()
	for _, s := range settingsUnderTest {
		b.Run(s.name+"/Put", func(b *testing.B) {
			opts := s.opts
			opts.Synchronous = "OFF"
			be, _ := openTemp(b, opts)
			tb := benchTable(b, be)
			start := processCPU()
			for i := 0; b.Loop(); i++ {
				put(b, be, tb, benchItem(fmt.Sprint("p", i), "s"))
			}
			reportCPU(b, start)
		})
		opts := s.opts
		opts.Synchronous = "OFF"
		be, _ := openTemp(b, opts)
		tb := benchTable(b, be)
		const parts = 2000
		for p := range parts {
			for k := range 10 {
				put(b, be, tb, benchItem(fmt.Sprint("p", p), fmt.Sprint("s", k)))
			}
		}
		b.Run(s.name+"/Get", func(b *testing.B) {
			start := processCPU()
			for i := 0; b.Loop(); i++ {
				k := storage.Key{PK: item.EncodeKey(item.S(fmt.Sprint("p", (i*7)%parts))), SK: item.EncodeKey(item.S("s3"))}
				if it, err := be.GetItem(ctx, tb, k, true); err != nil || it == nil {
					b.Fatalf("GetItem: %v, %v", it, err)
				}
			}
			reportCPU(b, start)
		})
		b.Run(s.name+"/Query10", func(b *testing.B) {
			start := processCPU()
			for i := 0; b.Loop(); i++ {
				rows := 0
				q := storage.QueryRequest{PK: item.EncodeKey(item.S(fmt.Sprint("p", (i*7)%parts))), Forward: true}
				if err := be.Query(ctx, tb, &q, func(storage.Row) bool { rows++; return true }); err != nil || rows != 10 {
					b.Fatalf("Query: %d rows, %v", rows, err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkSpaceUse reports the bytes on disk per byte of item (see
// TestSpaceUse) for each page size:
//
//	go test -run X -bench SpaceUse -benchtime 1x ./internal/storage/sqlite/
func BenchmarkSpaceUse(b *testing.B) {
	for _, s := range settingsUnderTest[:3] {
		for _, size := range []int{1000, 2000, 4000, 10_000} {
			b.Run(fmt.Sprintf("%s/item=%d", s.name, size), func(b *testing.B) {
				var ratio float64
				for b.Loop() {
					ratio = spaceUse(b, size, s.opts)
				}
				b.ReportMetric(ratio, "disk/item-bytes")
			})
		}
	}
}
