package item

import (
	"strings"
	"testing"
)

// Sources cited below:
//
//	[guide]    https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
//	[capture]  nubo-db/dynoxide, CAPTURED_NUMBER_BYTES in its item-size.js: 23 number sizes measured
//	           against DynamoDB (eu-west-2, 2026-08-18) at the 409,600-byte item limit
//	[dynalite] https://github.com/architect/dynalite/blob/main/db/index.js (valSize)

func TestNumberSize(t *testing.T) {
	tests := []struct {
		n      string
		want   int
		source string
	}{
		{"0", 1, "[capture] zero"},
		{"-0", 1, "[capture] zero is never negative"},
		{"1", 2, "[capture]"},
		{"12", 2, "[capture]"},
		{"123", 3, "[capture]"},
		{"1234", 3, "[capture]"},
		{"12345678901234567890123456789012345678", 20, "[capture] 38 digits"},
		{"0042", 2, "[capture] leading zeros trimmed"},
		{"100", 2, "[capture] trailing zeros trimmed"},
		{"1010", 3, "[capture] interior zero counts"},
		{"0.0000001", 2, "[capture]"},
		{"1E125", 2, "[capture] the exponent is not counted"},
		{"1E-100", 2, "[capture]"},
		{"1.5", 3, "[capture] straddles the point"},
		{"15", 2, "[capture]"},
		{"1.2", 3, "[capture]"},
		{"1.200", 3, "[capture]"},
		{"1.234", 4, "[capture]"},
		{"3.14159", 5, "[capture] the guide's approximation says 4"},
		{"123456", 4, "[capture]"},
		{"100.5", 4, "[capture]"},
		{"0.15", 2, "[capture]"},
		{"-42", 3, "[capture] a negative number costs a byte more"},
		{"120", 3, "[dynalite] base-100 pairs: 1|20"},
		{"0.00012", 3, "[dynalite] base-100 pairs: .00|01|2"},
		{"-1", 3, "[dynalite]"},
		{"9.9999999999999999999999999999999999999E+125", 20, "[dynalite] 38 digits, leading digit at an odd exponent"},
		{"1.0000000000000000000000000000000000001", 21, "[dynalite] 38 digits, leading digit at an even exponent"},
	}
	for _, tc := range tests {
		if got := ValueSize(N(tc.n)); got != tc.want {
			t.Errorf("ValueSize(N %s) = %d, want %d (%s)", tc.n, got, tc.want, tc.source)
		}
	}
}

func TestValueSize(t *testing.T) {
	tests := []struct {
		v      AttributeValue
		want   int
		source string
	}{
		{S(""), 0, "[guide] UTF-8 bytes"},
		{S("abc"), 3, "[guide]"},
		{S("é😀"), 6, "[guide] UTF-8 bytes, not characters"},
		{B([]byte{}), 0, "[guide] raw bytes"},
		{B([]byte{1, 2, 3}), 3, "[guide] raw bytes, not base64"},
		{Bool(false), 1, "[guide]"},
		{Null(), 1, "[guide]"},
		{SS("a", "bc", ""), 3, "[dynalite] sum of members"},
		{NS("1", "-42", "1.5"), 2 + 3 + 3, "[dynalite] sum of members"},
		{BS([]byte{1}, []byte{1, 2}), 3, "[dynalite] sum of members"},
		{L(), 3, "[guide] empty list: 3 bytes"},
		{M(map[string]AttributeValue{}), 3, "[guide] empty map: 3 bytes"},
		{L(S("ab"), Null()), 3 + (1 + 2) + (1 + 1), "[guide] 1 byte per element"},
		{M(map[string]AttributeValue{"ab": S("xyz")}), 3 + 1 + 2 + 3, "[guide] names count inside maps"},
		{L(L(L())), 3 + 1 + 3 + 1 + 3, "[guide] nested"},
		{AttributeValue{}, 0, "invalid"},
	}
	for _, tc := range tests {
		if got := ValueSize(tc.v); got != tc.want {
			t.Errorf("ValueSize(%v) = %d, want %d (%s)", tc.v, got, tc.want, tc.source)
		}
	}
}

// The item limit is 400 KB = 409,600 bytes: an item of exactly that size is
// accepted and one byte more is refused ([capture]; [guide] and
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items).
func TestItemSizeAtLimit(t *testing.T) {
	const limit = 409600
	pad := limit - len("pk") - len("a1") - len("p") - len("n") - ValueSize(N("3.14159"))
	it := Item{"pk": S("a1"), "p": S(strings.Repeat("x", pad)), "π": N("3.14159")}
	it2 := Item{"pk": S("a1"), "p": S(strings.Repeat("x", pad)), "n": N("3.14159")}
	if got := Size(it2); got != limit {
		t.Errorf("Size = %d, want %d", got, limit)
	}
	// A two-byte name: one byte more than the limit.
	if got := Size(it); got != limit+1 {
		t.Errorf("Size with a two-byte name = %d, want %d", got, limit+1)
	}
	if Size(nil) != 0 {
		t.Error("Size(nil) != 0")
	}
	doc := Item{"doc": M(map[string]AttributeValue{"a": L(S("xy"), N("12")), "bb": Bool(true)})}
	// 3 (name) + 3 (map) + [1 + 1 + (3 + (1+2) + (1+2))] + [1 + 2 + 1]
	if got, want := Size(doc), 3+3+(1+1+(3+3+3))+(1+2+1); got != want {
		t.Errorf("Size(doc) = %d, want %d", got, want)
	}
}
