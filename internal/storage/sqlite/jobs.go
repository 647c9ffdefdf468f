package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/extenddb/extenddb/internal/storage"
)

// Records of long-running jobs (storage.JobStore).
//
//	jobs(kind, id, version, body)   PRIMARY KEY (kind, id)
//
// Every change goes through the single writer; an update is fenced on the
// version it read.

// CreateJob stores a new record (see storage.JobStore).
func (b *Backend) CreateJob(ctx context.Context, r storage.JobRecord) error {
	return b.submit(ctx, false, func(w *writer) error {
		n, err := w.execCount("INSERT INTO jobs (kind, id, version, body) VALUES (?, ?, ?, ?) ON CONFLICT (kind, id) DO NOTHING",
			r.Kind, r.ID, r.Version, r.Body)
		if err == nil && n == 0 {
			err = storage.ErrJobExists
		}
		return err
	})
}

// GetJob returns a record (see storage.JobStore).
func (b *Backend) GetJob(ctx context.Context, kind, id string) (storage.JobRecord, error) {
	if b.isClosed() {
		return storage.JobRecord{}, storage.ErrClosed
	}
	s, err := b.readStmt(ctx, "SELECT version, body FROM jobs WHERE kind = ? AND id = ?")
	if err != nil {
		return storage.JobRecord{}, err
	}
	r := storage.JobRecord{Kind: kind, ID: id}
	err = s.QueryRowContext(ctx, kind, id).Scan(&r.Version, &r.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return r, storage.ErrJobNotFound
	}
	return r, mapErr(err)
}

// ListJobs returns the records of a kind (see storage.JobStore).
func (b *Backend) ListJobs(ctx context.Context, kind string) ([]storage.JobRecord, error) {
	return queryRows(ctx, b, "SELECT id, version, body FROM jobs WHERE kind = ? ORDER BY id", func(rows *sql.Rows) (storage.JobRecord, error) {
		r := storage.JobRecord{Kind: kind}
		err := rows.Scan(&r.ID, &r.Version, &r.Body)
		return r, err
	}, kind)
}

// UpdateJob replaces a record at version prev (see storage.JobStore).
func (b *Backend) UpdateJob(ctx context.Context, r storage.JobRecord, prev int64) error {
	return b.submit(ctx, false, func(w *writer) error {
		if n, err := w.execCount("UPDATE jobs SET version = ?, body = ? WHERE kind = ? AND id = ? AND version = ?",
			r.Version, r.Body, r.Kind, r.ID, prev); err != nil || n == 1 {
			return err
		}
		s, err := w.stmt("SELECT count(*) FROM jobs WHERE kind = ? AND id = ?")
		if err != nil {
			return err
		}
		var n int
		if err := s.QueryRow(r.Kind, r.ID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return storage.ErrJobNotFound
		}
		return storage.ErrJobConflict
	})
}

// DeleteJob removes a record (see storage.JobStore).
func (b *Backend) DeleteJob(ctx context.Context, kind, id string) error {
	return b.submit(ctx, false, func(w *writer) error {
		_, err := w.exec("DELETE FROM jobs WHERE kind = ? AND id = ?", kind, id)
		return err
	})
}
