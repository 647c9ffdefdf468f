package item

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// Sources cited below:
//
//	[av]       https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValue.html
//	[types]    https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
//	[dynalite] https://github.com/architect/dynalite/blob/main/validations/index.js (validateAttributeValue, checkType) and test/scan.js
//	[moto]     https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/exceptions/test_dynamodb_exceptions.py (test_put_item__string_as_integer_value)
//	[alternator] https://github.com/scylladb/scylladb/blob/master/test/alternator/test_number.py (test_number_in_json)
//	[nesting]  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html ("up to 32 levels deep");
//	           boundary and message captured against DynamoDB in nubo-db/dynoxide's conformance suite (nesting-depth tests)
//	[repost]   https://repost.aws/questions/QUYa5oWJ84S6am0x3aIQcbtg (String Set duplicates message)

func decode(t *testing.T, s string) (AttributeValue, error) {
	t.Helper()
	var v AttributeValue
	err := v.UnmarshalJSON([]byte(s))
	return v, err
}

func TestUnmarshalJSONValid(t *testing.T) {
	tests := []struct {
		in     string
		want   AttributeValue
		out    string // MarshalJSON of the result
		source string
	}{
		{`{"S":"x"}`, S("x"), `{"S":"x"}`, "[av]"},
		{`{"S":""}`, S(""), `{"S":""}`, "[types] empty strings are allowed outside keys"},
		{`{"N":"1"}`, N("1"), `{"N":"1"}`, "[av]"},
		{`{"N":"1.50E2"}`, N("150"), `{"N":"150"}`, "numbers are normalised"},
		{`{"N":"-0"}`, N("0"), `{"N":"0"}`, "numbers are normalised"},
		{`{"B":"dGhpcyB0ZXh0IGlzIGJhc2U2NC1lbmNvZGVk"}`, B([]byte("this text is base64-encoded")), `{"B":"dGhpcyB0ZXh0IGlzIGJhc2U2NC1lbmNvZGVk"}`, "[av] example"},
		{`{"B":""}`, B([]byte{}), `{"B":""}`, "[types] empty binaries are allowed outside keys"},
		{`{"BOOL":true}`, Bool(true), `{"BOOL":true}`, "[av]"},
		{`{"BOOL":false}`, Bool(false), `{"BOOL":false}`, "[av]"},
		{`{"NULL":true}`, Null(), `{"NULL":true}`, "[av]"},
		{`{"M":{}}`, M(map[string]AttributeValue{}), `{"M":{}}`, "[types] empty maps are allowed"},
		{`{"L":[]}`, L(), `{"L":[]}`, "[types] empty lists are allowed"},
		{`{"M":{"Name":{"S":"Joe"},"Age":{"N":"35"}}}`, M(map[string]AttributeValue{"Name": S("Joe"), "Age": N("35")}), `{"M":{"Age":{"N":"35"},"Name":{"S":"Joe"}}}`, "[av] example"},
		{`{"L":[{"S":"Cookies"},{"S":"Coffee"},{"N":"3.14159"}]}`, L(S("Cookies"), S("Coffee"), N("3.14159")), `{"L":[{"S":"Cookies"},{"S":"Coffee"},{"N":"3.14159"}]}`, "[av] example"},
		{`{"SS":["Giraffe","Hippo","Zebra"]}`, SS("Giraffe", "Hippo", "Zebra"), `{"SS":["Giraffe","Hippo","Zebra"]}`, "[av] example; order kept"},
		{`{"SS":["b",""]}`, SS("b", ""), `{"SS":["b",""]}`, "[types] empty strings are allowed within sets"},
		{`{"NS":["42.2","-19","7.5","3.14"]}`, NS("42.2", "-19", "7.5", "3.14"), `{"NS":["42.2","-19","7.5","3.14"]}`, "[av] example"},
		{`{"NS":["1e2","0.50"]}`, NS("100", "0.5"), `{"NS":["100","0.5"]}`, "set members are normalised"},
		{`{"BS":["U3Vubnk=","UmFpbnk=","U25vd3k="]}`, BS([]byte("Sunny"), []byte("Rainy"), []byte("Snowy")), `{"BS":["U3Vubnk=","UmFpbnk=","U25vd3k="]}`, "[av] example"},
		{` { "S" : "a\"b\\c\/\n\u00e9\ud83d\ude00" } `, S("a\"b\\c/\né😀"), `{"S":"a\"b\\c/\né😀"}`, "JSON escapes"},
		{`{"S":"\ud800x"}`, S("\uFFFDx"), `{"S":"�x"}`, "a lone surrogate becomes U+FFFD, as in encoding/json"},
		{"{\"S\":\"a\xffb\"}", S("a\uFFFDb"), `{"S":"a�b"}`, "invalid UTF-8 becomes U+FFFD, as in encoding/json"},
		{`{"S":"x","Unknown":{"deep":[1,2,{"a":null}]}}`, S("x"), `{"S":"x"}`, "[dynalite] unknown members are ignored"},
		{`{"S":"x","N":null}`, S("x"), `{"S":"x"}`, "[dynalite] null members are absent"},
		{`{"L":[null,{"S":"a"}]}`, L(S("a")), `{"L":[{"S":"a"}]}`, "null list elements are dropped"},
		{`{"M":{"a":null,"b":{"BOOL":true}}}`, M(map[string]AttributeValue{"b": Bool(true)}), `{"M":{"b":{"BOOL":true}}}`, "null map members are dropped"},
		{`{"SS":["a",null]}`, SS("a"), `{"SS":["a"]}`, "null set members are dropped"},
	}
	for _, tc := range tests {
		v, err := decode(t, tc.in)
		if err != nil {
			t.Errorf("decode %s: %v (%s)", tc.in, err, tc.source)
			continue
		}
		if err := Validate(v); err != nil {
			t.Errorf("Validate(%s): %v (%s)", tc.in, err, tc.source)
		}
		if !Equal(v, tc.want) {
			t.Errorf("decode %s = %#v, want %#v (%s)", tc.in, v, tc.want, tc.source)
		}
		out, _ := v.MarshalJSON()
		if string(out) != tc.out {
			t.Errorf("MarshalJSON(decode %s) = %s, want %s", tc.in, out, tc.out)
		}
	}
}

func TestUnmarshalJSONInvalidValues(t *testing.T) {
	deep := func(levels int) string { // levels M wraps around a leaf: the leaf is at level levels+1
		return strings.Repeat(`{"M":{"n":`, levels) + `{"S":"leaf"}` + strings.Repeat(`}}`, levels)
	}
	deepList := func(levels int) string {
		return strings.Repeat(`{"L":[`, levels) + `{"S":"leaf"}` + strings.Repeat(`]}`, levels)
	}
	tests := []struct{ in, want, source string }{
		{`{}`, msgEmptyValue, "[dynalite] test/scan.js"},
		{`{"a":""}`, msgEmptyValue, "[dynalite] test/scan.js: unknown members are ignored"},
		{`{"S":null}`, msgEmptyValue, "null members are absent"},
		{`{"S":"a","N":"1"}`, msgMultipleTypes, "[dynalite] test/scan.js"},
		{`{"NULL":true,"BOOL":false}`, msgMultipleTypes, "[dynalite]"},
		{`{"NULL":false}`, msgNullNotTrue, "[dynalite] test/scan.js"},
		{`{"SS":[]}`, msgEmptySS, "[dynalite] test/scan.js (the double space and article are DynamoDB's)"},
		{`{"NS":[]}`, msgEmptyNS, "[dynalite] test/scan.js"},
		{`{"BS":[]}`, msgEmptyBS, "[dynalite] test/scan.js"},
		{`{"SS":["a","a"]}`, "One or more parameter values were invalid: Input collection [a, a] contains duplicates.", "[dynalite] test/scan.js; [repost]"},
		{`{"SS":["0","1","0"]}`, "One or more parameter values were invalid: Input collection [0, 1, 0] contains duplicates.", "[repost]"},
		{`{"BS":["Yg==","Yg=="]}`, "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates.", "[dynalite] test/scan.js"},
		{`{"NS":["1","1"]}`, msgDuplicateNS, "[dynalite] test/scan.js"},
		{`{"NS":["1","1.0"]}`, msgDuplicateNS, "[dynalite] members are compared as numbers"},
		{`{"N":""}`, msgNumberSyntax, "[dynalite] test/scan.js"},
		{`{"N":"b"}`, msgNumberSyntax + ": b", "[dynalite] test/scan.js"},
		{`{"NS":["1",""]}`, msgNumberSyntax, "[dynalite] test/scan.js"},
		{`{"NS":["1","b"]}`, msgNumberSyntax + ": b", "[dynalite] test/scan.js"},
		{`{"N":"1e126"}`, msgNumberOverflow, "[dynalite] test/scan.js"},
		{`{"N":"1e-131"}`, msgNumberUnderflow, "[dynalite] test/scan.js"},
		{`{"N":"123456789012345678901234567890123456789"}`, msgNumberPrecision, "[dynalite] test/scan.js"},
		{`{"S":"a","N":"b"}`, msgNumberSyntax + ": b", "[dynalite] test/scan.js: a bad member is reported before the second type"},
		{`{"N":"b","NULL":false}`, msgNumberSyntax + ": b", "[dynalite] members are checked in order"},
		{`{"NULL":false,"N":"b"}`, msgNullNotTrue, "[dynalite] members are checked in order"},
		{`{"M":{"a":{}}}`, msgEmptyValue, "[dynalite] test/scan.js: nested values are validated"},
		{`{"L":[{}]}`, msgEmptyValue, "[dynalite] test/scan.js"},
		{`{"L":[{"S":"ok"},{"NULL":false},{}]}`, msgNullNotTrue, "the first invalid element is reported"},
		{`{"M":{"x":{"L":[{"N":"1e999"}]}}}`, msgNumberOverflow, "nested deeply"},
		{deep(32), msgNestingTooDeep, "[nesting] a leaf at level 33"},
		{deepList(32), msgNestingTooDeep, "[nesting] lists count as maps do"},
		{`{"L":[` + deep(31) + `]}`, msgNestingTooDeep, "[nesting]"},
		{strings.Repeat(`{"M":{"n":`, 32) + `{"M":{}}` + strings.Repeat(`}}`, 32), msgNestingTooDeep, "[nesting] an empty map at level 33"},
	}
	for _, tc := range tests {
		v, err := decode(t, tc.in)
		if err != nil {
			t.Errorf("decode %s: %v, want a TypeInvalid value (%s)", tc.in, err, tc.source)
			continue
		}
		if v.Type != TypeInvalid || v.S != tc.want {
			t.Errorf("decode %s = %v %q, want TypeInvalid %q (%s)", tc.in, v.Type, v.S, tc.want, tc.source)
		}
		if msg := validationMessage(t, Validate(v)); msg != tc.want {
			t.Errorf("Validate(decode %s) = %q, want %q", tc.in, msg, tc.want)
		}
	}
	for _, ok := range []string{deep(31), deepList(31), `{"L":[` + deep(30) + `]}`, strings.Repeat(`{"M":{"n":`, 31) + `{"M":{}}` + strings.Repeat(`}}`, 31)} {
		v, err := decode(t, ok)
		if err != nil || Validate(v) != nil {
			t.Errorf("decode %.60s...: %v, %v; want a valid value ([nesting] a value at level 32 is accepted)", ok, err, Validate(v))
		}
	}
}

func TestUnmarshalJSONSerializationErrors(t *testing.T) {
	tests := []struct{ in, want, source string }{
		{`{"S":1}`, "NUMBER_VALUE cannot be converted to String", "[moto]"},
		{`{"N":123}`, "NUMBER_VALUE cannot be converted to String", "[alternator] test_number_in_json; [moto]"},
		{`{"S":{"S":"asdf"}}`, msgStartOfMap, "[moto]"},
		{`{"S":true}`, "TRUE_VALUE cannot be converted to String", "same framework wording"},
		{`{"S":false}`, "FALSE_VALUE cannot be converted to String", "same framework wording"},
		{`{"S":["a"]}`, msgStartOfList, "[dynalite] checkType"},
		{`{"BOOL":"true"}`, "STRING_VALUE cannot be converted to Boolean", "same framework wording"},
		{`{"NULL":1}`, "NUMBER_VALUE cannot be converted to Boolean", "same framework wording"},
		{`{"M":[]}`, msgStartOfList, "[dynalite] checkType"},
		{`{"M":"x"}`, msgExpectMap, "[dynalite] checkType"},
		{`{"L":{}}`, msgStartOfMap, "[dynalite] checkType"},
		{`{"L":1}`, msgExpectList, "[dynalite] checkType"},
		{`{"SS":"a"}`, msgExpectList, "[dynalite] checkType"},
		{`{"SS":[1]}`, "NUMBER_VALUE cannot be converted to String", "[moto]"},
		{`{"NS":[1]}`, "NUMBER_VALUE cannot be converted to String", "[alternator]"},
		{`{"L":["x"]}`, msgExpectNull, "[dynalite] checkType: a scalar where a structure is expected"},
		{`"x"`, msgExpectNull, "[dynalite] checkType"},
		{`1`, msgExpectNull, "[dynalite] checkType"},
		{`[]`, msgStartOfList, "[dynalite] checkType"},
		{`{"B":"abc"}`, "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3", "[dynalite] checkType 'Blob'"},
		{`{"B":"ab!="}`, "'ab!=' can not be converted to a Blob: Invalid Base64 character: '!'", "[dynalite] checkType 'Blob'"},
		{`{"B":"a=bc"}`, "'a=bc' can not be converted to a Blob: Invalid Base64 character: '='", "[dynalite] checkType 'Blob'"},
		{`{"B":"YR=="}`, "'YR==' can not be converted to a Blob: Invalid last non-pad Base64 character dectected", "[dynalite] checkType 'Blob' (DynamoDB's spelling)"},
		{`{"BS":["YQ==","!!!!"]}`, "'!!!!' can not be converted to a Blob: Invalid Base64 character: '!'", "[dynalite]"},
		{`{"B":1}`, "NUMBER_VALUE cannot be converted to Blob", "same framework wording"},
	}
	for _, tc := range tests {
		_, err := decode(t, tc.in)
		var e *ddberr.Error
		if !errors.As(err, &e) || e.Name() != "SerializationException" {
			t.Errorf("decode %s: %v, want SerializationException (%s)", tc.in, err, tc.source)
			continue
		}
		if e.Message != tc.want {
			t.Errorf("decode %s: %q, want %q (%s)", tc.in, e.Message, tc.want, tc.source)
		}
	}
	for _, bad := range []string{``, `{`, `{"S"`, `{"S":`, `{"S":"x"`, `{"S":"x",}`, `{"S":"x"}x`, `{"S":"x"}}`, `{S:"x"}`, `{"S":"x\q"}`,
		"{\"S\":\"a\x01\"}", `{"N":"1}`, `{"L":[{"S":"a"},]}`, `{"M":{"a"}}`, `{"x":01}`, `{"x":-}`, `{"x":1.}`, `{"x":1e}`, `{"x":tru}`, `{"x":nul}`,
		`{"S":"\u12"}`, `{"L":[` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `]}`, `nul`, `null x`} {
		_, err := decode(t, bad)
		var e *ddberr.Error
		if !errors.As(err, &e) || e.Name() != "SerializationException" {
			t.Errorf("decode %.40q: %v, want SerializationException", bad, err)
		}
		if json.Valid([]byte(bad)) && !strings.Contains(bad, "[[[") {
			t.Errorf("test input %q is valid JSON", bad)
		}
	}
}

func TestUnmarshalJSONNull(t *testing.T) {
	v := S("keep")
	if err := v.UnmarshalJSON([]byte(" null ")); err != nil || !Equal(v, S("keep")) {
		t.Errorf("UnmarshalJSON(null) = %v, %v; want no change", v, err)
	}
	var it Item
	if err := it.UnmarshalJSON([]byte("null")); err != nil || it != nil {
		t.Errorf("Item.UnmarshalJSON(null) = %v, %v", it, err)
	}
}

func TestItemJSON(t *testing.T) {
	in := `{"id":{"S":"a1"},"n":{"N":"01.10"},"gone":null,"bad":{"NULL":false},"tags":{"SS":["x","y"]},"doc":{"M":{"k":{"L":[{"BOOL":true}]}}}}`
	var it Item
	if err := json.Unmarshal([]byte(in), &it); err != nil {
		t.Fatal(err)
	}
	if _, ok := it["gone"]; ok || len(it) != 5 {
		t.Errorf("decoded item %v: null attributes must be left out", it)
	}
	if it["n"].S != "1.1" {
		t.Errorf("n = %q, want 1.1", it["n"].S)
	}
	if msg := validationMessage(t, ValidateItem(it)); msg != msgNullNotTrue {
		t.Errorf("ValidateItem = %q, want %q", msg, msgNullNotTrue)
	}
	delete(it, "bad")
	if err := ValidateItem(it); err != nil {
		t.Error(err)
	}
	want := `{"doc":{"M":{"k":{"L":[{"BOOL":true}]}}},"id":{"S":"a1"},"n":{"N":"1.1"},"tags":{"SS":["x","y"]}}`
	if got := string(AppendItemJSON(nil, it)); got != want {
		t.Errorf("AppendItemJSON = %s, want %s", got, want)
	}
	if got, _ := json.Marshal(it); string(got) != want {
		t.Errorf("json.Marshal(Item) = %s, want %s", got, want)
	}
	// Through encoding/json, value by value.
	var m map[string]AttributeValue
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if !Equal(m["doc"], it["doc"]) || m["n"].S != "1.1" {
		t.Errorf("map decode differs: %v", m)
	}
	var nilItem Item
	if got, _ := json.Marshal(nilItem); string(got) != "null" {
		t.Errorf("json.Marshal(nil Item) = %s", got)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"a":"x"}`, `{"a":{"S":1}}`} {
		var it Item
		if err := it.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("Item.UnmarshalJSON(%s) succeeded", bad)
		}
	}
}

func TestAppendJSONEscaping(t *testing.T) {
	s := "q\" b\\ nl\n cr\r tab\t nul\x00 bell\x07 del\x7f <&> é 😀 \u2028\u2029 bad\xff"
	out := AppendJSON(nil, S(s))
	if !json.Valid(out) {
		t.Fatalf("invalid JSON %q", out)
	}
	want := `{"S":"q\" b\\ nl\n cr\r tab\t nul\u0000 bell\u0007 del` + "\x7f" + ` <&> é 😀 \u2028\u2029 bad\ufffd"}`
	if string(out) != want {
		t.Errorf("AppendJSON = %s\nwant          %s", out, want)
	}
	var back struct{ S string }
	if err := json.Unmarshal(out, &back); err != nil || back.S != strings.ReplaceAll(s, "\xff", "\uFFFD") {
		t.Errorf("encoding/json reads back %q, %v", back.S, err)
	}
	if got := string(AppendJSON(nil, AttributeValue{Type: TypeInvalid, S: "x"})); got != "{}" {
		t.Errorf("invalid value encodes as %s", got)
	}
}

func TestJSONRoundTripAllTypes(t *testing.T) {
	v := sampleValue()
	out, err := v.MarshalJSON()
	if err != nil || !json.Valid(out) {
		t.Fatalf("MarshalJSON: %s, %v", out, err)
	}
	back, err := decode(t, string(out))
	if err != nil || !Equal(back, v) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	again, _ := back.MarshalJSON()
	if !bytes.Equal(out, again) {
		t.Errorf("encoding is not deterministic:\n%s\n%s", out, again)
	}
}

// sampleValue holds every type, nested.
func sampleValue() AttributeValue {
	return M(map[string]AttributeValue{
		"s": S("text"), "empty": S(""), "n": N("-12.5"), "b": B([]byte{0, 1, 2, 255}), "eb": B([]byte{}),
		"t": Bool(true), "f": Bool(false), "null": Null(),
		"l":  L(S("a"), N("1"), L(), M(map[string]AttributeValue{})),
		"ss": SS("x", "", "y"), "ns": NS("1", "-2.5", "0.000001"), "bs": BS([]byte("a"), []byte{}, []byte{0xff}),
		"m": M(map[string]AttributeValue{"deep": L(L(L(S("bottom"))))}),
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	seeds := []string{`{"S":"x"}`, `{"N":"1.50E2"}`, `{"B":"YQ=="}`, `{"BOOL":true}`, `{"NULL":true}`, `{"M":{"a":{"L":[{"SS":["a","b"]}]}}}`,
		`{"NS":["1","2"]}`, `{"BS":["YQ==","Yg=="]}`, `{}`, `{"S":1}`, `{"SS":["a","a"]}`, `{"S":"\ud83d\ude00"}`, `null`}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var v AttributeValue
		err := v.UnmarshalJSON(in)
		if err != nil {
			var e *ddberr.Error
			if !errors.As(err, &e) || e.Name() != "SerializationException" {
				t.Fatalf("error %v is not a SerializationException", err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
		if Validate(v) != nil {
			return
		}
		out := AppendJSON(nil, v)
		var back AttributeValue
		if err := back.UnmarshalJSON(out); err != nil || Validate(back) != nil || !Equal(back, v) {
			t.Fatalf("round trip of %q through %q: %v, %v", in, out, err, Validate(back))
		}
		if again := AppendJSON(nil, back); !bytes.Equal(again, out) {
			t.Fatalf("re-encoding differs: %q vs %q", out, again)
		}
		if b, err := UnmarshalItem(MarshalItem(Item{"v": v})); err != nil || !Equal(b["v"], v) {
			t.Fatalf("codec round trip of %q: %v", in, err)
		}
	})
}

// typicalItemJSON is a ~1 KB item of the usual mix of types.
const typicalItemJSON = `{"pk":{"S":"USER#8f14e45f-ceea-467a-9af9-3ac4b2d1c2e7"},"sk":{"S":"PROFILE#2024-05-17T10:31:22.123Z"},` +
	`"email":{"S":"jane.doe@example.com"},"name":{"S":"Jane Doe"},"age":{"N":"34"},"balance":{"N":"1024.75"},` +
	`"active":{"BOOL":true},"deleted":{"NULL":true},"createdAt":{"N":"1715941882"},"score":{"N":"-0.000123"},` +
	`"tags":{"SS":["admin","beta","early-adopter","newsletter"]},"lucky":{"NS":["7","13","42","1e3"]},` +
	`"avatar":{"B":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="},` +
	`"address":{"M":{"street":{"S":"123 Main St"},"city":{"S":"Springfield"},"zip":{"S":"12345"},"geo":{"M":{"lat":{"N":"37.7749"},"lng":{"N":"-122.4194"}}}}},` +
	`"orders":{"L":[{"M":{"id":{"S":"o-1001"},"total":{"N":"99.95"},"items":{"N":"3"}}},{"M":{"id":{"S":"o-1002"},"total":{"N":"15"},"items":{"N":"1"}}}]},` +
	`"prefs":{"M":{"theme":{"S":"dark"},"lang":{"S":"en-US"},"notify":{"BOOL":false}}},` +
	`"bio":{"S":"Software engineer who enjoys hiking, photography and long walks on the beach. Loves \"quotes\" and unicode: caf\u00e9."},` +
	`"history":{"L":[{"N":"1"},{"N":"2"},{"N":"3"},{"S":"four"},{"BOOL":true}]}}`

func BenchmarkUnmarshalJSONItem(b *testing.B) {
	data := []byte(typicalItemJSON)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var it Item
		if err := it.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalJSONViaEncodingJSON(b *testing.B) {
	data := []byte(typicalItemJSON)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]AttributeValue
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendItemJSON(b *testing.B) {
	var it Item
	if err := it.UnmarshalJSON([]byte(typicalItemJSON)); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendItemJSON(buf[:0], it)
	}
	b.SetBytes(int64(len(buf)))
}

func TestValidateBuiltValues(t *testing.T) {
	var deep AttributeValue = S("leaf")
	for i := 0; i < 32; i++ {
		deep = L(deep)
	}
	tests := []struct {
		v    AttributeValue
		want string
	}{
		{S("x"), ""},
		{AttributeValue{Type: TypeNULL}, ""},
		{SS(), msgEmptySS},
		{NS(), msgEmptyNS},
		{BS(), msgEmptyBS},
		{AttributeValue{}, msgEmptyValue},
		{AttributeValue{Type: 99}, msgEmptyValue},
		{M(map[string]AttributeValue{"a": L(SS())}), msgEmptySS},
		{deep, msgNestingTooDeep},
		{deep.L[0], ""},
	}
	for _, tc := range tests {
		err := Validate(tc.v)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Validate(%v) = %v", tc.v, err)
			}
			continue
		}
		if msg := validationMessage(t, err); msg != tc.want {
			t.Errorf("Validate(%v) = %q, want %q", tc.v, msg, tc.want)
		}
	}
	it := Item{"b": SS(), "a": NS(), "c": S("ok")}
	for i := 0; i < 20; i++ {
		if msg := validationMessage(t, ValidateItem(it)); msg != msgEmptyNS {
			t.Fatalf("ValidateItem reports %q, want the smallest name's message", msg)
		}
	}
	if ValidateItem(nil) != nil {
		t.Error("ValidateItem(nil) failed")
	}
}
