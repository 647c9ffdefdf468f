package api

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// The read pipeline Query and Scan share: page through storage rows under
// Limit and the 1 MB page size, fetch base-table images for local
// secondary index reads that need them, filter, project and account.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html#Scan.Limit

// maxPageBytes is the 1 MB of item data one Query or Scan page reads at most.
const maxPageBytes = 1 << 20

// readPlan is a validated Query or Scan.
type readPlan struct {
	t          *storage.Table
	ix         *storage.Index // nil for the table itself
	tks, iks   keySchema      // table key; index key (the table key without an index)
	filter     *expr.Condition
	proj       *expr.Projection
	count      bool // Select COUNT
	fetchTable bool // read the table image of each index row
	indexImage bool // return the index row, not the fetched table image
	limit      int  // 0: none
	consistent bool
	capMode    int
}

// readSelect carries the Select-related members of Query and Scan.
type readSelect struct {
	sel       *string
	atg       []string
	pe        *string
	indexName *string
	errPrefix string // Query words these errors as member constraints
}

// check applies DynamoDB's Select rules that need no table.
// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_select.py (verified against DynamoDB)
func (s readSelect) check() error {
	if s.sel == nil {
		return nil
	}
	what := *s.sel
	if what == "COUNT" {
		what = "only the Count"
	}
	switch *s.sel {
	case "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT":
		if s.atg != nil {
			return ddberr.Validation("%sCannot specify the AttributesToGet when choosing to get %s", s.errPrefix, what)
		}
		if s.pe != nil {
			return ddberr.Validation("%sCannot specify the ProjectionExpression when choosing to get %s", s.errPrefix, what)
		}
		if *s.sel == "ALL_PROJECTED_ATTRIBUTES" && s.indexName == nil {
			return ddberr.Validation("%sALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName", s.errPrefix)
		}
	case "SPECIFIC_ATTRIBUTES":
		if s.atg == nil && s.pe == nil {
			return ddberr.Validation("%sMust specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES", s.errPrefix)
		}
	}
	return nil
}

// resolveIndex finds the index a Query or Scan names, applying the rules
// that need the table: the index must exist, a global one cannot be read
// consistently, and ALL_ATTRIBUTES needs a global index to project ALL.
func resolveIndex(t *storage.Table, name *string, consistent bool, sel *string, now time.Time) (*storage.Index, error) {
	if name == nil {
		return nil, nil
	}
	ix := t.Index(*name)
	if ix != nil && ix.Global && (ix.Status == storage.StatusCreating && ix.Backfilling || indexHeld(ix, now)) {
		return nil, ddberr.Validation("Cannot read from backfilling global secondary index: %s", *name)
	}
	if ix == nil || (ix.Global && ix.Status != "" && ix.Status != storage.StatusActive && ix.Status != storage.StatusUpdating) {
		return nil, ddberr.Validation("The table does not have the specified index: %s", *name)
	}
	if ix.Global && consistent {
		return nil, ddberr.Validation("Consistent reads are not supported on global secondary indexes")
	}
	if ix.Global && sel != nil && *sel == "ALL_ATTRIBUTES" && ix.Projection.ProjectionType != storage.ProjectAll {
		return nil, invalid("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", ix.IndexName)
	}
	return ix, nil
}

// newReadPlan fills in what every read plan derives from its table and index.
func newReadPlan(t *storage.Table, ix *storage.Index, sel *string, proj *expr.Projection, filter *expr.Condition, limit *int64, consistent bool, capMode int) *readPlan {
	p := &readPlan{t: t, ix: ix, filter: filter, proj: proj, consistent: consistent, capMode: capMode}
	p.tks = schemaOf(t, t.KeySchema)
	p.iks = p.tks
	if ix != nil {
		p.iks = schemaOf(t, ix.KeySchema)
		if ix.Global {
			p.consistent = false
		}
	}
	if limit != nil {
		p.limit = int(*limit)
	}
	p.count = sel != nil && *sel == "COUNT"
	if ix != nil && !ix.Global && ix.Projection.ProjectionType != storage.ProjectAll && ix.Projection.ProjectionType != "" {
		// A local secondary index read fetches from the table every
		// attribute it needs that the index does not hold: those Select,
		// the projection and the filter name. The filter sees them; the
		// result still holds only the attributes asked for, which without
		// Select or a projection are the index's own.
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.Reading
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Select
		all := sel != nil && *sel == "ALL_ATTRIBUTES"
		var names []string
		if proj != nil {
			names = append(names, proj.TopLevelNames()...)
		}
		names = append(names, conditionNames(filter)...)
		p.fetchTable = all || !projectedAll(t, ix, names)
		p.indexImage = p.fetchTable && !all && proj == nil
	}
	return p
}

// startPosition validates an ExclusiveStartKey against the table key and,
// on an index, the index key, and returns the storage position after which
// the read resumes. query is true for Query, false for Scan.
//
// DynamoDB words the errors by what is wrong. A Scan of the table itself has
// one message for every mismatch. Otherwise the key must have exactly the
// attributes of the table key and the key read (the index key on an index):
// a missing or extra attribute is "The provided starting key is invalid", a
// key-read attribute of the wrong type "The provided key element does not
// match the schema", and a table key attribute of the wrong type the two
// joined.
// https://github.com/architect/dynalite/blob/main/test/query.js ("ExclusiveStartKey is invalid", "does not match range schema")
// https://github.com/architect/dynalite/blob/main/test/scan.js ("ExclusiveStartKey is invalid for local index", "does not match schema for local index")
func startPosition(p *readPlan, esk item.Item, query bool) (*storage.Position, error) {
	if esk == nil {
		return nil, nil
	}
	schemaErr := func() error {
		return ddberr.Validation("The provided starting key is invalid: The provided key element does not match the schema")
	}
	invalidErr := func() error {
		return ddberr.Validation("The provided starting key is invalid")
	}
	table, read := keyParts(p.tks), keyParts(p.iks)
	want := map[string]bool{}
	for _, k := range append(append([]keyPart{}, table...), read...) {
		want[k.name] = true
	}
	if !query && p.ix == nil {
		if len(esk) != len(want) {
			return nil, schemaErr()
		}
		for _, k := range table {
			if v, ok := esk[k.name]; !ok || v.Type != k.typ {
				return nil, schemaErr()
			}
		}
	} else {
		if len(esk) != len(want) {
			return nil, invalidErr()
		}
		for _, k := range read {
			v, ok := esk[k.name]
			if !ok {
				return nil, invalidErr()
			}
			if v.Type != k.typ {
				return nil, errKeySchema()
			}
		}
		for _, k := range table {
			if v, ok := esk[k.name]; !ok || v.Type != k.typ {
				return nil, schemaErr()
			}
		}
	}
	for i, name := range p.tks.names() {
		if err := checkEmptyKeyValue(esk[name], name); err != nil {
			return nil, err
		}
		if err := checkKeyValueSize(esk[name], i == 0); err != nil {
			return nil, err
		}
	}
	pos := &storage.Position{}
	pos.Key, _ = encodeKeyOf(p.tks, esk)
	if p.ix != nil {
		pos.IndexKey, _ = encodeKeyOf(p.iks, esk)
	}
	return pos, nil
}

// keyParts lists the attributes of a key with their types, in key order.
func keyParts(s keySchema) []keyPart {
	if s.multi != nil {
		return s.multi
	}
	out := []keyPart{{name: s.hash, typ: s.hashType, hash: true}}
	if s.rng != "" {
		out = append(out, keyPart{name: s.rng, typ: s.rngType})
	}
	return out
}

// page collects the rows of one page from read: up to the plan's Limit,
// the page size limit or the memory budget. last is the row the page ends
// at when one of those limits ended it (nil when the rows ran out), bytes
// the size of the rows read.
func (p *readPlan) page(ctx context.Context, read func(raw bool, visit storage.VisitFunc) error) (rows []storage.Row, bytes int, last *storage.Row, err error) {
	var charged error
	err = read(false, func(row storage.Row) bool {
		size := row.Size
		if size <= 0 {
			size = item.Size(row.Item)
		}
		ok, err := admitItems(ctx, size, len(rows) == 0)
		if charged = err; err != nil {
			return false
		}
		if !ok {
			last = &rows[len(rows)-1]
			return false
		}
		bytes += size
		rows = append(rows, row)
		if (p.limit > 0 && len(rows) >= p.limit) || bytes >= maxPageBytes {
			last = &rows[len(rows)-1]
			return false
		}
		return true
	})
	if err == nil {
		err = charged
	}
	return rows, bytes, last, err
}

// consumed is the capacity a page of bytes consumed, charged to the table
// or the index read; nil when the request did not ask for it.
func (p *readPlan) consumed(bytes int) *consumed {
	if p.capMode == capNone {
		return nil
	}
	c := newConsumed(p.capMode, p.t.Name)
	units := readUnits(bytes, p.consistent)
	if p.ix != nil {
		c.addIndex(p.ix, units)
	} else {
		c.units = units
	}
	return c
}

// run pages through the rows read yields and builds the response. read
// asks storage for raw rows (storage.Row.Raw) when told to.
func (e *Engine) run(ctx context.Context, p *readPlan, read func(raw bool, visit storage.VisitFunc) error) (*readOutput, error) {
	if e.readsRaw(p) {
		return e.runRaw(ctx, p, read)
	}
	rows, bytes, last, err := p.page(ctx, read)
	if err != nil {
		return nil, err
	}

	res := &readOutput{count: p.count, scanned: len(rows)}
	capacity := p.consumed(bytes)
	res.capacity = capacity

	tableBytes := 0
	for i := range rows {
		it := rows[i].Item
		img := it // the image the result holds
		if p.fetchTable {
			full, err := e.store.GetItem(ctx, p.t, rows[i].Pos.Key, p.consistent)
			if err != nil {
				return nil, err
			}
			if full == nil {
				continue
			}
			tableBytes += item.Size(full)
			it = full
			if !p.indexImage {
				img = full
			}
		}
		if p.filter != nil {
			ok, err := p.filter.Eval(it)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		res.n++
		if !p.count {
			img = projectItem(p.proj, img)
			res.approxLength += 64 * len(img)
			res.items = append(res.items, img)
		}
	}
	if p.fetchTable && capacity != nil && len(rows) > 0 {
		capacity.units += readUnits(tableBytes, p.consistent)
	}
	if e.cfg.OnTableUse != nil {
		units := readUnits(bytes, p.consistent)
		if p.fetchTable && len(rows) > 0 {
			units += readUnits(tableBytes, p.consistent)
		}
		e.meterRead(p.t, len(rows), bytes+tableBytes, units)
	}
	if !p.count && res.items == nil {
		res.items = []item.Item{}
	}
	if last != nil {
		res.lastKey = keyItem(last.Item, p.tks, p.iks)
	}
	return res, nil
}
