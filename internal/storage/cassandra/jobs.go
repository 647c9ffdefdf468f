package cassandra

import (
	"context"
	"errors"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// Records of long-running jobs (storage.JobStore), in the catalog
// keyspace:
//
//	jobs(kind, id, version, body)   PRIMARY KEY ((kind), id)
//
// Every write is a lightweight transaction (INSERT IF NOT EXISTS, UPDATE
// IF version = ?, DELETE IF EXISTS) and every read is SERIAL, so a record
// changes by compare-and-set only.

// CreateJob stores a new record (see storage.JobStore).
func (b *Backend) CreateJob(ctx context.Context, r storage.JobRecord) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	ok, err := b.cas(ctx, b.s.Query(`INSERT INTO `+b.catalog+`.jobs (kind, id, version, body) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
		r.Kind, r.ID, r.Version, r.Body), b.jobAt(ctx, r.Kind, r.ID, r.Version, r.Body))
	switch {
	case err != nil:
		return fmt.Errorf("cassandra: create job %s/%s: %w", r.Kind, r.ID, err)
	case !ok:
		return storage.ErrJobExists
	}
	return nil
}

// jobAt reports, after an uncertain outcome, whether the record is at
// version with body (the write went through).
func (b *Backend) jobAt(ctx context.Context, kind, id string, version int64, body []byte) func() (bool, error) {
	return func() (bool, error) {
		r, err := b.GetJob(ctx, kind, id)
		if errors.Is(err, storage.ErrJobNotFound) {
			return false, nil
		}
		return err == nil && r.Version == version && string(r.Body) == string(body), err
	}
}

// GetJob returns a record (see storage.JobStore).
func (b *Backend) GetJob(ctx context.Context, kind, id string) (storage.JobRecord, error) {
	if b.closed.Load() {
		return storage.JobRecord{}, storage.ErrClosed
	}
	r := storage.JobRecord{Kind: kind, ID: id}
	err := b.s.Query(`SELECT version, body FROM `+b.catalog+`.jobs WHERE kind = ? AND id = ?`, kind, id).
		WithContext(ctx).Consistency(gocql.Serial).Scan(&r.Version, &r.Body)
	if errors.Is(err, gocql.ErrNotFound) {
		return r, storage.ErrJobNotFound
	}
	if err != nil {
		return r, fmt.Errorf("cassandra: read job %s/%s: %w", kind, id, err)
	}
	return r, nil
}

// ListJobs returns the records of a kind (see storage.JobStore).
func (b *Backend) ListJobs(ctx context.Context, kind string) ([]storage.JobRecord, error) {
	if b.closed.Load() {
		return nil, storage.ErrClosed
	}
	iter := b.s.Query(`SELECT id, version, body FROM `+b.catalog+`.jobs WHERE kind = ?`, kind).
		WithContext(ctx).Consistency(gocql.Serial).Iter()
	var out []storage.JobRecord
	r := storage.JobRecord{Kind: kind}
	for iter.Scan(&r.ID, &r.Version, &r.Body) {
		out = append(out, r)
		r = storage.JobRecord{Kind: kind}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("cassandra: list jobs %s: %w", kind, err)
	}
	return out, nil
}

// UpdateJob replaces a record at version prev (see storage.JobStore).
func (b *Backend) UpdateJob(ctx context.Context, r storage.JobRecord, prev int64) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	ok, err := b.cas(ctx, b.s.Query(`UPDATE `+b.catalog+`.jobs SET version = ?, body = ? WHERE kind = ? AND id = ? IF version = ?`,
		r.Version, r.Body, r.Kind, r.ID, prev), b.jobAt(ctx, r.Kind, r.ID, r.Version, r.Body))
	if err != nil {
		return fmt.Errorf("cassandra: update job %s/%s: %w", r.Kind, r.ID, err)
	}
	if ok {
		return nil
	}
	if _, err := b.GetJob(ctx, r.Kind, r.ID); err != nil {
		return err
	}
	return storage.ErrJobConflict
}

// DeleteJob removes a record (see storage.JobStore).
func (b *Backend) DeleteJob(ctx context.Context, kind, id string) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	_, err := b.cas(ctx, b.s.Query(`DELETE FROM `+b.catalog+`.jobs WHERE kind = ? AND id = ? IF EXISTS`, kind, id),
		func() (bool, error) { return true, nil })
	if err != nil {
		return fmt.Errorf("cassandra: delete job %s/%s: %w", kind, id, err)
	}
	return nil
}
