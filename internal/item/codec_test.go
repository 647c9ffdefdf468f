package item

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestCodecRoundTrip(t *testing.T) {
	bigSS := make([]string, 5000)
	bigNS := make([]string, 5000)
	bigBS := make([][]byte, 2000)
	for i := range bigSS {
		bigSS[i] = "member-" + strconv.Itoa(i)
		bigNS[i] = strconv.Itoa(i*7 - 3000)
	}
	for i := range bigBS {
		bigBS[i] = []byte(strconv.Itoa(i))
	}
	items := []Item{
		{},
		{"pk": S("")},
		{"s": S("héllo"), "e": S(""), "n": N("-1.5"), "z": N("0"), "b": B([]byte{0, 255}), "eb": B([]byte{}), "t": Bool(true), "f": Bool(false), "null": Null()},
		{"doc": sampleValue()},
		{"ss": SS(bigSS...), "ns": NS(bigNS...), "bs": BS(bigBS...)},
		{"long": S(strings.Repeat("x", 300000))},
		{"": S("empty name")},
	}
	var deep AttributeValue = S("leaf")
	for i := 0; i < 31; i++ {
		deep = L(M(map[string]AttributeValue{"k": deep}))
	}
	items = append(items, Item{"deep": deep})
	for i, it := range items {
		enc := MarshalItem(it)
		if enc[0] != 1 {
			t.Fatalf("item %d: version byte %d", i, enc[0])
		}
		back, err := UnmarshalItem(enc)
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if !Equal(M(back), M(it)) {
			t.Fatalf("item %d: round trip differs", i)
		}
		if !bytes.Equal(MarshalItem(back), enc) {
			t.Fatalf("item %d: encoding is not deterministic", i)
		}
		if app := AppendItem([]byte("prefix"), it); string(app[:6]) != "prefix" || !bytes.Equal(app[6:], enc) {
			t.Fatalf("item %d: AppendItem differs from MarshalItem", i)
		}
	}
}

func TestCodecGolden(t *testing.T) {
	// The format is stored; this encoding must stay readable.
	it := Item{"b": B([]byte{0xAB}), "a": S("x"), "n": N("-1.5"), "l": L(Bool(true), Null()), "m": M(map[string]AttributeValue{}), "s": SS("p"), "f": Bool(false)}
	want := "01" + "07" +
		"0161" + "01" + "0178" + // a: S "x"
		"0162" + "03" + "01ab" + // b: B
		"0166" + "04" + // f: false
		"016c" + "08" + "02" + "05" + "06" + // l: [true, NULL]
		"016d" + "07" + "00" + // m: {}
		"016e" + "02" + "042d312e35" + // n: "-1.5"
		"0173" + "09" + "01" + "0170" // s: SS ["p"]
	if got := hex.EncodeToString(MarshalItem(it)); got != want {
		t.Errorf("MarshalItem = %s\nwant          %s", got, want)
	}
	b, _ := hex.DecodeString(want)
	back, err := UnmarshalItem(b)
	if err != nil || !Equal(M(back), M(it)) {
		t.Errorf("UnmarshalItem(golden) = %v, %v", back, err)
	}
}

func TestCodecSkipsInvalid(t *testing.T) {
	it := Item{"ok": S("x"), "bad": AttributeValue{S: "msg"}, "l": L(S("a"), AttributeValue{}), "m": M(map[string]AttributeValue{"bad": {}})}
	back, err := UnmarshalItem(MarshalItem(it))
	if err != nil {
		t.Fatal(err)
	}
	want := Item{"ok": S("x"), "l": L(S("a")), "m": M(map[string]AttributeValue{})}
	if !Equal(M(back), M(want)) {
		t.Errorf("got %v, want %v", back, want)
	}
}

func TestCodecBinariesDoNotAlias(t *testing.T) {
	enc := MarshalItem(Item{"a": B([]byte("aaaa")), "b": BS([]byte("bb"), []byte("cc"))})
	back, err := UnmarshalItem(enc)
	if err != nil {
		t.Fatal(err)
	}
	back["a"].B[0] = 'X'
	_ = append(back["b"].BS[0], 'Y') // capacity is capped: must not overwrite "cc"
	if string(back["b"].BS[1]) != "cc" {
		t.Error("appending to one binary overwrote another")
	}
	if enc2 := MarshalItem(Item{"a": B([]byte("aaaa")), "b": BS([]byte("bb"), []byte("cc"))}); !bytes.Equal(enc, enc2) {
		t.Error("decoded binaries alias the input")
	}
}

func TestUnmarshalItemCorrupt(t *testing.T) {
	good := MarshalItem(Item{"doc": sampleValue(), "x": SS("a", "b")})
	for _, bad := range [][]byte{nil, {}, {2}, {1}, {1, 1}, {1, 1, 1, 'a'}, {1, 1, 1, 'a', 99}, {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{1, 1, 1, 'a', tagS, 5, 'x'}, {1, 0x80}, {1, 0, 0}, {1, 1, 1, 'a', tagL, 0xff, 0xff, 0xff, 0x7f}} {
		if it, err := UnmarshalItem(bad); err == nil {
			t.Errorf("UnmarshalItem(%x) = %v, want an error", bad, it)
		}
	}
	// Every truncation and every single-byte change: an error or a value, never a panic.
	for i := 0; i < len(good); i++ {
		if _, err := UnmarshalItem(good[:i]); err == nil {
			t.Errorf("truncation at %d decoded", i)
		}
		for _, c := range []byte{0, 1, 0x7f, 0x80, 0xff, good[i] + 1} {
			b := bytes.Clone(good)
			b[i] = c
			UnmarshalItem(b)
		}
	}
	// Deep nesting is refused.
	deep := []byte{1, 1, 1, 'a'}
	for i := 0; i < 100; i++ {
		deep = append(deep, tagL, 1)
	}
	deep = append(deep, tagNULL)
	if _, err := UnmarshalItem(deep); err == nil {
		t.Error("nesting of 100 levels decoded")
	}
}

func FuzzUnmarshalItem(f *testing.F) {
	f.Add(MarshalItem(Item{"doc": sampleValue()}))
	f.Add(MarshalItem(Item{}))
	f.Add([]byte{1, 1, 1, 'a', tagS, 1, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := UnmarshalItem(b)
		if err != nil {
			return
		}
		back, err := UnmarshalItem(MarshalItem(it))
		if err != nil {
			t.Fatalf("re-encoding of %x does not decode: %v", b, err)
		}
		if len(back) != len(it) {
			t.Fatalf("re-encoding of %x changed the item", b)
		}
	})
}

func typicalItem(b testing.TB) Item {
	var it Item
	if err := it.UnmarshalJSON([]byte(typicalItemJSON)); err != nil {
		b.Fatal(err)
	}
	if err := ValidateItem(it); err != nil {
		b.Fatal(err)
	}
	return it
}

func BenchmarkMarshalItem(b *testing.B) {
	it := typicalItem(b)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(MarshalItem(it))
	}
	b.SetBytes(int64(n))
}

func BenchmarkAppendItem(b *testing.B) {
	it := typicalItem(b)
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItem(buf[:0], it)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkUnmarshalItem(b *testing.B) {
	enc := MarshalItem(typicalItem(b))
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UnmarshalItem(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSize(b *testing.B) {
	it := typicalItem(b)
	b.ReportAllocs()
	for b.Loop() {
		Size(it)
	}
}

func BenchmarkEncodeNumberKey(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	nums := make([]string, 1024)
	for i := range nums {
		nums[i] = randomNumber(r)
	}
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = AppendNumberKey(buf[:0], nums[i&1023])
		i++
	}
}
