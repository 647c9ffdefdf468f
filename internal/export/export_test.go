package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// fixture is a service over a real SQLite data file with its job runner
// running.
type fixture struct {
	store storage.Backend
	svc   *Service
	root  string
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	dir := tb.TempDir()
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(dir, "data.db")})
	if err != nil {
		tb.Fatal(err)
	}
	js := jobs.NewStore(b)
	f := &fixture{store: b, root: filepath.Join(dir, "exports")}
	f.svc = New(b, js, f.root, nil)
	r := jobs.NewRunner(js, jobs.Config{Exclusive: true, Poll: 5 * time.Millisecond})
	f.svc.Register(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done; b.Close() })
	return f
}

// table creates a table keyed by the string pk, with point in time
// recovery enabled, and n items.
func (f *fixture) table(tb testing.TB, name string, n int) *storage.Table {
	tb.Helper()
	ctx := context.Background()
	t := &storage.Table{Account: storage.DefaultAccount, Name: name, ID: uuid.NewString(), Status: storage.StatusActive,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST", CreatedAt: time.Now(),
		PointInTimeRecovery: &storage.PointInTimeRecovery{RecoveryPeriodInDays: 35, EnabledAt: time.Now()}}
	if err := f.store.CreateTable(ctx, t); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		it := item.Item{"pk": item.S(fmt.Sprintf("k%06d", i)), "v": item.N(fmt.Sprint(i))}
		if err := f.store.Mutate(ctx, t, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			tb.Fatal(err)
		}
	}
	return t
}

func (f *fixture) params(t *storage.Table, format string) *Params {
	return &Params{ExportArn: "arn:aws:dynamodb:us-east-1:000000000000:table/" + t.Name + "/export/x",
		TableArn: "arn:aws:dynamodb:us-east-1:000000000000:table/" + t.Name, TableID: t.ID, TableName: t.Name,
		ExportType: dataformat.FullExport, ExportTime: time.Now(), ClientToken: uuid.NewString(), S3Bucket: "b",
		ExportFormat: format, StartTime: time.Now(), Fingerprint: "f"}
}

// wait polls the export until it ends.
func (f *fixture) wait(tb testing.TB, id string) *Export {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		x, err := f.svc.Get(context.Background(), storage.DefaultAccount, id)
		if err != nil {
			tb.Fatal(err)
		}
		if x.Status() != "IN_PROGRESS" {
			return x
		}
		if time.Now().After(deadline) {
			tb.Fatalf("export %s did not end", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A client token returns its export for the same request, ErrConflict for
// another, and is free again after eight hours.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html#DDB-ExportTableToPointInTime-request-ClientToken
func TestStartClientToken(t *testing.T) {
	f := newFixture(t)
	tbl := f.table(t, "tok", 1)
	ctx := context.Background()
	p := f.params(tbl, "DYNAMODB_JSON")
	x1, err := f.svc.Start(ctx, storage.DefaultAccount, NewID(time.Now()), p)
	if err != nil {
		t.Fatal(err)
	}
	x2, err := f.svc.Start(ctx, storage.DefaultAccount, NewID(time.Now()), p)
	if err != nil || x2.ID != x1.ID {
		t.Fatalf("same token and request: %v, %v; want export %s", x2, err, x1.ID)
	}
	other := *p
	other.Fingerprint = "g"
	if _, err := f.svc.Start(ctx, storage.DefaultAccount, NewID(time.Now()), &other); !errors.Is(err, ErrConflict) {
		t.Fatalf("same token, other request: %v, want ErrConflict", err)
	}
	f.svc.now = func() time.Time { return time.Now().Add(jobs.ClientTokenLifetime + time.Minute) }
	x3, err := f.svc.Start(ctx, storage.DefaultAccount, NewID(time.Now().Add(time.Millisecond)), &other)
	if err != nil || x3.ID == x1.ID {
		t.Fatalf("token past its 8 hours: %v, %v; want a new export", x3, err)
	}
	f.wait(t, x1.ID)
	f.wait(t, x3.ID)
}

// An export whose table was replaced (deleted and created again) before
// it ran ends FAILED with a FailureCode and FailureMessage.
func TestExportOfDeletedTableFails(t *testing.T) {
	f := newFixture(t)
	tbl := f.table(t, "gone", 3)
	p := f.params(tbl, "DYNAMODB_JSON")
	p.TableID = uuid.NewString()
	x, err := f.svc.Start(context.Background(), storage.DefaultAccount, NewID(time.Now()), p)
	if err != nil {
		t.Fatal(err)
	}
	x = f.wait(t, x.ID)
	if x.Status() != "FAILED" || x.FailureCode != "TableNotFoundException" || x.FailureMessage != "table gone was deleted during its export" {
		t.Fatalf("export of a deleted table: %+v", x)
	}
}

func TestParseFailure(t *testing.T) {
	for in, want := range map[string][2]string{
		"S3AccessDenied: no": {"S3AccessDenied", "no"},
		"open /x: denied":    {"UNKNOWN", "open /x: denied"},
		"plain":              {"UNKNOWN", "plain"},
	} {
		if c, m := parseFailure(in); c != want[0] || m != want[1] {
			t.Errorf("parseFailure(%q) = %q, %q; want %q", in, c, m, want)
		}
	}
}

// BenchmarkExport exports a 20,000-item table in each format and reports
// items per second; compare with BenchmarkBackupRestore's backup-items/s
// (internal/backup) for the same table.
func BenchmarkExport(b *testing.B) {
	for _, format := range []string{"DYNAMODB_JSON", "ION"} {
		b.Run(format, func(b *testing.B) {
			const n = 20_000
			f := newFixture(b)
			tbl := f.table(b, "src", n)
			var took time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				p := f.params(tbl, format)
				x, err := f.svc.Start(context.Background(), storage.DefaultAccount, NewID(start.Add(time.Duration(i)*time.Millisecond)), p)
				if err != nil {
					b.Fatal(err)
				}
				if x = f.wait(b, x.ID); x.Status() != "COMPLETED" || x.ItemCount != n {
					b.Fatalf("export: %+v", x)
				}
				took += time.Since(start)
				i++
			}
			b.ReportMetric(float64(n*i)/took.Seconds(), "items/s")
		})
	}
}

// TestExportWithoutCursor: an export job that has not checkpointed a
// cursor, whether its record holds none, an empty one or JSON null, reads
// as an export in progress with no results yet.
func TestExportWithoutCursor(t *testing.T) {
	for name, cur := range map[string]json.RawMessage{"none": nil, "empty": {}, "null": json.RawMessage("null")} {
		j := &jobs.Job{ID: "01", State: jobs.Running, Params: json.RawMessage(`{"TableArn":"arn:t"}`), Cursor: cur,
			Progress: jobs.Progress{Done: 7, Bytes: 70}}
		x, err := fromJob(j)
		if err != nil {
			t.Fatalf("%s cursor: %v", name, err)
		}
		if x.Params.TableArn != "arn:t" || x.Status() != "IN_PROGRESS" || x.ItemCount != 7 || x.BilledSize != 70 || !x.EndTime.IsZero() {
			t.Errorf("%s cursor: %+v", name, x)
		}
	}
}
