package storagetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// rawRow is what a visitor of a Raw read may keep: a copy of the row's
// bytes, taken during the visit call (storage.Row.Raw).
type rawRow struct {
	raw  []byte
	size int
	pos  bool // the backend set a position
	item bool // the backend set Item too
}

// readRaw reads with Raw set and copies each row during its visit; at most
// limit rows (0: all).
func readRaw(t *testing.T, limit int, read func(visit storage.VisitFunc) error) []rawRow {
	t.Helper()
	var out []rawRow
	if err := read(func(r storage.Row) bool {
		out = append(out, rawRow{raw: bytes.Clone(r.Raw), size: r.Size, item: r.Item != nil,
			pos: r.Pos.Key.PK != nil || r.Pos.Key.SK != nil || r.Pos.IndexKey.PK != nil || r.Pos.IndexKey.SK != nil})
		return limit == 0 || len(out) < limit
	}); err != nil {
		t.Fatalf("raw read: %v", err)
	}
	return out
}

// checkRaw fails unless the raw rows are the decoded rows in their stored
// encoding: same items in the same order, same sizes, Item and Pos left
// empty.
func checkRaw(t *testing.T, what string, raw []rawRow, decoded []storage.Row) {
	t.Helper()
	if len(raw) != len(decoded) {
		t.Fatalf("%s: %d raw rows, %d decoded", what, len(raw), len(decoded))
	}
	for i, r := range raw {
		d := decoded[i]
		if r.size != d.Size || r.item || r.pos {
			t.Fatalf("%s row %d: raw size %d, item %v, position %v; decoded size %d", what, i, r.size, r.item, r.pos, d.Size)
		}
		if !bytes.Equal(r.raw, item.MarshalItem(d.Item)) {
			t.Fatalf("%s row %d: Raw is not the stored encoding of the item", what, i)
		}
	}
}

// testRawRows: a Query or Scan with Raw hands over every row it would
// decode, in the same order, as item.MarshalItem encoded it, without its
// position; a raw read resumes after an ExclusiveStart like a decoded one.
func testRawRows(t *testing.T, e *env) {
	tb := e.auditTable("raw")
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 60 {
		e.put(tb, randomItem(r, fmt.Sprint("p", i%4), fmt.Sprint("s", i)))
	}
	indexes := []string{""}
	for _, ix := range tb.Indexes {
		indexes = append(indexes, ix.IndexName)
	}
	for _, ix := range indexes {
		all := e.scan(tb, storage.ScanRequest{Index: ix})
		checkRaw(t, "scan "+ix, readRaw(t, 0, func(v storage.VisitFunc) error {
			return e.b.Scan(e.ctx, tb, &storage.ScanRequest{Index: ix, Raw: true}, v)
		}), all)
		checkRaw(t, "scan page "+ix, readRaw(t, 0, func(v storage.VisitFunc) error {
			return e.b.Scan(e.ctx, tb, &storage.ScanRequest{Index: ix, Raw: true, ExclusiveStart: &all[10].Pos}, v)
		}), all[11:])
		pk := all[0].Pos.Key.PK
		if ix != "" {
			pk = all[0].Pos.IndexKey.PK
		}
		for _, fwd := range []bool{true, false} {
			q := storage.QueryRequest{Index: ix, PK: pk, Forward: fwd}
			whole := e.query(tb, q)
			q.Raw = true
			checkRaw(t, "query "+ix, readRaw(t, 0, func(v storage.VisitFunc) error { return e.b.Query(e.ctx, tb, &q, v) }), whole)
			q.ExclusiveStart = &whole[0].Pos
			checkRaw(t, "query page "+ix, readRaw(t, 0, func(v storage.VisitFunc) error { return e.b.Query(e.ctx, tb, &q, v) }), whole[1:])
			if got := readRaw(t, 2, func(v storage.VisitFunc) error { return e.b.Query(e.ctx, tb, &q, v) }); len(got) != min(2, len(whole)-1) {
				t.Fatalf("query %s: a visitor stopping at 2 rows got %d", ix, len(got))
			}
		}
	}
}
