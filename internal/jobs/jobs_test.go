package jobs

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// newStore opens a real SQLite data file in a temporary directory.
func newStore(t *testing.T) *Store {
	t.Helper()
	b, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "data.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return NewStore(b)
}

// startRunner runs r until the test ends or stop is called.
func startRunner(t *testing.T, r *Runner) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// waitState polls until the job reaches state, or fails the test.
func waitState(t *testing.T, s *Store, kind, id, state string) *Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := s.Get(context.Background(), kind, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State == state {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s/%s is %s (%s), want %s", kind, id, j.State, j.Error, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunnerCompletesAndFails(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	r := NewRunner(s, Config{Poll: 20 * time.Millisecond})
	r.Register("count", func(ctx context.Context, run *Run) error {
		var p struct{ N int64 }
		if err := run.Job.DecodeParams(&p); err != nil {
			return err
		}
		for i := int64(1); i <= p.N; i++ {
			if err := run.Checkpoint(ctx, i, Progress{Done: i, Total: p.N}); err != nil {
				return err
			}
		}
		if p.N == 0 {
			return errors.New("nothing to count")
		}
		return nil
	})
	if _, err := s.Create(ctx, "count", "three", "acct", map[string]int{"N": 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "count", "three", "acct", nil); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate create: %v, want ErrExists", err)
	}
	if _, err := s.Create(ctx, "count", "zero", "acct", map[string]int{"N": 0}); err != nil {
		t.Fatal(err)
	}
	startRunner(t, r)
	j := waitState(t, s, "count", "three", Succeeded)
	if j.Progress != (Progress{Done: 3, Total: 3}) || string(j.Cursor) != "3" || j.Owner != "" || j.EndedAt.IsZero() {
		t.Fatalf("succeeded job = %+v", j)
	}
	j = waitState(t, s, "count", "zero", Failed)
	if j.Error != "nothing to count" {
		t.Fatalf("failed job error = %q", j.Error)
	}
}

// Two processes sharing one backend: exactly one runs each job.
func TestLeaseOneRunnerPerJob(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var runs atomic.Int32
	h := func(ctx context.Context, run *Run) error {
		runs.Add(1)
		time.Sleep(100 * time.Millisecond)
		return run.Checkpoint(ctx, "end", Progress{Done: 1})
	}
	for i := range 2 {
		r := NewRunner(s, Config{Owner: []string{"a", "b"}[i], Poll: 5 * time.Millisecond})
		r.Register("once", h)
		startRunner(t, r)
	}
	for _, id := range []string{"j1", "j2", "j3"} {
		if _, err := s.Create(ctx, "once", id, "acct", nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"j1", "j2", "j3"} {
		waitState(t, s, "once", id, Succeeded)
	}
	if n := runs.Load(); n != 3 {
		t.Fatalf("%d runs of 3 jobs by 2 runners, want 3", n)
	}
}

// A process that stops mid-job leaves it RUNNING; once its lease expires
// another process resumes it from the last checkpoint.
func TestResumeFromCheckpointAfterLeaseExpiry(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	checkpointed := make(chan struct{})
	first := NewRunner(s, Config{Owner: "first", Lease: 300 * time.Millisecond, Poll: 10 * time.Millisecond})
	first.Register("resume", func(ctx context.Context, run *Run) error {
		if err := run.Checkpoint(ctx, 5, Progress{Done: 5, Total: 10}); err != nil {
			return err
		}
		close(checkpointed)
		<-ctx.Done() // the process stops here
		return ctx.Err()
	})
	if _, err := s.Create(ctx, "resume", "j", "acct", nil); err != nil {
		t.Fatal(err)
	}
	stopFirst := startRunner(t, first)
	<-checkpointed
	stopFirst()
	if j, _ := s.Get(ctx, "resume", "j"); j.State != Running || j.Owner != "first" {
		t.Fatalf("after the stop: %+v, want RUNNING owned by first", j)
	}
	var from atomic.Value
	second := NewRunner(s, Config{Owner: "second", Lease: 300 * time.Millisecond, Poll: 10 * time.Millisecond})
	second.Register("resume", func(ctx context.Context, run *Run) error {
		from.Store(string(run.Job.Cursor))
		return run.Checkpoint(ctx, 10, Progress{Done: 10, Total: 10})
	})
	startRunner(t, second)
	j := waitState(t, s, "resume", "j", Succeeded)
	if got := from.Load(); got != "5" {
		t.Fatalf("resumed from cursor %v, want 5", got)
	}
	if j.UpdatedAt.Sub(j.CreatedAt) < 300*time.Millisecond {
		t.Fatalf("resumed before the first lease expired")
	}
}

func TestCancel(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	started := make(chan struct{})
	r := NewRunner(s, Config{Poll: 10 * time.Millisecond})
	r.Register("long", func(ctx context.Context, run *Run) error {
		close(started)
		for i := 0; ; i++ {
			if err := run.Checkpoint(ctx, i, Progress{Done: int64(i)}); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	if _, err := s.Create(ctx, "pending", "p", "acct", nil); err != nil {
		t.Fatal(err)
	}
	if j, err := s.Cancel(ctx, "pending", "p"); err != nil || j.State != Cancelled {
		t.Fatalf("cancel of a pending job: %+v, %v", j, err)
	}
	if _, err := s.Create(ctx, "long", "l", "acct", nil); err != nil {
		t.Fatal(err)
	}
	startRunner(t, r)
	<-started
	if _, err := s.Cancel(ctx, "long", "l"); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "long", "l", Cancelled)
	if _, err := s.Cancel(ctx, "long", "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("cancel of a missing job: %v, want ErrNotFound", err)
	}
}

// A process that owns its backend alone (Exclusive) resumes a job its
// crashed predecessor left RUNNING at once, without waiting for the lease.
func TestExclusiveResumesAtOnce(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.Create(ctx, "k", "j", "acct", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Modify(ctx, "k", "j", func(j *Job) error {
		j.State, j.Owner, j.LeaseUntil = Running, "crashed", time.Now().Add(time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	shared := NewRunner(s, Config{Poll: 10 * time.Millisecond})
	shared.Register("k", func(ctx context.Context, run *Run) error { return errors.New("must not run") })
	stopShared := startRunner(t, shared)
	time.Sleep(100 * time.Millisecond)
	stopShared()
	if j, _ := s.Get(ctx, "k", "j"); j.State != Running || j.Owner != "crashed" {
		t.Fatalf("a shared runner took a leased job: %+v", j)
	}
	r := NewRunner(s, Config{Exclusive: true, Poll: 10 * time.Millisecond})
	r.Register("k", func(ctx context.Context, run *Run) error { return nil })
	startRunner(t, r)
	waitState(t, s, "k", "j", Succeeded)
}

// Ended jobs of a kind registered with Expire are deleted once old enough;
// others are kept.
func TestExpireEndedJobs(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	r := NewRunner(s, Config{Poll: 10 * time.Millisecond})
	r.Register("short", func(ctx context.Context, run *Run) error { return nil })
	r.Register("kept", func(ctx context.Context, run *Run) error { return nil })
	r.Expire("short", 50*time.Millisecond)
	for _, kind := range []string{"short", "kept"} {
		if _, err := s.Create(ctx, kind, "j", "acct", nil); err != nil {
			t.Fatal(err)
		}
	}
	startRunner(t, r)
	waitState(t, s, "kept", "j", Succeeded)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := s.Get(ctx, "short", "j")
		if errors.Is(err, ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ended job not expired: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if j, err := s.Get(ctx, "kept", "j"); err != nil || j.State != Succeeded {
		t.Fatalf("kept job: %+v, %v", j, err)
	}
}

// OnProgress receives what each checkpoint added to the job's progress;
// a checkpoint that goes back (a summary smaller than the running count)
// adds nothing.
func TestRunnerReportsProgress(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var units, bytes atomic.Int64
	r := NewRunner(s, Config{Poll: 20 * time.Millisecond, OnProgress: func(kind string, u, b int64) {
		if kind == "copy" {
			units.Add(u)
			bytes.Add(b)
		}
	}})
	r.Register("copy", func(ctx context.Context, run *Run) error {
		for _, p := range []Progress{{Done: 2, Bytes: 100}, {Done: 5, Bytes: 250}, {Done: 5, Bytes: 200}, {Done: 7, Bytes: 300}} {
			if err := run.Checkpoint(ctx, p.Done, p); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := s.Create(ctx, "copy", "one", "acct", nil); err != nil {
		t.Fatal(err)
	}
	startRunner(t, r)
	waitState(t, s, "copy", "one", Succeeded)
	if units.Load() != 7 || bytes.Load() != 350 {
		t.Fatalf("progress reported: %d units, %d bytes; want 7, 350", units.Load(), bytes.Load())
	}
}

// TestKindViews: GetAs and ListAs give a kind its own view of the records
// of one account, with the kind's not-found error for another account's
// job or a missing one; Decode leaves the cursor as it is until the job
// has checkpointed one.
func TestKindViews(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	type params struct{ N int }
	for _, c := range []struct {
		id, account string
		n           int
	}{{"j1", "acct", 1}, {"j2", "other", 2}, {"j3", "acct", 3}} {
		if _, err := s.Create(ctx, "view", c.id, c.account, params{c.n}); err != nil {
			t.Fatal(err)
		}
	}
	notFound := errors.New("view: not found")
	view := func(j *Job) (*params, error) {
		var p params
		cur := params{N: -1}
		if err := j.Decode(&p, &cur); err != nil {
			return nil, err
		}
		if cur.N != -1 {
			t.Errorf("job %s without a cursor: cursor decoded to %+v", j.ID, cur)
		}
		return &p, nil
	}
	if p, err := GetAs(ctx, s, "view", "j3", "acct", view, notFound); err != nil || p.N != 3 {
		t.Fatalf("GetAs j3: %+v, %v", p, err)
	}
	for _, id := range []string{"j2", "missing"} {
		if _, err := GetAs(ctx, s, "view", id, "acct", view, notFound); err != notFound {
			t.Fatalf("GetAs %s of acct: %v, want the kind's not-found error", id, err)
		}
	}
	ps, err := ListAs(ctx, s, "view", "acct", view)
	if err != nil || len(ps) != 2 || ps[0].N != 1 || ps[1].N != 3 {
		t.Fatalf("ListAs acct: %+v, %v", ps, err)
	}
	j := &Job{Params: []byte(`{"N":4}`), Cursor: []byte(`{"N":5}`)}
	var p, cur params
	if err := j.Decode(&p, &cur); err != nil || p.N != 4 || cur.N != 5 {
		t.Fatalf("Decode with a cursor: %+v %+v %v", p, cur, err)
	}
	for _, empty := range [][]byte{{}, []byte("null")} {
		j.Cursor = empty
		if err := j.Decode(&p, &cur); err != nil || cur.N != 5 {
			t.Fatalf("Decode with the cursor %q: %+v %v, want the cursor left as it is", empty, cur, err)
		}
	}
}
