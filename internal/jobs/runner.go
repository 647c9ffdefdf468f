package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/storage"
)

// Handler runs one job of a kind, from run.Job.Cursor (nil for a fresh
// start) to its end, calling run.Checkpoint as it advances. It returns nil
// when the job succeeded; ErrCancelled or ErrLeaseLost from a checkpoint
// must be returned as they are (wrapped or not). Any other error fails the
// job, unless the run's context ended (the server is stopping) or the
// backend closed: then the job stays RUNNING and resumes, in this process
// or another, once its lease expires. A handler must be idempotent from a
// checkpoint: a resumed run repeats the work done after the last one.
type Handler func(ctx context.Context, run *Run) error

// Config is a Runner's configuration, as values; the zero value works.
type Config struct {
	// Owner names this process in leases; default a random UUID.
	Owner string
	// Lease is how long a claim lasts without renewal; default 15 s. A
	// running job renews it every Lease/3.
	Lease time.Duration
	// Exclusive says that this process is the only one using the backend
	// (one that is not a storage.Leaser, like SQLite's locked data
	// directory): every job not ended is then this process's to run, and a
	// job left RUNNING by a crash resumes at once rather than when its
	// lease expires.
	Exclusive bool
	// Poll is how often the runner looks for jobs to run (besides Kick);
	// default 2 s.
	Poll time.Duration
	// TableGrace is how long after its record a job that fills a new
	// table waits for the request that made it to create the table,
	// before taking the request's process for dead and creating the table
	// itself (Run.FillingTable); default 10 s. Creating it sooner could
	// let the job run, fail and delete its table before a request still
	// alive but slow creates the table again, with no job left to fill it.
	TableGrace time.Duration
	Log        *slog.Logger
	// OnEnd, when set, is called with a job's kind and final state
	// (Succeeded, Failed, Cancelled) once the outcome of a run is recorded.
	OnEnd func(kind, state string)
	// OnProgress, when set, is called after each checkpoint with a job's
	// kind and the units (items) and bytes it processed since the record's
	// previous progress; a progress that goes back counts nothing.
	OnProgress func(kind string, units, bytes int64)
}

// Runner runs the jobs of the kinds registered with it, each in exactly one
// process of those sharing a backend.
type Runner struct {
	store    *Store
	cfg      Config
	handlers map[string]Handler
	expire   map[string]time.Duration // kind: how long ended jobs are kept
	kick     chan struct{}

	mu      sync.Mutex
	running map[string]bool // kind + "/" + id of the jobs this process runs
	wg      sync.WaitGroup
}

// NewRunner returns a Runner over store; Register handlers, then Run.
func NewRunner(store *Store, cfg Config) *Runner {
	if cfg.Owner == "" {
		cfg.Owner = uuid.NewString()
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 15 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
	}
	if cfg.TableGrace <= 0 {
		cfg.TableGrace = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Runner{store: store, cfg: cfg, handlers: map[string]Handler{}, expire: map[string]time.Duration{}, kick: make(chan struct{}, 1), running: map[string]bool{}}
}

// Register sets the handler of a kind. Call it before Run.
func (r *Runner) Register(kind string, h Handler) { r.handlers[kind] = h }

// Expire makes the runner delete the records of jobs of kind that ended
// more than after ago (for kinds whose records are not kept by their
// users, such as restores). Call it before Run.
func (r *Runner) Expire(kind string, after time.Duration) { r.expire[kind] = after }

// Kick makes the runner look for jobs now; it never blocks.
func (r *Runner) Kick() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Run looks for runnable jobs until ctx ends (or the backend is closed),
// then waits for the runs it started to stop.
func (r *Runner) Run(ctx context.Context) {
	defer r.wg.Wait()
	t := time.NewTicker(r.cfg.Poll)
	defer t.Stop()
	for {
		if err := r.pass(ctx); errors.Is(err, storage.ErrClosed) {
			return
		} else if err != nil && ctx.Err() == nil {
			r.cfg.Log.Error("job runner", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-r.kick:
		case <-t.C:
		}
	}
}

// RunOnce claims every runnable job of the registered kinds, runs them,
// and returns once those runs have ended or stopped: for a caller that
// polls for work itself. The error is the first one looking for jobs.
func (r *Runner) RunOnce(ctx context.Context) error {
	err := r.pass(ctx)
	r.wg.Wait()
	return err
}

// pass claims and starts every job that is not ended and whose lease is
// free.
func (r *Runner) pass(ctx context.Context) error {
	for kind, h := range r.handlers {
		list, err := r.store.List(ctx, kind)
		if err != nil {
			return err
		}
		for _, j := range list {
			if after, ok := r.expire[kind]; ok && j.Ended() && r.store.now().Sub(j.EndedAt) > after {
				if err := r.store.Delete(ctx, kind, j.ID); err != nil {
					return err
				}
				continue
			}
			if j.Ended() || r.isRunning(j) || !r.free(j) {
				continue
			}
			claimed, resumed, err := r.claim(ctx, j)
			if errors.Is(err, errNotFree) || errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			r.start(ctx, h, &Run{Job: claimed, r: r, resumed: resumed})
		}
	}
	return nil
}

func (r *Runner) isRunning(j *Job) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[j.Kind+"/"+j.ID]
}

// free reports whether the lease of j may be taken by this process.
func (r *Runner) free(j *Job) bool {
	return r.cfg.Exclusive || j.Owner == "" || j.Owner == r.cfg.Owner || !r.store.now().Before(j.LeaseUntil)
}

var errNotFree = errors.New("jobs: lease held")

// claim takes the lease of j by compare-and-set: of several processes
// claiming at once, exactly one gets it. resumed says that the job was
// RUNNING already: an earlier run started it and stopped unfinished.
func (r *Runner) claim(ctx context.Context, j *Job) (claimed *Job, resumed bool, err error) {
	claimed, err = r.store.Modify(ctx, j.Kind, j.ID, func(cur *Job) error {
		if cur.Ended() || !r.free(cur) {
			return errNotFree
		}
		resumed = cur.State == Running
		if resumed {
			r.cfg.Log.Info("resuming job", "kind", cur.Kind, "id", cur.ID, "previous owner", cur.Owner)
		}
		cur.State, cur.Owner, cur.LeaseUntil = Running, r.cfg.Owner, r.store.now().Add(r.cfg.Lease)
		return nil
	})
	return claimed, resumed, err
}

// start runs the handler of run (a claimed job) in a goroutine, renewing
// its lease meanwhile.
func (r *Runner) start(ctx context.Context, h Handler, run *Run) {
	j := run.Job
	key := j.Kind + "/" + j.ID
	r.mu.Lock()
	r.running[key] = true
	r.mu.Unlock()
	r.wg.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.running, key)
			r.mu.Unlock()
		}()
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go r.heartbeat(rctx, cancel, j)
		r.cfg.Log.Info("job started", "kind", j.Kind, "id", j.ID)
		err := h(rctx, run)
		cancel()
		r.finish(ctx, j, err)
	})
}

// heartbeat renews the lease of j every Lease/3 until ctx ends; when the
// lease is lost it cancels the run.
func (r *Runner) heartbeat(ctx context.Context, cancel context.CancelFunc, j *Job) {
	t := time.NewTicker(r.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		_, err := r.store.Modify(ctx, j.Kind, j.ID, func(cur *Job) error {
			if cur.Owner != r.cfg.Owner || cur.Ended() {
				return ErrLeaseLost
			}
			cur.LeaseUntil = r.store.now().Add(r.cfg.Lease)
			return nil
		})
		if errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrNotFound) {
			cancel()
			return
		}
	}
}

// finish records the outcome of a run.
func (r *Runner) finish(ctx context.Context, j *Job, err error) {
	if Interrupted(ctx, err) || errors.Is(err, errRetryLater) {
		r.cfg.Log.Info("job interrupted", "kind", j.Kind, "id", j.ID, "error", err)
		return // resumed later, here or elsewhere
	}
	state, msg := Succeeded, ""
	switch {
	case errors.Is(err, ErrCancelled):
		state = Cancelled
	case err != nil:
		state, msg = Failed, err.Error()
	}
	final, uerr := r.store.Modify(ctx, j.Kind, j.ID, func(cur *Job) error {
		if cur.Owner != r.cfg.Owner {
			return ErrLeaseLost
		}
		cur.State, cur.Error, cur.Owner, cur.EndedAt = state, msg, "", r.store.now()
		cur.LeaseUntil, cur.CancelRequested = time.Time{}, false
		return nil
	})
	if uerr != nil && !errors.Is(uerr, ErrNotFound) {
		r.cfg.Log.Error("job outcome not recorded", "kind", j.Kind, "id", j.ID, "error", uerr)
		return
	}
	if final != nil {
		j = final
	}
	if r.cfg.OnEnd != nil {
		r.cfg.OnEnd(j.Kind, state)
	}
	r.cfg.Log.Info("job ended", "kind", j.Kind, "id", j.ID, "state", state, "error", msg,
		"done", j.Progress.Done, "total", j.Progress.Total, "bytes", j.Progress.Bytes)
}

// Run is one process's run of a job.
type Run struct {
	// Job is the record as claimed: Params and Cursor tell where to start.
	// Checkpoint keeps its Cursor and Progress current.
	Job *Job
	r   *Runner
	// resumed: the job was RUNNING when this run claimed it.
	resumed bool

	lastLog time.Time
}

// Resumed reports whether an earlier run of the job may have written part
// of its work: the job was RUNNING when this run claimed it (an earlier
// run stopped unfinished, with or without a checkpoint), or it has a
// cursor. False for a job's first run.
func (run *Run) Resumed() bool { return run.resumed || run.Job.Cursor != nil }

// Checkpoint stores cursor (marshalled to JSON) and progress durably and
// renews the lease. Errors: ErrCancelled once cancellation was requested,
// ErrLeaseLost when another process took the job over, ErrNotFound when
// the record was deleted; the handler must stop on any of them.
func (run *Run) Checkpoint(ctx context.Context, cursor any, p Progress) error {
	c, err := json.Marshal(cursor)
	if err != nil {
		return err
	}
	r := run.r
	var prev Progress
	j, err := r.store.Modify(ctx, run.Job.Kind, run.Job.ID, func(cur *Job) error {
		switch {
		case cur.Owner != r.cfg.Owner || cur.Ended():
			return ErrLeaseLost
		case cur.CancelRequested:
			return ErrCancelled
		}
		prev = cur.Progress
		cur.Cursor, cur.Progress, cur.LeaseUntil = c, p, r.store.now().Add(r.cfg.Lease)
		return nil
	})
	if err != nil {
		return err
	}
	run.Job = j
	if r.cfg.OnProgress != nil {
		r.cfg.OnProgress(j.Kind, max(p.Done-prev.Done, 0), max(p.Bytes-prev.Bytes, 0))
	}
	if now := time.Now(); now.Sub(run.lastLog) >= 5*time.Second {
		run.lastLog = now
		r.cfg.Log.Info("job progress", "kind", j.Kind, "id", j.ID, "done", p.Done, "total", p.Total, "bytes", p.Bytes)
	}
	return nil
}
