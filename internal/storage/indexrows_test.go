package storage

import (
	"bytes"
	"errors"
	"slices"
	"sort"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
)

// testTable has a LSI (KEYS_ONLY), a GSI with a range key (INCLUDE a) and
// a GSI without one (ALL).
func testTable() *Table {
	return &Table{
		Name:      "t",
		KeySchema: []KeyElement{{"pk", "HASH"}, {"sk", "RANGE"}},
		AttributeDefinitions: []AttributeDefinition{
			{"pk", "S"}, {"sk", "N"}, {"l", "S"}, {"g", "S"}, {"gs", "N"}, {"h", "B"},
		},
		Indexes: []Index{
			{IndexName: "lsi", ID: "1", KeySchema: []KeyElement{{"pk", "HASH"}, {"l", "RANGE"}},
				Projection: Projection{ProjectionType: ProjectKeysOnly}},
			{IndexName: "gsi", ID: "2", Global: true, KeySchema: []KeyElement{{"g", "HASH"}, {"gs", "RANGE"}},
				Projection: Projection{ProjectionType: ProjectInclude, NonKeyAttributes: []string{"a", "missing"}}},
			{IndexName: "all", ID: "3", Global: true, KeySchema: []KeyElement{{"h", "HASH"}},
				Projection: Projection{ProjectionType: ProjectAll}},
		},
	}
}

func base() item.Item {
	return item.Item{"pk": item.S("p"), "sk": item.N("1"), "l": item.S("L"), "g": item.S("G"), "gs": item.N("7"),
		"h": item.B([]byte{0xFF}), "a": item.S("A"), "b": item.S("B")}
}

func with(it item.Item, kv ...any) item.Item {
	c := item.Item{}
	for k, v := range it {
		c[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
		} else {
			c[kv[i].(string)] = kv[i+1].(item.AttributeValue)
		}
	}
	return c
}

// summary renders changes as "index:D" / "index:P" / "index:DP" markers.
func summary(cs []IndexChange) []string {
	var out []string
	for _, c := range cs {
		s := c.Index.IndexName + ":"
		if c.Delete != nil {
			s += "D"
		}
		if c.Put != nil {
			s += "P"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func TestIndexChanges(t *testing.T) {
	tb := testTable()
	for _, c := range []struct {
		name     string
		old, new item.Item
		want     []string
	}{
		{"nothing", nil, nil, nil},
		{"create", nil, base(), []string{"all:P", "gsi:P", "lsi:P"}},
		{"delete", base(), nil, []string{"all:D", "gsi:D", "lsi:D"}},
		{"unprojected change", base(), with(base(), "b", item.S("B2")), []string{"all:P"}},
		{"included change", base(), with(base(), "a", item.S("A2")), []string{"all:P", "gsi:P"}},
		{"included removed", base(), with(base(), "a", nil), []string{"all:P", "gsi:P"}},
		{"identical", base(), base(), nil},
		{"LSI key moves", base(), with(base(), "l", item.S("L2")), []string{"all:P", "lsi:DP"}},
		{"GSI sort key moves", base(), with(base(), "gs", item.N("8")), []string{"all:P", "gsi:DP"}},
		{"GSI hash key moves", base(), with(base(), "h", item.B([]byte{0xFF, 0})), []string{"all:DP"}},
		{"key removed", base(), with(base(), "g", nil), []string{"all:P", "gsi:D"}},
		{"key mistyped", base(), with(base(), "gs", item.S("7")), []string{"all:P", "gsi:D"}},
		{"key appears", with(base(), "l", nil), base(), []string{"all:P", "lsi:P"}},
		{"key type fixed", with(base(), "h", item.S("x")), base(), []string{"all:P"}},
		{"sparse create", nil, with(base(), "l", nil, "g", nil, "h", item.N("1")), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := summary(IndexChanges(tb, c.old, c.new))
			if !slices.Equal(got, c.want) {
				t.Fatalf("IndexChanges = %v, want %v", got, c.want)
			}
		})
	}
}

// TestIndexRewrites: IndexRewrites is IndexChanges with a Put (replacing
// the same row) for every index whose row stays as it is.
func TestIndexRewrites(t *testing.T) {
	tb := testTable()
	for _, c := range []struct {
		name     string
		old, new item.Item
		want     []string
	}{
		{"nothing", nil, nil, nil},
		{"create", nil, base(), []string{"all:P", "gsi:P", "lsi:P"}},
		{"delete", base(), nil, []string{"all:D", "gsi:D", "lsi:D"}},
		{"identical", base(), base(), []string{"all:P", "gsi:P", "lsi:P"}},
		{"unprojected change", base(), with(base(), "b", item.S("B2")), []string{"all:P", "gsi:P", "lsi:P"}},
		{"LSI key moves", base(), with(base(), "l", item.S("L2")), []string{"all:P", "gsi:P", "lsi:DP"}},
		{"key removed", base(), with(base(), "g", nil), []string{"all:P", "gsi:D", "lsi:P"}},
		{"sparse", with(base(), "l", nil, "g", nil), with(base(), "l", nil, "g", nil), []string{"all:P"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := IndexRewrites(tb, c.old, c.new)
			if s := summary(got); !slices.Equal(s, c.want) {
				t.Fatalf("IndexRewrites = %v, want %v", s, c.want)
			}
			for _, ch := range got {
				if ch.Put != nil && ch.Delete == nil && c.old != nil && ch.Replaced == nil {
					t.Errorf("%s: a Put over an existing row without Replaced", ch.Index.IndexName)
				}
			}
		})
	}
}

// TestSameRowNeverDeleted: when an entry's identity is unchanged, the
// change is an overwrite, never a delete of that same row (IndexChanges
// and IndexRewrites).
func TestSameRowNeverDeleted(t *testing.T) {
	tb := testTable()
	olds := []item.Item{base(), with(base(), "a", nil), with(base(), "g", nil), with(base(), "l", item.S("Z"))}
	news := []item.Item{base(), with(base(), "a", item.S("x")), with(base(), "gs", item.N("0")), with(base(), "b", nil)}
	for _, o := range olds {
		for _, n := range news {
			for _, c := range append(IndexChanges(tb, o, n), IndexRewrites(tb, o, n)...) {
				if c.Delete != nil && c.Put != nil && c.Delete.SameRow(c.Put) {
					t.Fatalf("%s: delete and put of the same row %+v", c.Index.IndexName, c.Put)
				}
			}
		}
	}
}

func TestIndexRowForProjection(t *testing.T) {
	tb := testTable()
	it := base()
	lsi := IndexRowFor(tb, &tb.Indexes[0], it)
	want := item.Item{"pk": it["pk"], "sk": it["sk"], "l": it["l"]}
	if !itemsEqual(lsi.Item, want) {
		t.Fatalf("KEYS_ONLY projection = %v, want %v", lsi.Item, want)
	}
	if !bytes.Equal(lsi.IndexKey.PK, item.EncodeKey(it["pk"])) || !bytes.Equal(lsi.IndexKey.SK, item.EncodeKey(it["l"])) ||
		!bytes.Equal(lsi.TableKey.PK, item.EncodeKey(it["pk"])) || !bytes.Equal(lsi.TableKey.SK, item.EncodeKey(it["sk"])) {
		t.Fatalf("LSI row keys = %+v", lsi)
	}
	gsi := IndexRowFor(tb, &tb.Indexes[1], it)
	want = item.Item{"pk": it["pk"], "sk": it["sk"], "g": it["g"], "gs": it["gs"], "a": it["a"]}
	if !itemsEqual(gsi.Item, want) {
		t.Fatalf("INCLUDE projection = %v, want %v", gsi.Item, want)
	}
	all := IndexRowFor(tb, &tb.Indexes[2], it)
	if !itemsEqual(all.Item, it) || all.IndexKey.SK != nil {
		t.Fatalf("ALL row = %+v", all)
	}
	if IndexRowFor(tb, &tb.Indexes[2], nil) != nil {
		t.Fatal("a nil item has an index row")
	}
	// Two items sharing index keys are two rows.
	other := with(it, "sk", item.N("2"))
	if IndexRowFor(tb, &tb.Indexes[1], other).SameRow(gsi) {
		t.Fatal("rows of different items compare as the same row")
	}
}

func TestItemKey(t *testing.T) {
	tb := testTable()
	k, err := ItemKey(tb, base())
	if err != nil || !bytes.Equal(k.PK, item.EncodeKey(item.S("p"))) || !bytes.Equal(k.SK, item.EncodeKey(item.N("1"))) {
		t.Fatalf("ItemKey = %+v, %v", k, err)
	}
	for _, bad := range []item.Item{with(base(), "sk", nil), with(base(), "pk", item.N("1"))} {
		if _, err := ItemKey(tb, bad); !errors.Is(err, ErrMissingKey) {
			t.Fatalf("ItemKey(%v) error = %v", bad, err)
		}
	}
	h, r := KeyNames(tb.KeySchema)
	if h != "pk" || r != "sk" || tb.AttributeType("gs") != "N" || tb.AttributeType("zz") != "" ||
		tb.Index("gsi") != &tb.Indexes[1] || tb.Index("nope") != nil {
		t.Fatal("KeyNames / AttributeType / Index")
	}
}

// TestIndexKeyViolations: an item whose index key value is empty or too
// long is left out of the index, as a backfill leaves out DynamoDB's index
// key violations
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.ViolationDetection.html);
// the limits themselves are allowed.
func TestIndexKeyViolations(t *testing.T) {
	tb := testTable()
	long := func(n int) string { return string(bytes.Repeat([]byte("x"), n)) }
	for _, c := range []struct {
		index string
		it    item.Item
		in    bool
	}{
		{"gsi", with(base(), "g", item.S(long(2048))), true},
		{"gsi", with(base(), "g", item.S(long(2049))), false},
		{"gsi", with(base(), "g", item.S("")), false},
		{"gsi", with(base(), "g", item.N("1")), false},
		{"all", with(base(), "h", item.B(bytes.Repeat([]byte{1}, 2048))), true},
		{"all", with(base(), "h", item.B(bytes.Repeat([]byte{1}, 2049))), false},
		{"all", with(base(), "h", item.B([]byte{})), false},
		{"lsi", with(base(), "l", item.S(long(1024))), true},
		{"lsi", with(base(), "l", item.S(long(1025))), false},
	} {
		if got := IndexRowFor(tb, tb.Index(c.index), c.it) != nil; got != c.in {
			t.Errorf("%s: indexed = %v, want %v", c.index, got, c.in)
		}
	}
	if !KeyValueViolation(item.S(""), true) || KeyValueViolation(item.N("0"), false) || !KeyValueViolation(item.S(long(1025)), false) {
		t.Error("KeyValueViolation")
	}
}
