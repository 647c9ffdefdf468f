package storage

import (
	"bytes"
	"testing"
)

// Query's sort-key conditions become byte ranges that every backend applies
// to the encoded keys.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-KeyConditionExpression
func TestSortKeyRange(t *testing.T) {
	b := func(s ...byte) []byte { return s }
	for _, c := range []struct {
		cond   KeyCondition
		lo, hi SortBound
	}{
		{KeyCondition{}, SortBound{}, SortBound{}},
		{KeyCondition{"EQ", [][]byte{b(1)}}, SortBound{">=", b(1)}, SortBound{"<=", b(1)}},
		{KeyCondition{"LT", [][]byte{b(1)}}, SortBound{}, SortBound{"<", b(1)}},
		{KeyCondition{"GE", [][]byte{b(1)}}, SortBound{">=", b(1)}, SortBound{}},
		{KeyCondition{"BETWEEN", [][]byte{b(1), b(3)}}, SortBound{">=", b(1)}, SortBound{"<=", b(3)}},
		{KeyCondition{"BEGINS_WITH", [][]byte{b(1, 0xFF)}}, SortBound{">=", b(1, 0xFF)}, SortBound{"<", b(2)}},
		{KeyCondition{"BEGINS_WITH", [][]byte{b(0xFF, 0xFF)}}, SortBound{">=", b(0xFF, 0xFF)}, SortBound{}},
		{KeyCondition{"EQ", [][]byte{nil}}, SortBound{">=", b()}, SortBound{"<=", b()}},
	} {
		lo, hi, err := SortKeyRange(c.cond)
		if err != nil {
			t.Fatalf("%v: %v", c.cond, err)
		}
		if lo.Op != c.lo.Op || !bytes.Equal(lo.V, c.lo.V) || hi.Op != c.hi.Op || !bytes.Equal(hi.V, c.hi.V) {
			t.Errorf("%v: got %v %v, want %v %v", c.cond, lo, hi, c.lo, c.hi)
		}
		if lo.Op != "" && lo.V == nil {
			t.Errorf("%v: nil lower bound value", c.cond)
		}
	}
	if _, _, err := SortKeyRange(KeyCondition{"BETWEEN", [][]byte{b(1)}}); err == nil {
		t.Error("BETWEEN with one value accepted")
	}
	if _, _, err := SortKeyRange(KeyCondition{"NE", [][]byte{b(1)}}); err == nil {
		t.Error("unknown operator accepted")
	}
}

func TestSortBoundSupersededBy(t *testing.T) {
	lower := SortBound{">=", []byte{5}}
	if !lower.SupersededBy([]byte{6}, true) || !lower.SupersededBy([]byte{5}, true) || lower.SupersededBy([]byte{4}, true) {
		t.Error(">= 5 forward")
	}
	strict := SortBound{">", []byte{5}}
	if strict.SupersededBy([]byte{5}, true) {
		t.Error("> 5 is not superseded by a start at 5")
	}
	upper := SortBound{"<=", []byte{5}}
	if !upper.SupersededBy([]byte{4}, false) || upper.SupersededBy([]byte{6}, false) {
		t.Error("<= 5 backward")
	}
	if !(SortBound{}).SupersededBy([]byte{1}, true) {
		t.Error("no bound is always superseded")
	}
}

func TestPhysicalName(t *testing.T) {
	if got, err := PhysicalName("t_", "0A1B-2c3d"); err != nil || got != "t_0a1b2c3d" {
		t.Errorf("PhysicalName = %q, %v", got, err)
	}
	for _, bad := range []string{"", "--", "x1", "t; DROP TABLE t"} {
		if _, err := PhysicalName("t_", bad); err == nil {
			t.Errorf("PhysicalName(%q) accepted", bad)
		}
	}
}
