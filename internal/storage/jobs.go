package storage

import (
	"context"
	"errors"
)

// Errors of a JobStore.
var (
	ErrJobExists   = errors.New("storage: job already exists")
	ErrJobNotFound = errors.New("storage: job not found")
	// ErrJobConflict is UpdateJob's error when the stored record is not
	// at the version the caller read: another process changed it first.
	ErrJobConflict = errors.New("storage: job changed concurrently")
)

// JobRecord is one durable record of a long-running job (a backup, a
// restore): internal/jobs owns its Body, which the backend stores as
// opaque bytes. Kind and ID name it; Version orders its changes.
type JobRecord struct {
	Kind    string
	ID      string
	Version int64
	Body    []byte
}

// JobStore keeps the records of long-running jobs, shared by every process
// using the same data. Every change of a record is a compare-and-set on its
// Version, so of several processes changing one record at once exactly one
// succeeds: internal/jobs builds its lease (one runner per job) on it.
type JobStore interface {
	// CreateJob stores a new record; ErrJobExists if (Kind, ID) is taken.
	CreateJob(ctx context.Context, r JobRecord) error
	// GetJob returns a record, or ErrJobNotFound.
	GetJob(ctx context.Context, kind, id string) (JobRecord, error)
	// ListJobs returns every record of a kind, in ascending ID order.
	ListJobs(ctx context.Context, kind string) ([]JobRecord, error)
	// UpdateJob replaces the record (r.Kind, r.ID) with r when its stored
	// Version is prev (r.Version is greater than prev). Errors:
	// ErrJobConflict when the stored version is another, ErrJobNotFound
	// when there is no record.
	UpdateJob(ctx context.Context, r JobRecord, prev int64) error
	// DeleteJob removes a record; a missing one is not an error.
	DeleteJob(ctx context.Context, kind, id string) error
}
