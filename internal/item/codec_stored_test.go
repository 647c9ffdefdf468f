package item

import (
	"bytes"
	"strings"
	"testing"
)

// storedItems are items of every type, nesting, escape and size a stored
// item can hold.
func storedItems() []Item {
	var deep AttributeValue = S("leaf")
	for range 31 {
		deep = L(M(map[string]AttributeValue{"k": deep}))
	}
	return []Item{
		{},
		{"pk": S("")},
		{"doc": sampleValue()},
		{"s": S("héllo \"quoted\" \\ \n\t\x01 \u2028\u2029 \xff\xfe"), "n": N("-1.5e-7"), "big": N("12345678901234567890123456789012345678")},
		{"b": B([]byte{0, 1, 2, 0xfb, 0xff}), "eb": B([]byte{}), "bs": BS([]byte("a"), []byte{}, []byte{0xff, 0xfe, 0xfd})},
		{"ss": SS("z", "a", "\xff"), "ns": NS("10", "-2", "0.5"), "l": L(), "m": M(map[string]AttributeValue{})},
		{"": S("empty name"), "\u2028": Null(), "é": Bool(false), "Z": Bool(true), "a\"b": S("x")},
		{"deep": deep},
		{"long": S(strings.Repeat("x", 70000)), "list": L(S("a"), N("1"), L(L(Null())), M(map[string]AttributeValue{"b": B([]byte("c"))}))},
	}
}

// The JSON of a stored item, transcoded, is the JSON of the decoded item,
// byte for byte: names in ascending order, numbers as stored, sets in their
// stored order, binaries in padded standard base64 (the form DynamoDB's
// responses use, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html#Programming.LowLevelAPI.DataTypeDescriptors).
func TestAppendStoredJSON(t *testing.T) {
	for i, it := range storedItems() {
		want := AppendItemJSON([]byte("prefix"), it)
		got, err := AppendStoredJSON([]byte("prefix"), MarshalItem(it))
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("item %d:\n got %.300s\nwant %.300s", i, got, want)
		}
	}
	golden := Item{"b": B([]byte{0xAB}), "a": S("x"), "n": N("-1.5"), "l": L(Bool(true), Null()), "s": SS("p")}
	got, _ := AppendStoredJSON(nil, MarshalItem(golden))
	if want := `{"a":{"S":"x"},"b":{"B":"qw=="},"l":{"L":[{"BOOL":true},{"NULL":true}]},"n":{"N":"-1.5"},"s":{"SS":["p"]}}`; string(got) != want {
		t.Errorf("AppendStoredJSON = %s, want %s", got, want)
	}
}

// corruptStored are stored items UnmarshalItem refuses.
func corruptStored() [][]byte {
	bad := [][]byte{nil, {}, {2}, {1}, {1, 1}, {1, 1, 1, 'a'}, {1, 1, 1, 'a', 99}, {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{1, 1, 1, 'a', tagS, 5, 'x'}, {1, 0x80}, {1, 0, 0}, {1, 1, 1, 'a', tagL, 0xff, 0xff, 0xff, 0x7f}}
	deep := []byte{1, 1, 1, 'a'}
	for range 100 {
		deep = append(deep, tagL, 1)
	}
	return append(bad, append(deep, tagNULL))
}

// The readers that skip decoding fail exactly where UnmarshalItem fails:
// a corrupt stored item is an error whichever way it is read.
func TestStoredReadersAgreeOnCorruption(t *testing.T) {
	inputs := corruptStored()
	good := MarshalItem(Item{"doc": sampleValue(), "x": SS("a", "b"), "y": BS([]byte("q"))})
	for i := range good {
		inputs = append(inputs, good[:i])
		for _, c := range []byte{0, 1, 0x7f, 0x80, 0xff, good[i] + 1} {
			b := bytes.Clone(good)
			b[i] = c
			inputs = append(inputs, b)
		}
	}
	for _, b := range inputs {
		checkStoredReaders(t, b)
	}
}

// checkStoredReaders asserts that AppendStoredJSON and UnmarshalAttributes
// agree with UnmarshalItem on b.
func checkStoredReaders(t *testing.T, b []byte) {
	t.Helper()
	it, err := UnmarshalItem(b)
	js, jsErr := AppendStoredJSON(nil, b)
	part, partErr := UnmarshalAttributes(b, []string{"doc", "x", "a"})
	pjs, pjsErr := AppendStoredJSONAttributes(nil, b, []string{"doc", "x", "a"})
	if (err == nil) != (jsErr == nil) || (err == nil) != (partErr == nil) || (err == nil) != (pjsErr == nil) {
		t.Fatalf("%x: UnmarshalItem error %v, AppendStoredJSON error %v, UnmarshalAttributes error %v, AppendStoredJSONAttributes error %v",
			b, err, jsErr, partErr, pjsErr)
	}
	if err != nil {
		return
	}
	for _, n := range []string{"doc", "x", "a"} {
		v, ok := it[n]
		w, pok := part[n]
		if ok != pok || ok && !Equal(v, w) {
			t.Fatalf("%x: UnmarshalAttributes[%q] = %v, %v; want %v, %v", b, n, w, pok, v, ok)
		}
	}
	if len(part) > 3 {
		t.Fatalf("%x: UnmarshalAttributes decoded %d attributes", b, len(part))
	}
	// A canonical encoding (names ascending and distinct, as MarshalItem
	// writes them) transcodes to the decoded item's JSON.
	if bytes.Equal(MarshalItem(it), b) && !bytes.Equal(js, AppendItemJSON(nil, it)) {
		t.Fatalf("%x: AppendStoredJSON = %s, want %s", b, js, AppendItemJSON(nil, it))
	}
	if bytes.Equal(MarshalItem(it), b) && !bytes.Equal(pjs, AppendItemJSON(nil, part)) {
		t.Fatalf("%x: AppendStoredJSONAttributes = %s, want %s", b, pjs, AppendItemJSON(nil, part))
	}
}

// A projection of top-level names, transcoded, is the JSON of the decoded
// item's projection; an item with none of the names is {}.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html
func TestAppendStoredJSONAttributes(t *testing.T) {
	for i, it := range storedItems() {
		for _, names := range [][]string{nil, {"doc"}, {"s", "b", "bs", "missing"}, {"", "é", "a\"b"}, {"long", "list", "deep"}} {
			want := Item{}
			for _, n := range names {
				if v, ok := it[n]; ok {
					want[n] = v
				}
			}
			got, err := AppendStoredJSONAttributes([]byte("x"), MarshalItem(it), names)
			if err != nil || !bytes.Equal(got, AppendItemJSON([]byte("x"), want)) {
				t.Errorf("item %d %q: got %.200s, %v; want %.200s", i, names, got, err, AppendItemJSON(nil, want))
			}
		}
	}
}

func TestUnmarshalAttributes(t *testing.T) {
	it := Item{"pk": S("p"), "sk": N("7"), "doc": sampleValue(), "b": B([]byte("bin")), "other": SS("x")}
	got, err := UnmarshalAttributes(MarshalItem(it), []string{"sk", "b", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Item{"sk": N("7"), "b": B([]byte("bin"))}); !Equal(M(got), M(want)) {
		t.Errorf("UnmarshalAttributes = %v, want %v", got, want)
	}
	// The decoded attributes do not alias the input, which may be a
	// driver's buffer reused for the next row.
	enc := MarshalItem(it)
	got, err = UnmarshalAttributes(enc, []string{"pk", "b", "doc"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range enc {
		enc[i] = 0
	}
	if want := (Item{"pk": S("p"), "b": B([]byte("bin")), "doc": sampleValue()}); !Equal(M(got), M(want)) {
		t.Errorf("UnmarshalAttributes aliases its input: %v", got)
	}
	got, err = UnmarshalAttributes(MarshalItem(it), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("UnmarshalAttributes(no names) = %v, %v", got, err)
	}
}

func FuzzAppendStoredJSON(f *testing.F) {
	for _, it := range storedItems()[:7] {
		f.Add(MarshalItem(it))
	}
	for _, b := range corruptStored() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkStoredReaders(t, b)
		if it, err := UnmarshalItem(b); err == nil {
			canon := MarshalItem(it)
			js, err := AppendStoredJSON(nil, canon)
			if err != nil || !bytes.Equal(js, AppendItemJSON(nil, it)) {
				t.Fatalf("%x: AppendStoredJSON of its canonical form = %s, %v; want %s", b, js, err, AppendItemJSON(nil, it))
			}
		}
	})
}

func BenchmarkAppendStoredJSON(b *testing.B) {
	enc := MarshalItem(typicalItem(b))
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendStoredJSON(buf[:0], enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAndAppendItemJSON(b *testing.B) {
	enc := MarshalItem(typicalItem(b))
	buf := make([]byte, 0, 4096)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		it, err := UnmarshalItem(enc)
		if err != nil {
			b.Fatal(err)
		}
		buf = AppendItemJSON(buf[:0], it)
	}
}
