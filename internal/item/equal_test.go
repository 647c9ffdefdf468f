package item

import (
	"strconv"
	"testing"
)

// Equality is DynamoDB's EQ: the same type and the same value, sets as sets.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Comparators
// and the set semantics of
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.SetTypes
// ("The order of the values within a set is not preserved").

func TestEqual(t *testing.T) {
	many := func(prefix string, n int, reverse bool) []string {
		out := make([]string, n)
		for i := range out {
			j := i
			if reverse {
				j = n - 1 - i
			}
			out[i] = prefix + strconv.Itoa(j)
		}
		return out
	}
	tests := []struct {
		a, b AttributeValue
		want bool
		why  string
	}{
		{S("a"), S("a"), true, "same string"},
		{S("a"), S("b"), false, "different string"},
		{S("1"), N("1"), false, "types differ"},
		{N("1.5"), N("1.50"), true, "numbers compare numerically"},
		{N("100"), N("1e2"), true, "numbers compare numerically"},
		{N("1"), N("-1"), false, "sign"},
		{B([]byte{1, 2}), B([]byte{1, 2}), true, "bytes"},
		{B(nil), B([]byte{}), true, "empty binaries"},
		{B([]byte{1}), B([]byte{2}), false, "bytes differ"},
		{Bool(true), Bool(true), true, "BOOL"},
		{Bool(true), Bool(false), false, "BOOL"},
		{Null(), Null(), true, "NULL"},
		{SS("a", "b", "c"), SS("c", "a", "b"), true, "sets ignore order"},
		{SS("a", "b"), SS("a", "b", "c"), false, "subset"},
		{SS("a", "a", "b"), SS("a", "b", "b"), true, "as sets"},
		{SS(many("x", 40, false)...), SS(many("x", 40, true)...), true, "large sets ignore order"},
		{SS(many("x", 40, false)...), SS(append(many("x", 39, false), "y")...), false, "large sets differ"},
		{NS("1", "2.50"), NS("2.5", "1"), true, "number sets compare numerically"},
		{NS(many("1", 30, false)...), NS(many("1", 30, true)...), true, "large number sets"},
		{NS("1"), SS("1"), false, "NS is not SS"},
		{BS([]byte("a"), []byte("b")), BS([]byte("b"), []byte("a")), true, "binary sets ignore order"},
		{BS([]byte("a")), BS([]byte("b")), false, "binary sets differ"},
		{L(S("a"), N("1")), L(S("a"), N("1.0")), true, "lists elementwise"},
		{L(S("a"), N("1")), L(N("1"), S("a")), false, "lists are ordered"},
		{L(S("a")), L(S("a"), S("a")), false, "list length"},
		{M(map[string]AttributeValue{"a": S("x"), "b": L()}), M(map[string]AttributeValue{"b": L(), "a": S("x")}), true, "maps"},
		{M(map[string]AttributeValue{"a": S("x")}), M(map[string]AttributeValue{"b": S("x")}), false, "map keys"},
		{M(map[string]AttributeValue{"a": S("x")}), M(map[string]AttributeValue{"a": S("x"), "b": S("x")}), false, "map size"},
		{AttributeValue{}, AttributeValue{}, false, "invalid values are never equal"},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%v, %v) = %v, want %v (%s)", tc.a, tc.b, got, tc.want, tc.why)
		}
		if got := Equal(tc.b, tc.a); got != tc.want {
			t.Errorf("Equal(%v, %v) = %v, want %v (%s, reversed)", tc.b, tc.a, got, tc.want, tc.why)
		}
	}
}

// Key ordering is DynamoDB's: "If the data type of the sort key is Number,
// the results are returned in numeric order. Otherwise, the results are
// returned in order of UTF-8 bytes." Binary compares bytes as unsigned.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-ScanIndexForward
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Binary
func TestCompare(t *testing.T) {
	tests := []struct {
		a, b AttributeValue
		want int
		ok   bool
	}{
		{S("a"), S("b"), -1, true},
		{S("Z"), S("a"), -1, true},                   // UTF-8 bytes, not collation
		{S("é"), S("z"), 1, true},                    // U+00E9 is 0xC3 0xA9
		{S("\uFFFF"), S("😀"), -1, true},              // UTF-8 order, not UTF-16 order
		{S(""), S("a"), -1, true},                    // empty first
		{N("10"), N("9"), 1, true},                   // numerically
		{N("-10"), N("-9"), -1, true},                // numerically
		{N("1.50"), N("1.5"), 0, true},               // equal values
		{B([]byte{0x7f}), B([]byte{0x80}), -1, true}, // unsigned
		{B([]byte{1}), B([]byte{1, 0}), -1, true},
		{S("1"), N("1"), 0, false},
		{Bool(true), Bool(true), 0, false},
		{SS("a"), SS("a"), 0, false},
	}
	for _, tc := range tests {
		got, ok := Compare(tc.a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Compare(%v, %v) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

func TestClone(t *testing.T) {
	v := sampleValue()
	c := Clone(v)
	if !Equal(v, c) {
		t.Fatal("clone differs")
	}
	// Mutating the clone must not touch the original.
	c.M["b"].B[0] = 99
	c.M["bs"].BS[0][0] = 'z'
	c.M["ss"].SS[0] = "changed"
	c.M["l"].L[0] = S("changed")
	c.M["m"].M["deep"].L[0].L[0] = N("0")
	c.M["new"] = S("x")
	if !Equal(v, sampleValue()) {
		t.Error("mutating the clone changed the original")
	}
	it := Item{"a": v, "b": S("x")}
	ci := CloneItem(it)
	delete(ci, "b")
	ci["a"].M["s"] = S("other")
	if len(it) != 2 || !Equal(it["a"], sampleValue()) {
		t.Error("mutating the cloned item changed the original")
	}
	if CloneItem(nil) != nil {
		t.Error("CloneItem(nil) != nil")
	}
}
