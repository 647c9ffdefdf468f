// Package jobs is the one mechanism of extenddb's long-running work
// (backups and restores, online index builds, Time to Live backfills and
// drains): a durable job record with parameters, state,
// cursor and progress, stored by every backend through storage.JobStore;
// a lease, so that exactly one process runs a job when several share a
// backend; resumption after a crash from the last checkpoint; and
// cancellation. See docs/adr/0013-backups-and-jobs.md.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// States of a job. A job is created PENDING, RUNNING while a process
// holds its lease, and ends SUCCEEDED, FAILED or CANCELLED.
const (
	Pending   = "PENDING"
	Running   = "RUNNING"
	Succeeded = "SUCCEEDED"
	Failed    = "FAILED"
	Cancelled = "CANCELLED"
)

// Errors of the job store and of a run's checkpoints.
var (
	ErrNotFound = errors.New("jobs: job not found")
	ErrExists   = errors.New("jobs: job already exists")
	// ErrLeaseLost is a checkpoint's error when another process took the
	// job over (this one stalled past its lease): the run must stop.
	ErrLeaseLost = errors.New("jobs: lease lost")
	// ErrCancelled is a checkpoint's error once cancellation was
	// requested: the run stops and the job ends CANCELLED.
	ErrCancelled = errors.New("jobs: cancelled")
)

// Progress is the one progress model of every job: units done out of a
// total (items, for backups and restores; Total is 0 while unknown) and
// the bytes processed.
type Progress struct {
	Done  int64 `json:",omitempty"`
	Total int64 `json:",omitempty"`
	Bytes int64 `json:",omitempty"`
}

// Job is one durable job record.
type Job struct {
	Kind    string
	ID      string
	Account string
	State   string
	// Params are the job's parameters, owned by the kind's handler.
	Params json.RawMessage `json:",omitempty"`
	// Cursor is the handler's durable position: where a resumed run
	// starts. Nil before the first checkpoint.
	Cursor   json.RawMessage `json:",omitempty"`
	Progress Progress
	// Error says why a FAILED job failed.
	Error string `json:",omitempty"`
	// Owner holds the lease until LeaseUntil; an expired lease is free.
	Owner      string    `json:",omitempty"`
	LeaseUntil time.Time `json:",omitempty"`
	// CancelRequested asks the running process to stop at its next
	// checkpoint.
	CancelRequested bool `json:",omitempty"`
	CreatedAt       time.Time
	UpdatedAt       time.Time
	EndedAt         time.Time `json:",omitempty"`

	version int64
}

// Ended reports whether the job is in a final state.
func (j *Job) Ended() bool {
	return j.State == Succeeded || j.State == Failed || j.State == Cancelled
}

// ClientTokenLifetime is how long a ClientToken makes a request that
// starts a job idempotent (ExportTableToPointInTime, ImportTable): eight
// hours, after which DynamoDB treats the token's next request as a new one.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html#DDB-ExportTableToPointInTime-request-ClientToken
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html#DDB-ImportTable-request-ClientToken
const ClientTokenLifetime = 8 * time.Hour

// DecodeParams unmarshals the job's parameters into v.
func (j *Job) DecodeParams(v any) error { return json.Unmarshal(j.Params, v) }

// Decode unmarshals the job's parameters into params and its cursor into
// cursor, which it leaves as it is when the job has not checkpointed one
// (no cursor, an empty one or JSON null).
func (j *Job) Decode(params, cursor any) error {
	if err := j.DecodeParams(params); err != nil {
		return err
	}
	if len(j.Cursor) == 0 {
		return nil
	}
	return json.Unmarshal(j.Cursor, cursor)
}

// Store reads and changes job records over a storage.JobStore.
type Store struct {
	s   storage.JobStore
	now func() time.Time
}

// NewStore returns a Store over s.
func NewStore(s storage.JobStore) *Store { return &Store{s: s, now: time.Now} }

// Create stores a new PENDING job with params (marshalled to JSON).
// Errors: ErrExists, backend errors.
func (s *Store) Create(ctx context.Context, kind, id, account string, params any) (*Job, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	now := s.now()
	j := &Job{Kind: kind, ID: id, Account: account, State: Pending, Params: p, CreatedAt: now, UpdatedAt: now, version: 1}
	return s.insert(ctx, j)
}

// insert stores new job j (version 1). Errors: ErrExists, backend errors.
func (s *Store) insert(ctx context.Context, j *Job) (*Job, error) {
	body, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	err = s.s.CreateJob(ctx, storage.JobRecord{Kind: j.Kind, ID: j.ID, Version: 1, Body: body})
	if errors.Is(err, storage.ErrJobExists) {
		return nil, ErrExists
	}
	return j, err
}

// CreateSucceeded stores a job that is already done: the record of work
// found finished elsewhere (a backup copied in from another deployment).
// Errors: ErrExists, backend errors.
func (s *Store) CreateSucceeded(ctx context.Context, kind, id, account string, params any, p Progress) (*Job, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	now := s.now()
	j := &Job{Kind: kind, ID: id, Account: account, State: Succeeded, Params: raw, Progress: p,
		CreatedAt: now, UpdatedAt: now, EndedAt: now, version: 1}
	return s.insert(ctx, j)
}

// Get returns a job; ErrNotFound if there is none.
func (s *Store) Get(ctx context.Context, kind, id string) (*Job, error) {
	r, err := s.s.GetJob(ctx, kind, id)
	if errors.Is(err, storage.ErrJobNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return decodeJob(r)
}

// List returns the jobs of a kind in ID order.
func (s *Store) List(ctx context.Context, kind string) ([]*Job, error) {
	rs, err := s.s.ListJobs(ctx, kind)
	if err != nil {
		return nil, err
	}
	out := make([]*Job, 0, len(rs))
	for _, r := range rs {
		j, err := decodeJob(r)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

func decodeJob(r storage.JobRecord) (*Job, error) {
	var j Job
	if err := json.Unmarshal(r.Body, &j); err != nil {
		return nil, fmt.Errorf("jobs: record %s/%s: %w", r.Kind, r.ID, err)
	}
	j.version = r.Version
	return &j, nil
}

// put stores j over the version it was read at; on success j carries the
// new version. Errors: storage.ErrJobConflict, ErrNotFound.
func (s *Store) put(ctx context.Context, j *Job) error {
	j.UpdatedAt = s.now()
	body, err := json.Marshal(j)
	if err != nil {
		return err
	}
	err = s.s.UpdateJob(ctx, storage.JobRecord{Kind: j.Kind, ID: j.ID, Version: j.version + 1, Body: body}, j.version)
	if errors.Is(err, storage.ErrJobNotFound) {
		return ErrNotFound
	}
	if err == nil {
		j.version++
	}
	return err
}

// Modify applies fn to the current record and stores it, reading again
// and retrying when another process changed the record meanwhile. An
// error from fn aborts and is returned unchanged.
func (s *Store) Modify(ctx context.Context, kind, id string, fn func(j *Job) error) (*Job, error) {
	for {
		j, err := s.Get(ctx, kind, id)
		if err != nil {
			return nil, err
		}
		if err := fn(j); err != nil {
			return nil, err
		}
		err = s.put(ctx, j)
		if !errors.Is(err, storage.ErrJobConflict) {
			return j, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// Cancel asks a job to stop: a PENDING job ends CANCELLED at once, a
// RUNNING one at its next checkpoint. An ended job is left as it is.
func (s *Store) Cancel(ctx context.Context, kind, id string) (*Job, error) {
	return s.Modify(ctx, kind, id, func(j *Job) error {
		switch j.State {
		case Pending:
			j.State, j.EndedAt = Cancelled, s.now()
		case Running:
			j.CancelRequested = true
		}
		return nil
	})
}

// Delete removes a job record; a missing one is not an error.
func (s *Store) Delete(ctx context.Context, kind, id string) error {
	return s.s.DeleteJob(ctx, kind, id)
}

// GetOf returns job (kind, id) of account; ErrNotFound when there is none
// or it is another account's.
func (s *Store) GetOf(ctx context.Context, kind, id, account string) (*Job, error) {
	j, err := s.Get(ctx, kind, id)
	if err == nil && j.Account != account {
		return nil, ErrNotFound
	}
	return j, err
}

// GetAs returns the job of kind and id of account as decode makes it (a
// kind's view of its records); notFound is the answer when there is none
// (the kind's own ErrNotFound).
func GetAs[T any](ctx context.Context, s *Store, kind, id, account string, decode func(*Job) (T, error), notFound error) (T, error) {
	j, err := s.GetOf(ctx, kind, id, account)
	if errors.Is(err, ErrNotFound) {
		err = notFound
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(j)
}

// ListAs returns the jobs of kind of account in ID order, each as decode
// makes it.
func ListAs[T any](ctx context.Context, s *Store, kind, account string, decode func(*Job) (T, error)) ([]T, error) {
	js, err := s.List(ctx, kind)
	if err != nil {
		return nil, err
	}
	return OfAccount(js, account, decode)
}

// OfAccount returns the jobs of account among js, in their order, each as
// decode makes it (a kind's view of its records).
func OfAccount[T any](js []*Job, account string, decode func(*Job) (T, error)) ([]T, error) {
	var out []T
	for _, j := range js {
		if j.Account != account {
			continue
		}
		v, err := decode(j)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
