package export

import (
	"bufio"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// A full export writes the table as it was at ExportTime T: its current
// items with every change made after T undone, that is, for each key
// changed after T, the image before the first such change (none: the item
// did not exist at T). The current items are read first, into a spill
// file, and the history after them, so that every change the read of the
// items saw is in the history read; then the spilled items are written
// unless a change after T replaces them, and the images at T of the
// changed keys after them.

// spillFile is the name, in the export folder, of the items read before
// the history is; it is removed once the data files are written.
const spillFile = "_spill.json.gz"

func (s *Service) writeFull(ctx context.Context, w *filesWriter, t *storage.Table, p *Params) error {
	spill := filepath.Join(w.dir, spillFile)
	defer os.Remove(spill)
	if err := s.spillItems(ctx, t, spill); err != nil {
		return err
	}
	hash, rng := storage.KeyNames(t.KeySchema)
	at := secondOf(p.ExportTime)
	type undo struct{ old item.Item }
	first := map[string]undo{}
	var order []string
	_, err := s.readHistory(ctx, t.ID, 0, func(r *storage.StreamRecord) error {
		if secondOf(r.CreatedAt) <= at {
			return nil
		}
		_, k, err := keyOf(r.Keys, hash, rng)
		if err != nil {
			return failf("UNKNOWN", "history record %d: %v", r.Seq, err)
		}
		if _, seen := first[k]; !seen {
			first[k] = undo{r.OldImage}
			order = append(order, k)
		}
		return nil
	})
	if err == nil {
		err = s.checkRead(ctx, t)
	}
	if err != nil {
		return err
	}
	err = readSpill(spill, func(it item.Item) error {
		_, k, err := keyOf(it, hash, rng)
		if err != nil {
			return err
		}
		if _, changed := first[k]; changed {
			return nil
		}
		return w.add(ctx, &dataformat.Record{Item: it}, item.Size(it))
	})
	if err != nil {
		return err
	}
	for _, k := range order {
		if old := first[k].old; old != nil {
			if err := w.add(ctx, &dataformat.Record{Item: old}, item.Size(old)); err != nil {
				return err
			}
		}
	}
	return nil
}

// spillItems writes the current items of t to path, one DynamoDB JSON
// item per line, gzipped.
func (s *Service) spillItems(ctx context.Context, t *storage.Table, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return failf("S3AccessDenied", "the export folder could not be written: %v", err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 64<<10)
	gz := gzip.NewWriter(bw)
	var buf []byte
	var werr error
	err = s.store.Scan(ctx, t, &storage.ScanRequest{Consistent: true}, func(row storage.Row) bool {
		buf = item.AppendItemJSON(buf[:0], row.Item)
		buf = append(buf, '\n')
		_, werr = gz.Write(buf)
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		err = gz.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	return err
}

// readSpill calls visit with each item of a spill file.
func readSpill(path string, visit func(it item.Item) error) error {
	return dataformat.ReadGzipLines(path, func(line []byte) error {
		var it item.Item
		if err := it.UnmarshalJSON(line); err != nil {
			return err
		}
		return visit(it)
	})
}
