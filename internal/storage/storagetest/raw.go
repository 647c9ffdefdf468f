package storagetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// rawRow is what a visitor of a Raw read may keep: copies of the row's
// bytes, taken during the visit call (storage.Row.Raw).
type rawRow struct {
	pos  string
	raw  []byte
	size int
	item bool // the backend set Item too
}

// readRaw reads with Raw set and copies each row during its visit; at most
// limit rows (0: all).
func readRaw(t *testing.T, limit int, read func(visit storage.VisitFunc) error) []rawRow {
	t.Helper()
	var out []rawRow
	if err := read(func(r storage.Row) bool {
		out = append(out, rawRow{pos: posKey(r.Pos), raw: bytes.Clone(r.Raw), size: r.Size, item: r.Item != nil})
		return limit == 0 || len(out) < limit
	}); err != nil {
		t.Fatalf("raw read: %v", err)
	}
	return out
}

// checkRaw fails unless the raw rows are the decoded rows in their stored
// encoding: same positions in the same order, same sizes, Item left nil.
func checkRaw(t *testing.T, what string, raw []rawRow, decoded []storage.Row) {
	t.Helper()
	if len(raw) != len(decoded) {
		t.Fatalf("%s: %d raw rows, %d decoded", what, len(raw), len(decoded))
	}
	for i, r := range raw {
		d := decoded[i]
		if r.pos != posKey(d.Pos) || r.size != d.Size || r.item {
			t.Fatalf("%s row %d: raw %s size %d item %v; decoded %s size %d", what, i, r.pos, r.size, r.item, posKey(d.Pos), d.Size)
		}
		if !bytes.Equal(r.raw, item.MarshalItem(d.Item)) {
			t.Fatalf("%s row %d: Raw is not the stored encoding of the item", what, i)
		}
	}
}

// testRawRows: a Query or Scan with Raw hands over every row it would
// decode, in the same order and at the same positions, as item.MarshalItem
// encoded it; its positions resume reads like decoded ones.
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
		pk := all[0].Pos.Key.PK
		if ix != "" {
			pk = all[0].Pos.IndexKey.PK
		}
		for _, fwd := range []bool{true, false} {
			q := storage.QueryRequest{Index: ix, PK: pk, Forward: fwd}
			whole := e.query(tb, q)
			q.Raw = true
			checkRaw(t, "query "+ix, readRaw(t, 0, func(v storage.VisitFunc) error { return e.b.Query(e.ctx, tb, &q, v) }), whole)
			// The position of a raw row, copied, starts the next page.
			var start storage.Position
			if err := e.b.Query(e.ctx, tb, &q, func(r storage.Row) bool {
				start = storage.Position{Key: storage.Key{PK: bytes.Clone(r.Pos.Key.PK), SK: bytes.Clone(r.Pos.Key.SK)},
					IndexKey: storage.Key{PK: bytes.Clone(r.Pos.IndexKey.PK), SK: bytes.Clone(r.Pos.IndexKey.SK)}}
				return false
			}); err != nil {
				t.Fatal(err)
			}
			q.ExclusiveStart = &start
			checkRaw(t, "query page "+ix, readRaw(t, 0, func(v storage.VisitFunc) error { return e.b.Query(e.ctx, tb, &q, v) }), whole[1:])
		}
	}
}
