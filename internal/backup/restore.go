package backup

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// restoreParams are the parameters of a restore job.
type restoreParams struct {
	BackupAccount string
	BackupID      string
	TableName     string
	TableID       string // the restored table's: a table of that name with another ID is not ours
	// Table is the restored table's definition, created by the job when
	// its process stopped before creating it (nil in records of versions
	// that created the table first).
	Table *storage.Table `json:",omitempty"`
}

// restoreCursor is a restore's durable position: the next line to load.
type restoreCursor struct {
	File  int
	Line  int64
	Items int64
	Bytes int64
}

// Restore creates target, CREATING with target.Restore in progress, and
// starts loading backup b into it; the table becomes ACTIVE when every item
// is in. target is a complete new table (new IDs) whose definition derives
// from b's. The job's record is made before the table (jobs.CreateFilling).
// Errors: storage.ErrTableExists, backend errors.
func (s *Service) Restore(ctx context.Context, account string, b *Backup, target *storage.Table) error {
	if _, err := ReadManifest(s.dir(account, b.ID)); err != nil {
		return fmt.Errorf("backup %s cannot be read: %w", b.ID, err)
	}
	target.Account = account
	p := restoreParams{BackupAccount: account, BackupID: b.ID, TableName: target.Name, TableID: target.ID, Table: target}
	return s.startFilling(ctx, KindRestore, p, target)
}

// startFilling creates the job of kind that fills target, then target,
// and wakes the runner.
func (s *Service) startFilling(ctx context.Context, kind string, params any, target *storage.Table) error {
	if _, err := s.jobs.CreateFilling(ctx, s.store, kind, target.ID, params, target); err != nil {
		return err
	}
	s.kick()
	return nil
}

// restoredTable is the table a restore job fills: the definition in its
// parameters, or a stub naming the table of a record without one.
func restoredTable(account string, def *storage.Table, name, id string) *storage.Table {
	if def != nil {
		return def
	}
	return &storage.Table{Account: account, Name: name, ID: id}
}

// runRestore loads a backup's items into the restored table from the
// cursor on, then sets the table ACTIVE. A failed or cancelled restore
// deletes the table, so a half-restored table is never ACTIVE.
func (s *Service) runRestore(ctx context.Context, run *jobs.Run) error {
	var p restoreParams
	var c restoreCursor
	if err := run.Job.Decode(&p, &c); err != nil {
		return err
	}
	t, err := run.FillingTable(ctx, s.store, restoredTable(run.Job.Account, p.Table, p.TableName, p.TableID), "restore")
	if err != nil {
		return err
	}
	if err := run.Fill(ctx, s.store, t, func() error { return s.load(ctx, run, t, &p, &c) }); err != nil {
		return err
	}
	return run.Checkpoint(ctx, c, jobs.Progress{Done: c.Items, Total: c.Items, Bytes: c.Bytes})
}

// loadChunk is how many items a restore writes concurrently before it
// advances its cursor.
const loadChunk = 250

// loadWriters is how many writes of a restore are in flight (a variable
// for the benchmark's baseline of one).
var loadWriters = 16

// load writes every item of the backup from cursor c on into t,
// checkpointing c as it goes. The items of a chunk are written
// concurrently (the backends commit concurrent writes together); the
// cursor only moves past a chunk once all its items are in.
func (s *Service) load(ctx context.Context, run *jobs.Run, t *storage.Table, p *restoreParams, c *restoreCursor) error {
	dir := s.dir(p.BackupAccount, p.BackupID)
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	hash, rng := storage.KeyNames(t.KeySchema)
	var chunk []item.Item
	lastCheckpoint := c.Items
	flush := func(fi int, next int64) error {
		if err := s.putAll(ctx, t, chunk, hash, rng); err != nil {
			return fmt.Errorf("%s: %w", m.Files[fi].Path, err)
		}
		for _, it := range chunk {
			c.Items, c.Bytes = c.Items+1, c.Bytes+int64(item.Size(it))
		}
		chunk = chunk[:0]
		c.File, c.Line = fi, next
		if c.Items-lastCheckpoint < checkpointEvery {
			return nil
		}
		lastCheckpoint = c.Items
		return run.Checkpoint(ctx, c, jobs.Progress{Done: c.Items, Total: m.ItemCount, Bytes: c.Bytes})
	}
	for fi := c.File; fi < len(m.Files); fi++ {
		skip := int64(0)
		if fi == c.File {
			skip = c.Line
		}
		err := readFile(dir, m.Files[fi], skip, func(line int64, it item.Item) error {
			chunk = append(chunk, it)
			if len(chunk) < loadChunk {
				return nil
			}
			return flush(fi, line+1)
		})
		if err == nil && len(chunk) > 0 {
			err = flush(fi, m.Files[fi].ItemCount)
		}
		if err != nil {
			return err
		}
		c.File, c.Line = fi+1, 0
	}
	return nil
}

// keyOf returns the encoded primary key of an item of a table whose key
// attributes are hash and rng ("" for none).
func keyOf(it item.Item, hash, rng string) (storage.Key, error) {
	h, ok := it[hash]
	if !ok {
		return storage.Key{}, fmt.Errorf("item without its partition key %s", hash)
	}
	k := storage.Key{PK: item.EncodeKey(h)}
	if rng != "" {
		r, ok := it[rng]
		if !ok {
			return storage.Key{}, fmt.Errorf("item without its sort key %s", rng)
		}
		k.SK = item.EncodeKey(r)
	}
	return k, nil
}
