package api

import (
	"context"

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
func resolveIndex(t *storage.Table, name *string, consistent bool, sel *string) (*storage.Index, error) {
	if name == nil {
		return nil, nil
	}
	ix := t.Index(*name)
	if ix != nil && ix.Global && ix.Status == storage.StatusCreating && ix.Backfilling {
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
	if ix != nil && !ix.Global && ix.Projection.ProjectionType != storage.ProjectAll {
		switch {
		case sel != nil && *sel == "ALL_ATTRIBUTES":
			p.fetchTable = true
		case proj != nil:
			p.fetchTable = !projectedAll(t, ix, proj.TopLevel())
		case filter != nil:
			p.fetchTable = !projectedAll(t, ix, conditionNames(filter))
		}
	}
	return p
}

// startPosition validates an ExclusiveStartKey against the table key and,
// on an index, the index key, and returns the storage position after which
// the read resumes.
func startPosition(p *readPlan, esk item.Item) (*storage.Position, error) {
	if esk == nil {
		return nil, nil
	}
	bad := func() error {
		return ddberr.Validation("The provided starting key is invalid: The provided key element does not match the schema")
	}
	want := map[string]item.Type{p.tks.hash: p.tks.hashType}
	if p.tks.rng != "" {
		want[p.tks.rng] = p.tks.rngType
	}
	want[p.iks.hash] = p.iks.hashType
	if p.iks.rng != "" {
		want[p.iks.rng] = p.iks.rngType
	}
	for _, k := range p.iks.multi {
		want[k.name] = k.typ
	}
	if len(esk) != len(want) {
		return nil, bad()
	}
	for name, typ := range want {
		v, ok := esk[name]
		if !ok || v.Type != typ {
			return nil, bad()
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

// run pages through the rows read yields and builds the response.
func (e *Engine) run(ctx context.Context, p *readPlan, read func(storage.VisitFunc) error) (*readOutput, error) {
	var rows []storage.Row
	var last *storage.Row
	bytes := 0
	limited := false
	err := read(func(row storage.Row) bool {
		size := row.Size
		if size <= 0 {
			size = item.Size(row.Item)
		}
		bytes += size
		rows = append(rows, row)
		if (p.limit > 0 && len(rows) >= p.limit) || bytes >= maxPageBytes {
			last = &rows[len(rows)-1]
			limited = true
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}

	out := &readOutput{count: p.count, scanned: len(rows)}
	var capacity *consumed
	if p.capMode != capNone {
		capacity = newConsumed(p.capMode, p.t.Name)
		units := readUnits(bytes, p.consistent)
		if p.ix != nil {
			capacity.addIndex(p.ix, units)
		} else {
			capacity.units = units
		}
		out.capacity = capacity
	}

	tableBytes := 0
	for i := range rows {
		it := rows[i].Item
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
		out.n++
		if !p.count {
			it = projectItem(p.proj, it)
			out.approxLength += 64 * len(it)
			out.items = append(out.items, it)
		}
	}
	if p.fetchTable && capacity != nil && len(rows) > 0 {
		capacity.units += readUnits(tableBytes, p.consistent)
	}
	if !p.count && out.items == nil {
		out.items = []item.Item{}
	}
	if limited && last != nil {
		out.lastKey = keyItem(last.Item, p.tks, p.iks)
	}
	return out, nil
}
