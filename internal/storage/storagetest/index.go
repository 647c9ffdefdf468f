package storagetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

func keySchema(hash, rng string) []storage.KeyElement {
	ks := []storage.KeyElement{{AttributeName: hash, KeyType: "HASH"}}
	if rng != "" {
		ks = append(ks, storage.KeyElement{AttributeName: rng, KeyType: "RANGE"})
	}
	return ks
}

func withAttrs(tb *storage.Table, defs ...string) *storage.Table {
	for i := 0; i < len(defs); i += 2 {
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, storage.AttributeDefinition{AttributeName: defs[i], AttributeType: defs[i+1]})
	}
	return tb
}

// auditTable has two LSIs and two GSIs with every projection type.
func (e *env) auditTable(name string) *storage.Table {
	return e.create(withAttrs(e.table(name, "S",
		storage.Index{IndexName: "lsi1", KeySchema: keySchema("pk", "l1"),
			Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}},
		storage.Index{IndexName: "lsi2", KeySchema: keySchema("pk", "l2"),
			Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"a"}}},
		storage.Index{IndexName: "gsi1", Global: true, KeySchema: keySchema("g1", "g1s"),
			Projection: storage.Projection{ProjectionType: storage.ProjectAll}},
		storage.Index{IndexName: "gsi2", Global: true, KeySchema: keySchema("g2", ""),
			Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"a", "c"}}},
	), "l1", "S", "l2", "N", "g1", "S", "g1s", "N", "g2", "B"))
}

// auditIndexes compares every index of tb, row by row, with what
// storage.IndexRowFor derives from the table's items, and the table's
// Stats with its rows.
func (e *env) auditIndexes(tb *storage.Table) {
	e.t.Helper()
	base := e.scan(tb, storage.ScanRequest{})
	var size int64
	for _, r := range base {
		size += int64(r.Size)
	}
	if st, err := e.b.Stats(e.ctx, tb); err != nil || st.ItemCount != int64(len(base)) || st.SizeBytes != size {
		e.t.Errorf("Stats = %+v, %v; the table holds %d items of %d bytes", st, err, len(base), size)
	}
	for i := range tb.Indexes {
		ix := &tb.Indexes[i]
		want := map[string]item.Item{}
		for _, r := range base {
			if row := storage.IndexRowFor(tb, ix, r.Item); row != nil {
				want[posKey(storage.Position{Key: row.TableKey, IndexKey: row.IndexKey})] = row.Item
			}
		}
		got := e.scan(tb, storage.ScanRequest{Index: ix.IndexName})
		diffs := 0
		seen := map[string]bool{}
		for _, r := range got {
			k := posKey(r.Pos)
			w, ok := want[k]
			switch {
			case seen[k]:
				e.t.Errorf("index %s: row %s twice", ix.IndexName, k)
			case !ok:
				e.t.Errorf("index %s: stray row %s %v", ix.IndexName, k, r.Item)
			case !equalItems(r.Item, w):
				e.t.Errorf("index %s: row %s = %v, want %v", ix.IndexName, k, r.Item, w)
			default:
				seen[k] = true
				continue
			}
			diffs++
		}
		for k, w := range want {
			if !seen[k] {
				diffs++
				e.t.Errorf("index %s: missing row %s %v", ix.IndexName, k, w)
			}
		}
		if diffs > 0 {
			e.t.Fatalf("index %s: %d differences from its table (%d rows, %d expected)", ix.IndexName, diffs, len(got), len(want))
		}
	}
}

// randomItem builds an item for key (pk, sk) whose index key attributes
// are each present, absent or of the wrong type, drawn from few values so
// that index keys collide.
func randomItem(r *rand.Rand, pk, sk string) item.Item {
	it := item.Item{"pk": s(pk), "sk": s(sk)}
	maybe := func(name string, right, wrong func() item.AttributeValue) {
		switch x := r.IntN(10); {
		case x < 6:
			it[name] = right()
		case x < 8:
		default:
			it[name] = wrong()
		}
	}
	maybe("l1", func() item.AttributeValue { return s(fmt.Sprint("l", r.IntN(4))) }, func() item.AttributeValue { return n("1") })
	maybe("l2", func() item.AttributeValue { return n(fmt.Sprint(r.IntN(7) - 3)) }, func() item.AttributeValue { return s("x") })
	maybe("g1", func() item.AttributeValue { return s(fmt.Sprint("g", r.IntN(3))) }, func() item.AttributeValue { return b(1) })
	maybe("g1s", func() item.AttributeValue { return n(fmt.Sprint(r.IntN(5))) }, func() item.AttributeValue { return item.Bool(true) })
	maybe("g2", func() item.AttributeValue { return b(byte(r.IntN(3)), 0xFF) }, func() item.AttributeValue { return s("b") })
	for _, name := range []string{"a", "b", "c"} {
		if r.IntN(2) == 0 {
			it[name] = s(fmt.Sprint(name, r.IntN(100)))
		}
	}
	return it
}

func copyItem(it item.Item) item.Item {
	c := make(item.Item, len(it)+1)
	for k, v := range it {
		c[k] = v
	}
	return c
}

// testIndexAudit races puts, updates that keep or change index keys and
// deletes on a few keys, then audits every index against the table.
func testIndexAudit(t *testing.T, e *env) {
	tb := e.auditTable("audit")
	const workers, ops = 16, 120
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			for range ops {
				pk, sk := fmt.Sprint("p", r.IntN(5)), fmt.Sprint("s", r.IntN(4))
				k := storage.Key{PK: enc(s(pk)), SK: enc(s(sk))}
				op := r.IntN(10)
				seed := r.Uint64()
				err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
					r := rand.New(rand.NewPCG(seed, 7)) // the same choices on every call
					switch {
					case op < 3 || old == nil && op < 8:
						return randomItem(r, pk, sk), nil
					case op < 5: // keep index keys, change other attributes
						nw := copyItem(old)
						nw["a"] = s(fmt.Sprint("a", r.IntN(100)))
						delete(nw, "c")
						return nw, nil
					case op < 7: // change, drop or mistype one index key
						nw := copyItem(old)
						fresh := randomItem(r, pk, sk)
						name := []string{"l1", "l2", "g1", "g1s", "g2"}[r.IntN(5)]
						if v, ok := fresh[name]; ok {
							nw[name] = v
						} else {
							delete(nw, name)
						}
						return nw, nil
					case op < 8:
						return old, nil
					default:
						return nil, nil
					}
				})
				if err != nil {
					e.t.Errorf("mutate: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	e.auditIndexes(tb)

	// Delete everything: every index empties.
	for _, row := range e.scan(tb, storage.ScanRequest{}) {
		e.del(tb, row.Pos.Key)
	}
	e.auditIndexes(tb)
	for _, ix := range tb.Indexes {
		if rows := e.scan(tb, storage.ScanRequest{Index: ix.IndexName}); len(rows) != 0 {
			t.Fatalf("index %s keeps %d rows of deleted items", ix.IndexName, len(rows))
		}
	}
}

// indexOrder sorts rows as an index query returns them: index sort key,
// then table key.
func indexOrder(rows []storage.Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Pos, rows[j].Pos
		if c := bytes.Compare(a.IndexKey.SK, b.IndexKey.SK); c != 0 {
			return c < 0
		}
		if c := bytes.Compare(a.Key.PK, b.Key.PK); c != 0 {
			return c < 0
		}
		return bytes.Compare(a.Key.SK, b.Key.SK) < 0
	})
}

func testIndexQueries(t *testing.T, e *env) {
	tb := e.auditTable("iq")
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 150 {
		e.put(tb, randomItem(r, fmt.Sprint("p", i%6), fmt.Sprint("s", i)))
	}
	e.auditIndexes(tb)
	for i := range tb.Indexes {
		ix := &tb.Indexes[i]
		all := e.scan(tb, storage.ScanRequest{Index: ix.IndexName})
		parts := map[string][]storage.Row{}
		for _, row := range all {
			parts[string(row.Pos.IndexKey.PK)] = append(parts[string(row.Pos.IndexKey.PK)], row)
		}
		if len(parts) < 2 {
			t.Fatalf("index %s: fixture has %d partitions", ix.IndexName, len(parts))
		}
		for ipk, want := range parts {
			indexOrder(want)
			for _, fwd := range []bool{true, false} {
				w := want
				if !fwd {
					w = reversed(want)
				}
				got := e.query(tb, storage.QueryRequest{Index: ix.IndexName, PK: []byte(ipk), Forward: fwd})
				paged := pages(t, 3, func(start *storage.Position, visit storage.VisitFunc) error {
					return e.b.Query(e.ctx, tb, &storage.QueryRequest{Index: ix.IndexName, PK: []byte(ipk), Forward: fwd, ExclusiveStart: start}, visit)
				})
				for _, res := range [][]storage.Row{got, paged} {
					if !slices.EqualFunc(res, w, func(a, b storage.Row) bool { return posKey(a.Pos) == posKey(b.Pos) }) {
						t.Fatalf("index %s partition %x forward=%v: got %d rows, want %d, or out of order", ix.IndexName, ipk, fwd, len(res), len(w))
					}
				}
			}
			// A sort-key condition on an index with a range key.
			if _, rk := storage.KeyNames(ix.KeySchema); rk != "" && len(want) > 0 {
				pivot := want[len(want)/2].Pos.IndexKey.SK
				var w []storage.Row
				for _, row := range want {
					if bytes.Compare(row.Pos.IndexKey.SK, pivot) >= 0 {
						w = append(w, row)
					}
				}
				got := e.query(tb, storage.QueryRequest{Index: ix.IndexName, PK: []byte(ipk), Forward: true,
					SK: storage.KeyCondition{Op: "GE", Values: [][]byte{pivot}}})
				if !slices.EqualFunc(got, w, func(a, b storage.Row) bool { return posKey(a.Pos) == posKey(b.Pos) }) {
					t.Fatalf("index %s GE %x: got %d rows, want %d", ix.IndexName, pivot, len(got), len(w))
				}
				// Pages of a conditional query, whose starts share index
				// sort keys with the condition's bounds, equal one read.
				for _, cond := range []storage.KeyCondition{{Op: "GT", Values: [][]byte{pivot}}, {Op: "GE", Values: [][]byte{pivot}},
					{Op: "LT", Values: [][]byte{pivot}}, {Op: "LE", Values: [][]byte{pivot}}, {Op: "EQ", Values: [][]byte{pivot}},
					{Op: "BETWEEN", Values: [][]byte{want[0].Pos.IndexKey.SK, pivot}}} {
					for _, fwd := range []bool{true, false} {
						q := storage.QueryRequest{Index: ix.IndexName, PK: []byte(ipk), Forward: fwd, SK: cond}
						whole := e.query(tb, q)
						paged := pages(t, 2, func(start *storage.Position, visit storage.VisitFunc) error {
							q := q
							q.ExclusiveStart = start
							return e.b.Query(e.ctx, tb, &q, visit)
						})
						if !slices.EqualFunc(whole, paged, func(a, b storage.Row) bool { return posKey(a.Pos) == posKey(b.Pos) }) {
							t.Fatalf("index %s %s forward=%v: %d rows at once, %d by pages", ix.IndexName, cond.Op, fwd, len(whole), len(paged))
						}
					}
				}
			}
		}
		// Parallel scan segments of an index cover it exactly once.
		seen := map[string]int{}
		for seg := range 5 {
			for _, row := range e.scan(tb, storage.ScanRequest{Index: ix.IndexName, Segment: seg, TotalSegments: 5}) {
				seen[posKey(row.Pos)]++
			}
		}
		paged := pages(t, 4, func(start *storage.Position, visit storage.VisitFunc) error {
			return e.b.Scan(e.ctx, tb, &storage.ScanRequest{Index: ix.IndexName, ExclusiveStart: start}, visit)
		})
		if len(seen) != len(all) || len(paged) != len(all) {
			t.Fatalf("index %s: segments saw %d rows, pages %d, want %d", ix.IndexName, len(seen), len(paged), len(all))
		}
		for i, row := range paged {
			if seen[posKey(row.Pos)] != 1 || posKey(row.Pos) != posKey(all[i].Pos) {
				t.Fatalf("index %s: row %s seen %d times by segments / out of place in pages", ix.IndexName, posKey(row.Pos), seen[posKey(row.Pos)])
			}
		}
	}
}

func testIndexProjections(t *testing.T, e *env) {
	tb := e.auditTable("proj")
	full := item.Item{"pk": s("p"), "sk": s("s"), "l1": s("L"), "l2": n("5"), "g1": s("G"), "g1s": n("1"), "g2": b(9),
		"a": s("A"), "b": s("B"), "c": s("C")}
	e.put(tb, full)
	k := e.key(tb, full)
	one := func(index string, ipk []byte) []storage.Row {
		return e.query(tb, storage.QueryRequest{Index: index, PK: ipk, Forward: true})
	}
	keys := item.Item{"pk": s("p"), "sk": s("s")}
	with := func(base item.Item, names ...string) item.Item {
		out := copyItem(base)
		for _, name := range names {
			out[name] = full[name]
		}
		return out
	}
	check := func(index string, ipk []byte, want item.Item) {
		t.Helper()
		rows := one(index, ipk)
		if want == nil {
			if len(rows) != 0 {
				t.Fatalf("index %s: %d rows, want none", index, len(rows))
			}
			return
		}
		if len(rows) != 1 {
			t.Fatalf("index %s: %d rows, want 1", index, len(rows))
		}
		e.wantItem("index "+index+" row", rows[0].Item, want)
		if !bytes.Equal(rows[0].Pos.Key.PK, k.PK) || !bytes.Equal(rows[0].Pos.Key.SK, k.SK) || !bytes.Equal(rows[0].Pos.IndexKey.PK, ipk) {
			t.Fatalf("index %s row position %+v", index, rows[0].Pos)
		}
	}
	check("lsi1", enc(s("p")), with(keys, "l1"))
	check("lsi2", enc(s("p")), with(keys, "l2", "a"))
	check("gsi1", enc(s("G")), full)
	check("gsi2", enc(b(9)), with(keys, "g2", "a", "c"))
	if rows := one("gsi2", enc(b(9))); rows[0].Pos.IndexKey.SK != nil {
		t.Fatalf("index without a sort key reports one: %x", rows[0].Pos.IndexKey.SK)
	}

	// Updating projected attributes updates the one row.
	upd := copyItem(full)
	upd["a"] = s("A2")
	delete(upd, "c")
	e.put(tb, upd)
	full = upd
	check("lsi2", enc(s("p")), with(keys, "l2", "a"))
	check("gsi2", enc(b(9)), with(keys, "g2", "a"))
	check("gsi1", enc(s("G")), upd)

	// Sparse: a missing or mistyped index key takes the item out.
	sparse := copyItem(upd)
	delete(sparse, "l1")
	sparse["g1s"] = s("not a number")
	sparse["g2"] = b(8)
	e.put(tb, sparse)
	full = sparse
	check("lsi1", enc(s("p")), nil)
	check("gsi1", enc(s("G")), nil)
	check("gsi2", enc(b(9)), nil)
	check("gsi2", enc(b(8)), with(keys, "g2", "a"))
	check("lsi2", enc(s("p")), with(keys, "l2", "a"))
	e.auditIndexes(tb)

	e.del(tb, k)
	for _, ix := range tb.Indexes {
		if rows := e.scan(tb, storage.ScanRequest{Index: ix.IndexName}); len(rows) != 0 {
			t.Fatalf("index %s keeps a deleted item", ix.IndexName)
		}
	}
}
