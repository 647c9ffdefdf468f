package export

import (
	"context"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// An incremental export writes one record per item changed in the export
// period [ExportFromTime, ExportToTime), in whole seconds: its keys, the
// time of its last write in the period, its image after that write
// (NewImage, absent when it was deleted) and, with NEW_AND_OLD_IMAGES, its
// image before its first write in the period (OldImage, absent when it was
// created). The history keeps each write's image before; the image after
// the period is the image before the key's first write after the period,
// or, when there is none, the current item, read after a first pass over
// the history and checked against a second pass over what was written
// meanwhile. An item created and deleted within the period has no record.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_IncrementalExportSpecification.html

// change is what the export knows of one key changed in the period.
type change struct {
	keys     item.Item
	old      item.Item
	new      item.Item
	lastUsec int64
	// newKnown: new is the image before a write after the period;
	// fromCurrent: new was read from the table and may be overtaken by a
	// write after the first pass.
	newKnown, fromCurrent bool
}

func (s *Service) writeIncremental(ctx context.Context, w *filesWriter, t *storage.Table, p *Params) error {
	hash, rng := storage.KeyNames(t.KeySchema)
	from, to := secondOf(p.From), secondOf(p.To)
	changes := map[string]*change{}
	var order []string
	visit := func(r *storage.StreamRecord) error {
		sec := secondOf(r.CreatedAt)
		if sec < from {
			return nil
		}
		_, k, err := keyOf(r.Keys, hash, rng)
		if err != nil {
			return failf("UNKNOWN", "history record %d: %v", r.Seq, err)
		}
		c := changes[k]
		switch {
		case sec < to && c == nil:
			c = &change{keys: r.Keys, old: r.OldImage}
			changes[k] = c
			order = append(order, k)
			fallthrough
		case sec < to:
			c.lastUsec = r.CreatedAt.UnixMicro()
		case c != nil && (!c.newKnown || c.fromCurrent):
			c.new, c.newKnown, c.fromCurrent = r.OldImage, true, false
		}
		return nil
	}
	last, err := s.readHistory(ctx, t.ID, 0, visit)
	if err != nil {
		return err
	}
	for _, k := range order {
		c := changes[k]
		if c.newKnown {
			continue
		}
		key, _, err := keyOf(c.keys, hash, rng)
		if err != nil {
			return err
		}
		if c.new, err = s.store.GetItem(ctx, t, key, true); err != nil {
			return err
		}
		c.newKnown, c.fromCurrent = true, true
	}
	if _, err := s.readHistory(ctx, t.ID, last, visit); err != nil {
		return err
	}
	if err := s.checkRead(ctx, t); err != nil {
		return err
	}
	return writeChanges(ctx, w, changes, order, p.ViewType)
}

func writeChanges(ctx context.Context, w *filesWriter, changes map[string]*change, order []string, view string) error {
	for _, k := range order {
		c := changes[k]
		if c.old == nil && c.new == nil {
			continue
		}
		r := &dataformat.Record{Keys: c.keys, NewImage: c.new, WriteTimestampMicros: c.lastUsec}
		size := item.Size(c.keys)
		if c.new != nil {
			size = item.Size(c.new)
		}
		if view == dataformat.NewAndOldImages {
			r.OldImage = c.old
		}
		if err := w.add(ctx, r, size); err != nil {
			return err
		}
	}
	return nil
}
