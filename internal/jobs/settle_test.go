package jobs

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// settlingCatalog is a real SQLite catalog that also answers
// storage.WriterSettler, as Cassandra does, counting the calls and failing
// them while fail is set.
type settlingCatalog struct {
	storage.Catalog
	calls atomic.Int32
	fail  atomic.Bool
}

func (c *settlingCatalog) SettleWriters(context.Context) error {
	c.calls.Add(1)
	if c.fail.Load() {
		return errors.New("frontends still pending")
	}
	return nil
}

// fillJob creates, over a real SQLite data file, a job of kind "fill"
// that fills a new table, and returns the job store and the catalog.
func fillJob(t *testing.T) (*Store, *settlingCatalog, *storage.Table) {
	t.Helper()
	b, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "data.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	s, cat := NewStore(b), &settlingCatalog{Catalog: b}
	tb := &storage.Table{Account: "acct", Name: "filled", ID: uuid.NewString(),
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST", CreatedAt: time.Now().UTC()}
	if _, err := s.CreateFilling(t.Context(), cat, "fill", "j", nil, tb); err != nil {
		t.Fatal(err)
	}
	return s, cat, tb
}

// fillHandler fills tb through Run.Fill, recording in settled how many
// SettleWriters calls preceded the fill, and blocks in it until the run's
// context ends when block is set (the process stops mid-fill).
func fillHandler(cat *settlingCatalog, tb *storage.Table, block bool, settled *atomic.Int32) Handler {
	return func(ctx context.Context, run *Run) error {
		t, err := run.FillingTable(ctx, cat, tb, "fill")
		if err != nil {
			return err
		}
		return run.Fill(ctx, cat, t, func() error {
			settled.Store(cat.calls.Load())
			if block {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		})
	}
}

// TestFillSettlesResumedRunsOnly: a job's first run fills without
// waiting for other writers; a run that resumes it after its process
// stopped mid-fill (no checkpoint) waits first (SettleWriters before the
// fill's first write); a wait that fails is logged and the fill goes on.
func TestFillSettlesResumedRunsOnly(t *testing.T) {
	s, cat, tb := fillJob(t)
	ctx := context.Background()
	var settled atomic.Int32
	settled.Store(-1)
	first := NewRunner(s, Config{Owner: "first", Lease: 300 * time.Millisecond, Poll: 10 * time.Millisecond})
	first.Register("fill", fillHandler(cat, tb, true, &settled))
	stopFirst := startRunner(t, first)
	for deadline := time.Now().Add(10 * time.Second); settled.Load() < 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first run did not start filling")
		}
	}
	stopFirst()
	if got := settled.Load(); got != 0 {
		t.Fatalf("the first run waited for other writers (%d calls)", got)
	}

	// A wait that fails (past the backend's bound) is logged and the
	// resumed run fills all the same: a fault that recovery cannot mend
	// does not hold the restore up for good.
	cat.fail.Store(true)
	second := NewRunner(s, Config{Owner: "second", Lease: 300 * time.Millisecond, Poll: 10 * time.Millisecond})
	settled.Store(-1)
	second.Register("fill", fillHandler(cat, tb, false, &settled))
	startRunner(t, second)
	waitState(t, s, "fill", "j", Succeeded)
	if got, calls := settled.Load(), cat.calls.Load(); got != 1 || calls != 1 {
		t.Fatalf("the resumed run filled after %d of %d waits, want after its one wait", got, calls)
	}
	if cur, err := cat.GetTable(ctx, tb.Account, tb.Name); err != nil || cur.Status != storage.StatusActive {
		t.Fatalf("table after the resumed fill: %+v, %v", cur, err)
	}
}
