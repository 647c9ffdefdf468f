package importer

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// fixture is an import service over a real SQLite data file with its job
// runner running.
type fixture struct {
	store storage.Backend
	jobs  *jobs.Store
	svc   *Service
	root  string
}

func newFixture(tb testing.TB) *fixture { return newFixtureCache(tb, 0) }

// newFixtureCache is newFixture with SQLite's page cache of cacheKiB (0:
// SQLite's default, 2 MiB).
func newFixtureCache(tb testing.TB, cacheKiB int) *fixture {
	tb.Helper()
	dir := tb.TempDir()
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "data.db"), CacheSizeKiB: cacheKiB})
	if err != nil {
		tb.Fatal(err)
	}
	js := jobs.NewStore(b)
	f := &fixture{store: b, jobs: js, root: filepath.Join(dir, "s3")}
	f.svc = New(b, js, Config{Root: f.root, Batched: true})
	r := jobs.NewRunner(js, jobs.Config{Exclusive: true, Poll: 5 * time.Millisecond})
	f.svc.Register(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done; b.Close() })
	return f
}

// gzipLines writes n DYNAMODB_JSON lines of about 100 bytes as a gzipped
// object of bucket b.
func (f *fixture) gzipLines(tb testing.TB, bucket, key string, n int) {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range n {
		fmt.Fprintf(zw, `{"Item":{"pk":{"S":"user#%07d"},"name":{"S":"name %d"},"n":{"N":"%d"},"ok":{"BOOL":true}}}`+"\n", i, i, i)
	}
	zw.Close()
	path := filepath.Join(f.root, bucket, key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// start starts an import of every object of bucket into a new table keyed
// by the string pk and waits for it to end.
func (f *fixture) run(tb testing.TB, bucket string) *Import {
	tb.Helper()
	ctx := context.Background()
	name := "t" + uuid.NewString()[:8]
	p := Params{ImportArn: "arn:aws:dynamodb:us-east-1:000000000000:table/" + name + "/import/x", Source: Source{S3Bucket: bucket},
		InputFormat: "DYNAMODB_JSON", Compression: "GZIP", StartTime: time.Now(),
		Table: storage.Table{Name: name, ID: uuid.NewString(), BillingMode: "PAY_PER_REQUEST", CreatedAt: time.Now(),
			KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}}}
	id := uuid.NewString()
	if _, err := f.svc.Start(ctx, storage.DefaultAccount, id, p); err != nil {
		tb.Fatal(err)
	}
	for {
		im, err := f.svc.Get(ctx, storage.DefaultAccount, id)
		if err != nil {
			tb.Fatal(err)
		}
		if im.State == jobs.Succeeded || im.State == jobs.Failed {
			return im
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestImportCounts(t *testing.T) {
	f := newFixture(t)
	f.gzipLines(t, "b", "data/1.json.gz", 2500)
	f.gzipLines(t, "b", "data/2.json.gz", 10) // the same first ten keys again: the later line wins
	im := f.run(t, "b")
	if im.State != jobs.Succeeded || im.Counts.ProcessedItems != 2510 || im.Counts.ImportedItems != 2510 || im.Counts.Errors != 0 {
		t.Fatalf("import %s %+v", im.State, im.Counts)
	}
	st, _ := os.Stat(filepath.Join(f.root, "b", "data/1.json.gz"))
	st2, _ := os.Stat(filepath.Join(f.root, "b", "data/2.json.gz"))
	if im.Counts.ProcessedBytes != st.Size()+st2.Size() {
		t.Fatalf("ProcessedBytes %d, want the files' %d", im.Counts.ProcessedBytes, st.Size()+st2.Size())
	}
	tb, err := f.store.GetTable(context.Background(), storage.DefaultAccount, im.Params.Table.Name)
	if err != nil || tb.Status != storage.StatusActive {
		t.Fatalf("table: %v %v", err, tb)
	}
	stats, err := f.store.Stats(context.Background(), tb)
	if err != nil || stats.ItemCount != 2500 {
		t.Fatalf("table holds %d items (%v), want 2500", stats.ItemCount, err)
	}
}

// BenchmarkImportGzipJSON imports a gzipped DYNAMODB_JSON file of
// benchLines lines (about 100 bytes an item) into SQLite, with SQLite's
// default page cache (the server's) and with a 64 MiB one, and reports
// items per second of wall time and per second of the process's CPU time
// (which a loaded machine does not distort). Run with -benchtime=1x.
func BenchmarkImportGzipJSON(b *testing.B) {
	for _, c := range []struct {
		name string
		kib  int
	}{{"cache=default", 0}, {"cache=64MiB", 64 << 10}} {
		b.Run(c.name, func(b *testing.B) {
			n := benchLines
			f := newFixtureCache(b, c.kib)
			f.gzipLines(b, "bench", "data.json.gz", n)
			b.ResetTimer()
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				if im := f.run(b, "bench"); im.Counts.ImportedItems != int64(n) {
					b.Fatalf("imported %d", im.Counts.ImportedItems)
				}
			}
			items := float64(n) * float64(b.N)
			b.ReportMetric(items/time.Since(start).Seconds(), "items/s")
			b.ReportMetric(items/(cpuTime()-cpu).Seconds(), "items/cpu-s")
		})
	}
}

// cpuTime is the CPU time (user and system) the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchLines is the size of BenchmarkImportGzipJSON's file.
var benchLines = 1_000_000

// A ClientToken names its import for eight hours: the same parameters
// again return it, others are ErrConflict, and after eight hours the
// token starts a new import.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html#DDB-ImportTable-request-ClientToken
func TestClientTokenWindow(t *testing.T) {
	f := newFixture(t)
	f.gzipLines(t, "b", "data.json.gz", 3)
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	params := func(name, prefix string, start time.Time) Params {
		return Params{ClientToken: "tok", ImportArn: "arn:" + name, Source: Source{S3Bucket: "b", S3KeyPrefix: prefix},
			InputFormat: "DYNAMODB_JSON", Compression: "GZIP", StartTime: start,
			Table: storage.Table{Name: name, ID: uuid.NewString(), BillingMode: "PAY_PER_REQUEST", CreatedAt: start,
				KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
				AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}}}
	}
	first, err := f.svc.Start(ctx, storage.DefaultAccount, "01", params("t1", "", at))
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Start(ctx, storage.DefaultAccount, "02", params("t1", "", at.Add(time.Hour)))
	if err != nil || again.ID != first.ID {
		t.Fatalf("same token, same parameters: %v, %v", err, again)
	}
	if _, err := f.svc.Start(ctx, storage.DefaultAccount, "03", params("t1", "data", at.Add(time.Hour))); err != ErrConflict {
		t.Fatalf("same token, other parameters: %v, want ErrConflict", err)
	}
	later, err := f.svc.Start(ctx, storage.DefaultAccount, "04", params("t2", "data", at.Add(9*time.Hour)))
	if err != nil || later.ID != "04" {
		t.Fatalf("the token nine hours later: %v, %v", err, later)
	}
}
