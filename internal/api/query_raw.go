package api

import (
	"context"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Query and Scan without decoding: the rows come from storage in their
// stored encoding (storage.Row.Raw). An item returned whole is transcoded
// straight into the response's JSON (item.AppendStoredJSON); a filter or a
// projection gets only the top-level attributes it names decoded
// (item.UnmarshalAttributes), and LastEvaluatedKey only the key. The
// response is the same, byte for byte, as decoding every item would give
// (ADR 0018d).

// readsRaw reports whether a read of plan p can take its rows undecoded:
// not when each index row fetches its table image, nor with the realism
// effects, which rework a page's items after the read.
func (e *Engine) readsRaw(p *readPlan) bool {
	return !p.fetchTable && e.realism == nil && !e.decodeReads
}

// rawPage builds the page of a raw read row by row.
type rawPage struct {
	p   *readPlan
	res *readOutput
	// decode are the attributes decoded for the filter and, unless the
	// projection is of top-level names only (top), for the projection.
	decode  []string
	top     []string
	lastRaw []byte // a copy of the last row taken, for LastEvaluatedKey
}

// newRawPage starts the page of plan p.
func newRawPage(p *readPlan) rawPage {
	w := rawPage{p: p, res: &readOutput{count: p.count}}
	w.decode = conditionNames(p.filter)
	if p.proj != nil && topLevelOnly(p.proj.Paths()) {
		w.top = p.proj.TopLevelNames()
	} else if p.proj != nil {
		w.decode = append(w.decode, p.proj.TopLevelNames()...)
	}
	return w
}

// topLevelOnly reports whether every path is a top-level attribute name.
func topLevelOnly(paths []expr.Path) bool {
	for _, path := range paths {
		if len(path) != 1 || path[0].IsIndex {
			return false
		}
	}
	return true
}

// add filters, projects and encodes one stored item into the page.
func (w *rawPage) add(raw []byte) error {
	p, res := w.p, w.res
	var it item.Item
	if p.filter != nil || (p.proj != nil && w.top == nil) {
		var err error
		if it, err = item.UnmarshalAttributes(raw, w.decode); err != nil {
			return err
		}
	}
	if p.filter != nil {
		ok, err := p.filter.Eval(it)
		if err != nil || !ok {
			return err
		}
	}
	res.n++
	if p.count {
		return nil
	}
	if res.itemsJSON == nil {
		res.itemsJSON = make([]byte, 0, max(1024, 2*len(raw)))
	} else {
		res.itemsJSON = append(res.itemsJSON, ',')
	}
	var err error
	switch {
	case w.top != nil:
		res.itemsJSON, err = item.AppendStoredJSONAttributes(res.itemsJSON, raw, w.top)
	case p.proj != nil:
		res.itemsJSON = item.AppendItemJSON(res.itemsJSON, projectItem(p.proj, it))
	default:
		res.itemsJSON, err = item.AppendStoredJSON(res.itemsJSON, raw)
	}
	return err
}

// runRaw is run for a plan whose rows come undecoded: it pages through
// them under Limit, the page size and the memory budget exactly as page
// does, building the response as it goes.
func (e *Engine) runRaw(ctx context.Context, p *readPlan, read func(raw bool, visit storage.VisitFunc) error) (*readOutput, error) {
	w := newRawPage(p)
	res := w.res
	bytes, ended := 0, false
	var failed error
	err := read(true, func(row storage.Row) bool {
		size := row.Size
		if size <= 0 {
			it, err := item.UnmarshalItem(row.Raw)
			if failed = err; err != nil {
				return false
			}
			size = item.Size(it)
		}
		ok, err := admitItems(ctx, size, res.scanned == 0)
		if failed = err; err != nil {
			return false
		}
		if !ok {
			ended = true // at the row before
			return false
		}
		bytes += size
		res.scanned++
		w.lastRaw = append(w.lastRaw[:0], row.Raw...)
		if failed = w.add(row.Raw); failed != nil {
			return false
		}
		ended = (p.limit > 0 && res.scanned >= p.limit) || bytes >= maxPageBytes
		return !ended
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, err
	}
	res.capacity = p.consumed(bytes)
	if e.cfg.OnTableUse != nil {
		e.meterRead(p.t, res.scanned, bytes, readUnits(bytes, p.consistent))
	}
	if !p.count && res.itemsJSON == nil {
		res.itemsJSON = []byte{}
	}
	if ended {
		keys := append(p.tks.names(), p.iks.names()...)
		if res.lastKey, err = item.UnmarshalAttributes(w.lastRaw, keys); err != nil {
			return nil, err
		}
	}
	return res, nil
}
