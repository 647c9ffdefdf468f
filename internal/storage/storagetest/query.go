package storagetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Sort keys in DynamoDB's ascending order for each type.
var (
	// S orders by UTF-8 bytes.
	orderedS = []item.AttributeValue{s("A"), s("B"), s("Z"), s("a"), s("aa"), s("ab"), s("b"), s("z\x00"), s("é"), s("中"), s("😀")}
	// N orders numerically, including negatives and fractions.
	orderedN = []item.AttributeValue{n("-1000000"), n("-100"), n("-10"), n("-2.5"), n("-2"), n("-1"), n("-0.5"), n("-0.001"),
		n("0"), n("0.001"), n("0.5"), n("1"), n("2"), n("2.5"), n("10"), n("99"), n("100"), n("1000000")}
	// B orders by unsigned bytes.
	orderedB = []item.AttributeValue{b(0), b(0, 0), b(0, 0xFF), b(1), b(0x7F), b(0x80), b(0xFE), b(0xFE, 0xFF), b(0xFF), b(0xFF, 0), b(0xFF, 0xFF), b(0xFF, 0xFF, 0xFF)}
)

// putOrdered stores one item per sort key in partition "p", in random order,
// plus decoys in other partitions.
func (e *env) putOrdered(tb *storage.Table, keys []item.AttributeValue) {
	perm := rand.Perm(len(keys))
	for _, i := range perm {
		e.put(tb, item.Item{"pk": s("p"), "sk": keys[i], "i": n(fmt.Sprint(i))})
		e.put(tb, item.Item{"pk": s(fmt.Sprint("decoy", i)), "sk": keys[i]})
	}
}

func encAll(vs []item.AttributeValue) [][]byte {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = enc(v)
	}
	return out
}

func reversed[T any](s []T) []T {
	c := slices.Clone(s)
	slices.Reverse(c)
	return c
}

func (e *env) checkOrder(skType string, keys []item.AttributeValue) {
	tb := e.create(e.table("order"+skType, skType))
	e.putOrdered(tb, keys)
	want := encAll(keys)
	fwd := e.query(tb, storage.QueryRequest{PK: enc(s("p")), Forward: true})
	if !equalBytesList(sortKeys(fwd), want) {
		e.t.Fatalf("forward %s order:\n got %x\nwant %x", skType, sortKeys(fwd), want)
	}
	for i, r := range fwd {
		if r.Item["i"].S != fmt.Sprint(i) || !bytes.Equal(r.Pos.Key.PK, enc(s("p"))) {
			e.t.Fatalf("row %d = %v at %+v", i, r.Item, r.Pos)
		}
	}
	back := e.query(tb, storage.QueryRequest{PK: enc(s("p")), Forward: false})
	if !equalBytesList(sortKeys(back), reversed(want)) {
		e.t.Fatalf("backward %s order:\n got %x\nwant %x", skType, sortKeys(back), reversed(want))
	}
}

func testQueryOrderS(t *testing.T, e *env) { e.checkOrder("S", orderedS) }
func testQueryOrderN(t *testing.T, e *env) { e.checkOrder("N", orderedN) }
func testQueryOrderB(t *testing.T, e *env) { e.checkOrder("B", orderedB) }

// testQueryConditions checks each comparison against the ordered list:
// the expected rows are a slice of it.
func testQueryConditions(t *testing.T, e *env) {
	for _, c := range []struct {
		typ  string
		keys []item.AttributeValue
	}{{"N", orderedN}, {"B", orderedB}, {"S", orderedS}} {
		tb := e.create(e.table("cond"+c.typ, c.typ))
		e.putOrdered(tb, c.keys)
		all := encAll(c.keys)
		for _, at := range []int{0, 3, len(all) / 2, len(all) - 1} {
			v := all[at]
			hi := all[min(at+3, len(all)-1)]
			cases := []struct {
				cond storage.KeyCondition
				want [][]byte
			}{
				{storage.KeyCondition{Op: "EQ", Values: [][]byte{v}}, all[at : at+1]},
				{storage.KeyCondition{Op: "LT", Values: [][]byte{v}}, all[:at]},
				{storage.KeyCondition{Op: "LE", Values: [][]byte{v}}, all[:at+1]},
				{storage.KeyCondition{Op: "GT", Values: [][]byte{v}}, all[at+1:]},
				{storage.KeyCondition{Op: "GE", Values: [][]byte{v}}, all[at:]},
				{storage.KeyCondition{Op: "BETWEEN", Values: [][]byte{v, hi}}, all[at : min(at+3, len(all)-1)+1]},
			}
			for _, tc := range cases {
				for _, fwd := range []bool{true, false} {
					got := sortKeys(e.query(tb, storage.QueryRequest{PK: enc(s("p")), SK: tc.cond, Forward: fwd}))
					want := tc.want
					if !fwd {
						want = reversed(want)
					}
					if !equalBytesList(got, want) {
						t.Fatalf("%s %s %x forward=%v:\n got %x\nwant %x", c.typ, tc.cond.Op, tc.cond.Values, fwd, got, want)
					}
				}
			}
		}
		// A partition that does not exist has no rows.
		if rows := e.query(tb, storage.QueryRequest{PK: enc(s("nobody")), Forward: true}); len(rows) != 0 {
			t.Fatalf("query of an absent partition: %d rows", len(rows))
		}
	}
}

func testBeginsWith(t *testing.T, e *env) {
	binKeys := []item.AttributeValue{b(0x01), b(0xFE), b(0xFE, 0xFF), b(0xFE, 0xFF, 0xFF), b(0xFF), b(0xFF, 0x00),
		b(0xFF, 0xFE), b(0xFF, 0xFF), b(0xFF, 0xFF, 0x01), b(0xFF, 0xFF, 0xFF), b(0xFF, 0xFF, 0xFF, 0xFF)}
	strKeys := []item.AttributeValue{s("a"), s("ab"), s("abc"), s("abd"), s("ac"), s("b"), s("é"), s("éa"), s("ê")}
	for _, c := range []struct {
		typ      string
		keys     []item.AttributeValue
		prefixes [][]byte
	}{
		{"B", binKeys, [][]byte{{0xFF}, {0xFF, 0xFF}, {0xFF, 0xFF, 0xFF}, {0xFE, 0xFF}, {0xFE}, {0x01}, {0x02}, {0xFF, 0x00}}},
		{"S", strKeys, [][]byte{[]byte("a"), []byte("ab"), []byte("abc"), []byte("é"), []byte("\xc3"), []byte("z")}},
	} {
		tb := e.create(e.table("bw"+c.typ, c.typ))
		e.putOrdered(tb, c.keys)
		for _, p := range c.prefixes {
			var want [][]byte
			for _, k := range encAll(c.keys) {
				if bytes.HasPrefix(k, p) {
					want = append(want, k)
				}
			}
			for _, fwd := range []bool{true, false} {
				got := sortKeys(e.query(tb, storage.QueryRequest{PK: enc(s("p")), Forward: fwd,
					SK: storage.KeyCondition{Op: "BEGINS_WITH", Values: [][]byte{p}}}))
				w := want
				if !fwd {
					w = reversed(want)
				}
				if !equalBytesList(got, w) {
					t.Fatalf("%s begins_with %x forward=%v:\n got %x\nwant %x", c.typ, p, fwd, got, w)
				}
			}
		}
	}
}

// pages reads a query or scan page by page: read(start, visit) must visit
// from after start; each page stops after size rows.
func pages(t *testing.T, size int, read func(start *storage.Position, visit storage.VisitFunc) error) []storage.Row {
	t.Helper()
	var all []storage.Row
	var start *storage.Position
	for range 10000 {
		var page []storage.Row
		if err := read(start, func(r storage.Row) bool {
			page = append(page, r)
			return len(page) < size
		}); err != nil {
			t.Fatalf("page read: %v", err)
		}
		all = append(all, page...)
		if len(page) < size {
			return all
		}
		pos := page[len(page)-1].Pos
		start = &pos
	}
	t.Fatal("pagination does not end")
	return nil
}

func testQueryPagination(t *testing.T, e *env) {
	tb := e.create(e.table("pages", "N"))
	var keys []item.AttributeValue
	for i := range 37 {
		keys = append(keys, n(fmt.Sprint(i*3-50)))
	}
	e.putOrdered(tb, keys)
	for _, size := range []int{1, 5, 7, 37, 100} {
		for _, fwd := range []bool{true, false} {
			for _, cond := range []storage.KeyCondition{{}, {Op: "GE", Values: [][]byte{enc(n("-20"))}}} {
				full := e.query(tb, storage.QueryRequest{PK: enc(s("p")), Forward: fwd, SK: cond})
				got := pages(t, size, func(start *storage.Position, visit storage.VisitFunc) error {
					return e.b.Query(e.ctx, tb, &storage.QueryRequest{PK: enc(s("p")), Forward: fwd, SK: cond, ExclusiveStart: start}, visit)
				})
				if !equalBytesList(sortKeys(got), sortKeys(full)) {
					t.Fatalf("pages of %d forward=%v cond=%v:\n got %x\nwant %x", size, fwd, cond.Op, sortKeys(got), sortKeys(full))
				}
			}
		}
	}
	// Stopping early visits no further rows.
	visited := 0
	if err := e.b.Query(e.ctx, tb, &storage.QueryRequest{PK: enc(s("p")), Forward: true}, func(storage.Row) bool {
		visited++
		return false
	}); err != nil || visited != 1 {
		t.Fatalf("visit returning false: %d rows visited, %v", visited, err)
	}
}

// scanFixture stores items across many partitions, some with several sort
// keys, and returns their positions.
func (e *env) scanFixture(name string, count int) (*storage.Table, map[string]bool) {
	tb := e.create(e.table(name, "N"))
	want := map[string]bool{}
	for i := range count {
		it := item.Item{"pk": s(fmt.Sprint("p", i/3)), "sk": n(fmt.Sprint(i % 3)), "v": n(fmt.Sprint(i))}
		e.put(tb, it)
		want[posKey(storage.Position{Key: e.key(tb, it)})] = true
	}
	return tb, want
}

// checkHashOrder fails unless rows ascend in (partition hash, pk, sk).
func checkHashOrder(t *testing.T, rows []storage.Row) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1].Pos.Key, rows[i].Pos.Key
		ha, hb := item.PartitionHash(a.PK), item.PartitionHash(b.PK)
		c := 0
		switch {
		case ha < hb:
			c = -1
		case ha > hb:
			c = 1
		default:
			c = bytes.Compare(a.PK, b.PK)
			if c == 0 {
				c = bytes.Compare(a.SK, b.SK)
			}
		}
		if c >= 0 {
			t.Fatalf("scan rows %d and %d out of hash order: %+v, %+v", i-1, i, a, b)
		}
	}
}

func testScanSegments(t *testing.T, e *env) {
	tb, want := e.scanFixture("scan", 300)
	for _, total := range []int{0, 1, 2, 3, 4, 7, 16, 64} {
		seen := map[string]int{}
		for seg := range max(total, 1) {
			rows := e.scan(tb, storage.ScanRequest{Segment: seg, TotalSegments: total})
			checkHashOrder(t, rows)
			n := uint64(max(total, 1))
			lo, hi := uint64(seg)<<32/n, (uint64(seg)+1)<<32/n
			for _, r := range rows {
				if h := uint64(item.PartitionHash(r.Pos.Key.PK)); h < lo || h >= hi {
					t.Fatalf("segment %d/%d returned hash %d outside [%d, %d)", seg, total, h, lo, hi)
				}
				seen[posKey(r.Pos)]++
				if r.Item["pk"].S == "" {
					t.Fatalf("row without its item: %+v", r)
				}
			}
		}
		if len(seen) != len(want) {
			t.Fatalf("%d segments saw %d items, want %d", total, len(seen), len(want))
		}
		for k, c := range seen {
			if c != 1 || !want[k] {
				t.Fatalf("%d segments: item %s seen %d times (known: %v)", total, k, c, want[k])
			}
		}
	}
}

func testScanPagination(t *testing.T, e *env) {
	tb, want := e.scanFixture("scanpages", 120)
	for _, total := range []int{1, 3} {
		seen := map[string]int{}
		for seg := range total {
			full := e.scan(tb, storage.ScanRequest{Segment: seg, TotalSegments: total})
			got := pages(t, 7, func(start *storage.Position, visit storage.VisitFunc) error {
				return e.b.Scan(e.ctx, tb, &storage.ScanRequest{Segment: seg, TotalSegments: total, ExclusiveStart: start}, visit)
			})
			if len(got) != len(full) {
				t.Fatalf("segment %d/%d: %d rows by pages, %d at once", seg, total, len(got), len(full))
			}
			for i := range got {
				if posKey(got[i].Pos) != posKey(full[i].Pos) {
					t.Fatalf("segment %d/%d row %d: pages %s, at once %s", seg, total, i, posKey(got[i].Pos), posKey(full[i].Pos))
				}
				seen[posKey(got[i].Pos)]++
			}
		}
		if len(seen) != len(want) {
			t.Fatalf("paged scan saw %d items, want %d", len(seen), len(want))
		}
	}
}
