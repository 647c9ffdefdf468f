package api

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestMultiKeyBounds checks the byte ranges of multi-attribute sort-key
// conditions against a direct evaluation of the condition, over random
// values rich in 0x00 and 0xFF bytes and in prefixes of one another.
func TestMultiKeyBounds(t *testing.T) {
	tb := &storage.Table{
		Name:      "t",
		KeySchema: []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"},
			{AttributeName: "h1", AttributeType: "S"}, {AttributeName: "h2", AttributeType: "N"},
			{AttributeName: "r1", AttributeType: "B"}, {AttributeName: "r2", AttributeType: "S"}, {AttributeName: "r3", AttributeType: "N"}},
		Indexes: []storage.Index{{IndexName: "gsi", Global: true, ID: "1", Projection: storage.Projection{ProjectionType: storage.ProjectAll},
			KeySchema: []storage.KeyElement{{AttributeName: "h1", KeyType: "HASH"}, {AttributeName: "h2", KeyType: "HASH"},
				{AttributeName: "r1", KeyType: "RANGE"}, {AttributeName: "r2", KeyType: "RANGE"}, {AttributeName: "r3", KeyType: "RANGE"}}}},
	}
	ix := &tb.Indexes[0]
	p := newReadPlan(tb, ix, nil, nil, nil, nil, false, capNone)
	r := rand.New(rand.NewPCG(1, 2))
	bin := func() item.AttributeValue {
		b := make([]byte, 1+r.IntN(3))
		for i := range b {
			b[i] = []byte{0x00, 0x01, 0xFE, 0xFF, 'a'}[r.IntN(5)]
		}
		return item.B(b)
	}
	str := func() item.AttributeValue {
		return item.S([]string{"", "a", "ab", "a\x00", "b", "\u00ff", "a\xff"}[r.IntN(7)])
	}
	num := func() item.AttributeValue { return item.N([]string{"-1", "0", "1", "10", "1.5", "-0.5"}[r.IntN(6)]) }
	gens := []func() item.AttributeValue{bin, str, num}
	names := []string{"r1", "r2", "r3"}
	var items []item.Item
	for i := range 400 {
		it := item.Item{"pk": item.S(fmt.Sprint(i)), "h1": item.S("h"), "h2": item.N("1")}
		for j, n := range names {
			it[n] = gens[j]()
		}
		if v := it["r2"]; v.S == "" {
			it["r2"] = item.S("z")
		}
		items = append(items, it)
	}
	cmp := func(a, b item.AttributeValue) int { return bytes.Compare(item.EncodeKey(a), item.EncodeKey(b)) }
	ops := []expr.SortOp{expr.SortEQ, expr.SortLT, expr.SortLE, expr.SortGT, expr.SortGE, expr.SortBetween, expr.SortBeginsWith}
	for round := range 3000 {
		ref := items[r.IntN(len(items))]
		k := r.IntN(3) // equalities before the last condition
		conds := []multiKeyCond{{attr: "h1", op: expr.SortEQ, vals: []item.AttributeValue{item.S("h")}}, {attr: "h2", op: expr.SortEQ, vals: []item.AttributeValue{item.N("1")}}}
		for j := 0; j < k; j++ {
			conds = append(conds, multiKeyCond{attr: names[j], op: expr.SortEQ, vals: []item.AttributeValue{ref[names[j]]}})
		}
		op := ops[r.IntN(len(ops))]
		if op == expr.SortBeginsWith && k == 2 {
			op = expr.SortGE // r3 is a number
		}
		last := multiKeyCond{attr: names[k], op: op, vals: []item.AttributeValue{gens[k]()}}
		if k == 1 && last.vals[0].S == "" {
			last.vals[0] = item.S("a")
		}
		if op == expr.SortBetween {
			last.vals = append(last.vals, gens[k]())
			if k == 1 && last.vals[1].S == "" {
				last.vals[1] = item.S("b")
			}
		}
		if r.IntN(4) > 0 {
			conds = append(conds, last)
		} else {
			op = expr.SortNone
		}
		mq, err := buildMultiQuery(p, conds)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, it := range items {
			want := true
			for _, c := range conds[2:] {
				v := it[c.attr]
				switch c.op {
				case expr.SortEQ:
					want = want && cmp(v, c.vals[0]) == 0
				case expr.SortLT:
					want = want && cmp(v, c.vals[0]) < 0
				case expr.SortLE:
					want = want && cmp(v, c.vals[0]) <= 0
				case expr.SortGT:
					want = want && cmp(v, c.vals[0]) > 0
				case expr.SortGE:
					want = want && cmp(v, c.vals[0]) >= 0
				case expr.SortBetween:
					want = want && cmp(v, c.vals[0]) >= 0 && cmp(v, c.vals[1]) <= 0
				case expr.SortBeginsWith:
					want = want && bytes.HasPrefix(item.EncodeKey(v), item.EncodeKey(c.vals[0]))
				}
			}
			key, ok := storage.IndexKeyOf(tb, ix, it)
			if !ok || !bytes.Equal(key.PK, mq.req.PK) {
				t.Fatalf("item %v: index key %x, query partition %x", it, key.PK, mq.req.PK)
			}
			got := true
			if op != expr.SortNone || k > 0 {
				lo, hi := mq.req.SK.Values[0], mq.req.SK.Values[1]
				got = bytes.Compare(key.SK, lo) >= 0 && bytes.Compare(key.SK, hi) <= 0
			}
			if got != want {
				t.Fatalf("round %d: conditions %+v on %v: in range %v, want %v", round, conds[2:], it, got, want)
			}
		}
	}
}
