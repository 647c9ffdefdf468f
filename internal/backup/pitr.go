package backup

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// Point in time restores (RestoreTableToPointInTime). The table as it was
// at time T is its current items with every change made after T undone:
// for each key changed after T, the old image of its first change after T
// (none: the item did not exist at T). The changes come from the table's
// change history (storage.HistoryLabel), read after the current items so
// that every change the read of the items saw is in it.

// KindPointInTimeRestore is the job kind of point in time restores.
const KindPointInTimeRestore = "pitr-restore"

type pitrParams struct {
	SourceName  string
	SourceID    string
	RestoreTime time.Time
	TableName   string
	TableID     string
	// Table is the restored table's definition (see restoreParams.Table).
	Table *storage.Table `json:",omitempty"`
}

// RestoreToTime creates target, CREATING with target.Restore in progress,
// and starts rebuilding src as it was at at into it. The job's record is
// made before the table (jobs.CreateFilling). Errors:
// storage.ErrTableExists, backend errors.
func (s *Service) RestoreToTime(ctx context.Context, account string, src *storage.Table, at time.Time, target *storage.Table) error {
	target.Account = account
	p := pitrParams{SourceName: src.Name, SourceID: src.ID, RestoreTime: at, TableName: target.Name, TableID: target.ID, Table: target}
	return s.startFilling(ctx, KindPointInTimeRestore, p, target)
}

// runPointInTimeRestore rebuilds the source table as of the restore time
// into the target, from scratch on every run (it is idempotent), then sets
// the target ACTIVE; a failure deletes the target.
func (s *Service) runPointInTimeRestore(ctx context.Context, run *jobs.Run) error {
	var p pitrParams
	if err := run.Job.DecodeParams(&p); err != nil {
		return err
	}
	account := run.Job.Account
	t, err := run.FillingTable(ctx, s.store, restoredTable(account, p.Table, p.TableName, p.TableID), "restore")
	if err != nil {
		return err
	}
	var n int64
	if err := run.Fill(ctx, s.store, t, func() error { return s.rebuild(ctx, run, account, &p, t, &n) }); err != nil {
		return err
	}
	return run.Checkpoint(ctx, nil, jobs.Progress{Done: n, Total: n})
}

// rebuild copies the source's current items into t, then undoes the
// source's changes after p.RestoreTime.
func (s *Service) rebuild(ctx context.Context, run *jobs.Run, account string, p *pitrParams, t *storage.Table, n *int64) error {
	src, err := s.store.GetTable(ctx, account, p.SourceName)
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && src.ID != p.SourceID) {
		return fmt.Errorf("source table %s was deleted before its restore", p.SourceName)
	}
	if err != nil {
		return err
	}
	hash, rng := storage.KeyNames(t.KeySchema)
	var chunk []item.Item
	var werr error
	err = s.store.Scan(ctx, src, &storage.ScanRequest{Consistent: true}, func(row storage.Row) bool {
		chunk = append(chunk, row.Item)
		if len(chunk) < loadChunk {
			return true
		}
		if werr = s.putAll(ctx, t, chunk, hash, rng); werr == nil {
			*n += int64(len(chunk))
			chunk = chunk[:0]
			werr = run.Checkpoint(ctx, nil, jobs.Progress{Done: *n})
		}
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = s.putAll(ctx, t, chunk, hash, rng)
	}
	if err != nil {
		return err
	}
	*n += int64(len(chunk))
	return s.undoAfter(ctx, src, t, p.RestoreTime, hash, rng)
}

// afterSourceRead runs when a point in time restore has read its source's
// items and history, before it checks that the source is still there (a
// test deletes the source there).
var afterSourceRead = func() {}

// checkSourceRead fails the restore if its source was deleted (or
// replaced) while its items and change history were read: the history
// goes with the table, so the changes to undo may be missing and the
// restored table would not be the source as it was at the restore time.
func (s *Service) checkSourceRead(ctx context.Context, src *storage.Table) error {
	afterSourceRead()
	cur, err := s.store.GetTable(ctx, src.Account, src.Name)
	if errors.Is(err, storage.ErrTableNotFound) || (err == nil && cur.ID != src.ID) {
		return fmt.Errorf("source table %s was deleted during its restore", src.Name)
	}
	return err
}

// putAll writes items into t, loadWriters at a time.
func (s *Service) putAll(ctx context.Context, t *storage.Table, items []item.Item, hash, rng string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(loadWriters)
	for _, it := range items {
		g.Go(func() error {
			key, err := keyOf(it, hash, rng)
			if err != nil {
				return err
			}
			return s.store.Mutate(gctx, t, key, func(item.Item) (item.Item, error) { return it, nil })
		})
	}
	return g.Wait()
}

// undoAfter sets each item of t that src changed after at back to its
// image at at.
func (s *Service) undoAfter(ctx context.Context, src, t *storage.Table, at time.Time, hash, rng string) error {
	type undo struct {
		key storage.Key
		old item.Item
	}
	first := map[string]undo{}
	var after uint64
	for {
		recs, err := s.store.ReadStream(ctx, src.ID, storage.HistoryLabel, after, 1000)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			break
		}
		for _, r := range recs {
			after = r.Seq
			if r.CreatedAt.Unix() <= at.Unix() {
				continue
			}
			key, err := keyOf(r.Keys, hash, rng)
			if err != nil {
				return fmt.Errorf("history record %d: %w", r.Seq, err)
			}
			k := string(key.PK) + "\x00" + string(key.SK)
			if _, seen := first[k]; !seen {
				first[k] = undo{key, r.OldImage}
			}
		}
	}
	if err := s.checkSourceRead(ctx, src); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(loadWriters)
	for _, u := range first {
		g.Go(func() error {
			return s.store.Mutate(gctx, t, u.key, func(item.Item) (item.Item, error) { return u.old, nil })
		})
	}
	return g.Wait()
}
