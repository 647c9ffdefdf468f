package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/extenddb/extenddb/internal/storage"
)

// Records of long-running jobs (storage.JobStore).
//
//	jobs(kind, id, version, body)   PRIMARY KEY (kind, id)
//
// An update is one statement fenced on the version it read.

// CreateJob stores a new record (see storage.JobStore).
func (b *Backend) CreateJob(ctx context.Context, r storage.JobRecord) error {
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		tag, err := c.Exec(ctx, "INSERT INTO jobs (kind, id, version, body) VALUES ($1, $2, $3, $4) ON CONFLICT (kind, id) DO NOTHING",
			r.Kind, r.ID, r.Version, r.Body)
		if err == nil && tag.RowsAffected() == 0 {
			err = &fnError{storage.ErrJobExists}
		}
		return err
	})
}

// GetJob returns a record (see storage.JobStore).
func (b *Backend) GetJob(ctx context.Context, kind, id string) (storage.JobRecord, error) {
	r := storage.JobRecord{Kind: kind, ID: id}
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		err := c.QueryRow(ctx, "SELECT version, body FROM jobs WHERE kind = $1 AND id = $2", kind, id).Scan(&r.Version, &r.Body)
		if errors.Is(err, pgx.ErrNoRows) {
			return &fnError{storage.ErrJobNotFound}
		}
		return err
	})
	return r, err
}

// ListJobs returns the records of a kind (see storage.JobStore).
func (b *Backend) ListJobs(ctx context.Context, kind string) ([]storage.JobRecord, error) {
	var out []storage.JobRecord
	err := b.withConn(ctx, func(c *pgxpool.Conn) error {
		out = out[:0]
		rows, err := c.Query(ctx, "SELECT id, version, body FROM jobs WHERE kind = $1 ORDER BY id", kind)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r := storage.JobRecord{Kind: kind}
			if err := rows.Scan(&r.ID, &r.Version, &r.Body); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// UpdateJob replaces a record at version prev (see storage.JobStore).
func (b *Backend) UpdateJob(ctx context.Context, r storage.JobRecord, prev int64) error {
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		var updated, exists bool
		err := c.QueryRow(ctx, `WITH u AS (
	UPDATE jobs SET version = $1, body = $2 WHERE kind = $3 AND id = $4 AND version = $5 RETURNING 1)
SELECT EXISTS (SELECT 1 FROM u), EXISTS (SELECT 1 FROM jobs WHERE kind = $3 AND id = $4)`,
			r.Version, r.Body, r.Kind, r.ID, prev).Scan(&updated, &exists)
		switch {
		case err != nil:
			return err
		case updated:
			return nil
		case !exists:
			return &fnError{storage.ErrJobNotFound}
		}
		return &fnError{storage.ErrJobConflict}
	})
}

// DeleteJob removes a record (see storage.JobStore).
func (b *Backend) DeleteJob(ctx context.Context, kind, id string) error {
	return b.withConn(ctx, func(c *pgxpool.Conn) error {
		_, err := c.Exec(ctx, "DELETE FROM jobs WHERE kind = $1 AND id = $2", kind, id)
		return err
	})
}
