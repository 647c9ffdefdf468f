package jsonstring

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// samples holds every ASCII byte on its own, then strings mixing escapes,
// multi-byte runes, the line and paragraph separators and invalid UTF-8.
func samples() []string {
	var out []string
	for c := range 0x80 {
		out = append(out, "a"+string(rune(c))+"z")
	}
	return append(out, "", "plain", `q" b\ <&>`, "é 😀 \u2028\u2029", "bad\xff\xfe", "cut\xe2\x80", "\\u0000")
}

// AppendHTMLSafe writes byte for byte what encoding/json.Marshal writes.
func TestAppendHTMLSafeMatchesEncodingJSON(t *testing.T) {
	for _, s := range samples() {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendHTMLSafe(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendHTMLSafe(%q) = %s, want %s", s, got, want)
		}
	}
}

// Append writes what encoding/json writes without HTML escaping, except
// \b and \f, which DynamoDB writes as \u0008 and \u000c, as internal/item's
// TestAppendJSONEscaping checks in an item. (No sample has a backslash
// before b or f, which the replacer would also rewrite.)
func TestAppendMatchesDynamoDBEscaping(t *testing.T) {
	for _, s := range samples() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.NewReplacer(`\b`, `\u0008`, `\f`, `\u000c`).Replace(strings.TrimSuffix(buf.String(), "\n"))
		if got := Append(nil, s); string(got) != want {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
		if got := Append(nil, []byte(s)); string(got) != want {
			t.Errorf("Append([]byte(%q)) = %s, want %s", s, got, want)
		}
	}
}

// Neither form allocates beyond the destination's growth.
func TestAppendDoesNotAllocate(t *testing.T) {
	dst := make([]byte, 0, 256)
	s := "q\" b\\ nl\n <&> é \u2028 bad\xff"
	if n := testing.AllocsPerRun(100, func() { _ = Append(dst[:0], s) }); n != 0 {
		t.Errorf("Append allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = AppendHTMLSafe(dst[:0], s) }); n != 0 {
		t.Errorf("AppendHTMLSafe allocates %v times", n)
	}
}
