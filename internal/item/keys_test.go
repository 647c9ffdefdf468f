package item

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Key order must be DynamoDB's: numeric for N, UTF-8 bytes for S, unsigned
// bytes for B.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-ScanIndexForward

func TestNumberKeyGolden(t *testing.T) {
	// The encoding is stored; these bytes must never change.
	tests := []struct{ n, hex string }{
		{"0", "02"},
		{"1", "03820b00"},
		{"10", "03830b00"},
		{"1.5", "03821000"},
		{"15", "03831000"},
		{"123", "03840d1f00"},
		{"0.05", "038033" + "00"},
		{"-1", "017df4ff"},
		{"-1.5", "017defff"},
		{"-123", "017bf2e0ff"},
		{"1e-130", "03000b00"},
		{"-1e-130", "01fff4ff"},
		{"9.9999999999999999999999999999999999999e125", "03ff" + strings.Repeat("64", 19) + "00"},
	}
	for _, tc := range tests {
		got := hex.EncodeToString(EncodeKey(N(tc.n)))
		if got != tc.hex {
			t.Errorf("EncodeKey(N %s) = %s, want %s", tc.n, got, tc.hex)
		}
	}
}

func TestNumberKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nums := []string{"0", "1", "10", "1.5", "15", "-1", "-10", "-1.5", "0.12", "0.123", "-0.12", "-0.123", "9", "11", "-9", "-11",
		"1e-130", "-1e-130", "9.9999999999999999999999999999999999999e125", "-9.9999999999999999999999999999999999999e125"}
	for i := 0; i < 5000; i++ {
		n := randomNumber(r)
		nums = append(nums, n)
		if r.IntN(3) == 0 { // neighbours: prefixes and extensions of n
			if m, err := AddNumbers(n, "1"); err == nil {
				nums = append(nums, m)
			}
			if strings.Contains(n, ".") && len(n) > 3 {
				if m, err := ParseNumber(strings.TrimRight(n[:len(n)-1], "0.")); err == nil {
					nums = append(nums, m)
				}
			}
		}
	}
	for i, n := range nums {
		c, err := ParseNumber(n)
		if err != nil || c == "" {
			t.Fatalf("bad test number %q: %v", n, err)
		}
		nums[i] = c
	}
	byNumber := slices.Clone(nums)
	slices.SortStableFunc(byNumber, CompareNumbers)
	byKey := slices.Clone(nums)
	slices.SortStableFunc(byKey, func(a, b string) int { return bytes.Compare(EncodeKey(N(a)), EncodeKey(N(b))) })
	for i := range byNumber {
		if CompareNumbers(byNumber[i], byKey[i]) != 0 {
			t.Fatalf("order differs at %d: by number %s, by key %s", i, byNumber[i], byKey[i])
		}
	}
	for _, n := range nums {
		k := EncodeKey(N(n))
		back, err := DecodeKey(TypeN, k)
		if err != nil || back.Type != TypeN || back.S != n {
			t.Fatalf("DecodeKey(EncodeKey(%s)) = %v, %v", n, back, err)
		}
		for _, m := range nums[:50] {
			if km := EncodeKey(N(m)); m != n && (bytes.HasPrefix(k, km) || bytes.HasPrefix(km, k)) {
				t.Fatalf("keys of %s and %s are prefixes of each other", n, m)
			}
		}
	}
}

func TestStringAndBinaryKeys(t *testing.T) {
	strs := []string{"", "a", "ab", "b", "Z", "é", "\uFFFF", "😀", "a\x00"}
	slices.SortFunc(strs, func(a, b string) int { c, _ := Compare(S(a), S(b)); return c })
	for i := 1; i < len(strs); i++ {
		if bytes.Compare(EncodeKey(S(strs[i-1])), EncodeKey(S(strs[i]))) >= 0 {
			t.Errorf("key of %q does not sort before %q", strs[i-1], strs[i])
		}
	}
	for _, s := range strs {
		if v, err := DecodeKey(TypeS, EncodeKey(S(s))); err != nil || v.S != s || v.Type != TypeS {
			t.Errorf("S round trip of %q: %v, %v", s, v, err)
		}
	}
	bin := []byte{0x00, 0x7f, 0x80, 0xff}
	k := EncodeKey(B(bin))
	bin[0] = 9
	if k[0] != 0 {
		t.Error("EncodeKey(B) aliases the value")
	}
	if v, err := DecodeKey(TypeB, k); err != nil || !bytes.Equal(v.B, []byte{0x00, 0x7f, 0x80, 0xff}) {
		t.Errorf("B round trip: %v, %v", v, err)
	}
	if EncodeKey(Bool(true)) != nil || EncodeKey(SS("a")) != nil {
		t.Error("EncodeKey of a non-key type is not nil")
	}
	if _, err := DecodeKey(TypeM, nil); err == nil {
		t.Error("DecodeKey(TypeM) succeeded")
	}
}

func TestDecodeKeyCorrupt(t *testing.T) {
	for _, h := range []string{"", "00", "03", "0381", "038100", "03810b", "03810b01", "0381650b00", "03810a00", "017df4", "017df400",
		"017d9aff", "0302", "04810b00", "03810b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b00", "0381000b00"} {
		b, _ := hex.DecodeString(h)
		if v, err := DecodeKey(TypeN, b); err == nil {
			t.Errorf("DecodeKey(N, %s) = %v, want an error", h, v)
		}
	}
}

func TestPartitionHash(t *testing.T) {
	// Stored ordering depends on these values; they must never change.
	golden := []struct {
		key  string
		want uint32
	}{
		{"", 0xefd01f60},
		{"a", 0x82a2a958},
		{"user#1", 0xcbd95cfe},
		{"\x03\x81\x0b\x00", 0x52a9ee32},
	}
	for _, g := range golden {
		if got := PartitionHash([]byte(g.key)); got != g.want {
			t.Errorf("PartitionHash(%q) = %#x, want %#x", g.key, got, g.want)
		}
	}
	// Spread: sequential keys fill 16 buckets evenly.
	for _, key := range []func(int) []byte{
		func(i int) []byte { return EncodeKey(N(strconv.Itoa(i))) },
		func(i int) []byte { return EncodeKey(S("user#" + strconv.Itoa(i))) },
	} {
		var buckets [16]int
		for i := 0; i < 16000; i++ {
			buckets[PartitionHash(key(i))>>28]++
		}
		for i, n := range buckets {
			if n < 850 || n > 1150 {
				t.Errorf("bucket %d holds %d of 16000 keys", i, n)
			}
		}
	}
}
