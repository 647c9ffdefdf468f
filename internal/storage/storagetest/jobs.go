package storagetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/extenddb/extenddb/internal/storage"
)

// Contract tests of storage.JobStore: records are created once, updated
// by compare-and-set only (exactly one of racing updates of a version
// wins), listed by kind in ID order and deleted.

// jobTests are added to Run's list.
var jobTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"JobLifecycle", testJobLifecycle},
	{"JobUpdateRace", testJobUpdateRace},
}

func testJobLifecycle(t *testing.T, e *env) {
	kind := "test-" + e.account
	if err := e.b.CreateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "b", Version: 1, Body: []byte("one")}); err != nil {
		t.Fatal(err)
	}
	if err := e.b.CreateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "b", Version: 1, Body: []byte("again")}); !errors.Is(err, storage.ErrJobExists) {
		t.Fatalf("second create: %v, want ErrJobExists", err)
	}
	if err := e.b.CreateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "a", Version: 1, Body: []byte("other")}); err != nil {
		t.Fatal(err)
	}
	if err := e.b.UpdateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "b", Version: 2, Body: []byte("two")}, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.b.UpdateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "b", Version: 2, Body: []byte("stale")}, 1); !errors.Is(err, storage.ErrJobConflict) {
		t.Fatalf("stale update: %v, want ErrJobConflict", err)
	}
	if err := e.b.UpdateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "zz", Version: 2}, 1); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("update of a missing record: %v, want ErrJobNotFound", err)
	}
	r, err := e.b.GetJob(e.ctx, kind, "b")
	if err != nil || r.Version != 2 || string(r.Body) != "two" {
		t.Fatalf("GetJob = %+v, %v; want version 2, body two", r, err)
	}
	list, err := e.b.ListJobs(e.ctx, kind)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "a" || list[1].ID != "b" || string(list[1].Body) != "two" {
		t.Fatalf("ListJobs = %+v; want a, b", list)
	}
	if err := e.b.DeleteJob(e.ctx, kind, "b"); err != nil {
		t.Fatal(err)
	}
	if err := e.b.DeleteJob(e.ctx, kind, "b"); err != nil {
		t.Fatalf("deleting a missing record: %v", err)
	}
	if _, err := e.b.GetJob(e.ctx, kind, "b"); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("GetJob after delete: %v, want ErrJobNotFound", err)
	}
}

func testJobUpdateRace(t *testing.T, e *env) {
	kind := "race-" + e.account
	if err := e.b.CreateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "j", Version: 1, Body: []byte("0")}); err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			err := e.b.UpdateJob(e.ctx, storage.JobRecord{Kind: kind, ID: "j", Version: 2, Body: []byte(fmt.Sprint(i))}, 1)
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, storage.ErrJobConflict):
				t.Errorf("racing update: %v", err)
			}
		})
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d racing updates of version 1 won, want exactly 1", n)
	}
}
