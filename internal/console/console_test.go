package console

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Plain JSON becomes DynamoDB JSON type by type, and back.
func TestPlainJSONRoundTrip(t *testing.T) {
	item, err := parseObject(`{"s": "a", "n": 12.50, "b": true, "z": null, "l": [1, "x"], "m": {"k": [false]}}`, formatPlain)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":{"BOOL":true},"l":{"L":[{"N":"1"},{"S":"x"}]},"m":{"M":{"k":{"L":[{"BOOL":false}]}}},"n":{"N":"12.50"},"s":{"S":"a"},"z":{"NULL":true}}`
	if got := compact(item); got != want {
		t.Fatalf("plain to DynamoDB JSON:\n got %s\nwant %s", got, want)
	}
	if got := compact(plainItem(item)); got != `{"b":true,"l":[1,"x"],"m":{"k":[false]},"n":12.50,"s":"a","z":null}` {
		t.Fatalf("DynamoDB JSON to plain: %s", got)
	}
	sets, _ := parseObject(`{"ss": {"SS": ["a"]}, "ns": {"NS": ["1", "2"]}}`, formatDynamoDB)
	if got := compact(plainItem(sets)); got != `{"ns":[1,2],"ss":["a"]}` {
		t.Fatalf("sets as plain JSON: %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		`[1]`:     "the text must be a JSON object",
		`{"a":`:   "the text is not valid JSON: unexpected EOF",
		`{} {}`:   "the text is not valid JSON: more than one value",
		`{"a": 1`: "the text is not valid JSON: unexpected EOF",
	} {
		if _, err := parseObject(text, formatPlain); err == nil || err.Error() != want {
			t.Errorf("parseObject(%q) = %v, want %q", text, err, want)
		}
	}
	if _, err := parseList(`{"a": 1}`, formatPlain); err == nil || err.Error() != "the parameters must be a JSON array" {
		t.Errorf("parseList of an object: %v", err)
	}
	if _, err := decodeKey("not base64!"); err == nil {
		t.Error("decodeKey accepted a bad token")
	}
}

// A page token carries LastEvaluatedKey exactly.
func TestKeyTokenRoundTrip(t *testing.T) {
	key := map[string]any{"pk": map[string]any{"S": "a/b?c"}, "sk": map[string]any{"N": json.Number("1e3")}}
	got, err := decodeKey(encodeKey(key))
	if err != nil || !reflect.DeepEqual(got, key) {
		t.Fatalf("decodeKey(encodeKey(%v)) = %v, %v", key, got, err)
	}
}

// The create form makes CreateTable's input: attribute definitions once
// per attribute, indexes only where named, throughput only when
// provisioned.
func TestCreateInput(t *testing.T) {
	f := createDefaults()
	for k, v := range map[string]string{"name": "T1", "pk": "pk", "sk": "sk", "g0name": "G", "g0pk": "sk", "g0sk": "n", "g0sktype": "N", "l0name": "L", "l0sk": "n", "l0sktype": "N", "stream": "KEYS_ONLY"} {
		f[k] = v
	}
	got := compact(createInput(f))
	want := `{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"}],` +
		`"BillingMode":"PAY_PER_REQUEST",` +
		`"GlobalSecondaryIndexes":[{"IndexName":"G","KeySchema":[{"AttributeName":"sk","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],` +
		`"LocalSecondaryIndexes":[{"IndexName":"L","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],` +
		`"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"TableName":"T1"}`
	if got != want {
		t.Fatalf("createInput:\n got %s\nwant %s", got, want)
	}
	f["billing"] = "PROVISIONED"
	if got := compact(createInput(f)); !strings.Contains(got, `"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}`) {
		t.Fatalf("provisioned createInput: %s", got)
	}
}

// The charts' series puts each second's requests in its 5-second point
// and forgets what is older than the span.
func TestRatesSeries(t *testing.T) {
	r := NewRates()
	now := time.Unix(1_000_000, 0)
	r.Observe(now, 200, 2*time.Millisecond)
	r.Observe(now, 400, 4*time.Millisecond)
	r.Observe(now.Add(-7*time.Second), 200, time.Millisecond)
	r.Observe(now.Add(-chartSpan-time.Second), 200, time.Millisecond) // too old
	pts := r.series(now)
	last, prev := pts[chartPoints-1], pts[chartPoints-2]
	if last.requests != 2 || last.errors != 1 || last.latency != 6*time.Millisecond || prev.requests != 1 {
		t.Fatalf("series ends %+v, %+v", prev, last)
	}
	var total int64
	for _, p := range pts {
		total += p.requests
	}
	if total != 3 {
		t.Fatalf("series holds %d requests, want 3", total)
	}
}

// Every page template renders with an empty page.
func TestTemplatesRender(t *testing.T) {
	c := New(Config{})
	s := &session{csrf: "tok"}
	for _, name := range pageNames {
		w := httptest.NewRecorder()
		c.render(w, httptest.NewRequest("GET", "/console/", nil), s, 200, name, page{Title: "T"})
		if w.Code != 200 || !strings.Contains(w.Body.String(), "<h1>T</h1>") {
			t.Errorf("page %s: %d %s", name, w.Code, w.Body.String())
		}
	}
}

// Sessions beyond the cap push out the least recently used one.
func TestSessionsEvict(t *testing.T) {
	ss := newSessions()
	w := httptest.NewRecorder()
	first := ss.create(w, false)
	first.lastUsed = time.Now().Add(-time.Hour)
	for range maxSessions {
		ss.create(w, false)
	}
	if len(ss.byID) != maxSessions || ss.byID[first.id] != nil {
		t.Fatalf("%d sessions, the oldest kept: %v", len(ss.byID), ss.byID[first.id] != nil)
	}
}

func TestPlainSafe(t *testing.T) {
	for text, want := range map[string]bool{
		`{"M": {"a": {"S": "x"}, "l": {"L": [{"N": "1"}]}}}`: true,
		`{"M": {"a": {"L": [{"SS": ["x"]}]}}}`:               false,
		`{"M": {"m": {"M": {"b": {"B": "AA=="}}}}}`:          false,
	} {
		v, _ := decodeJSON(text)
		if plainSafe(v) != want {
			t.Errorf("plainSafe(%s) = %v", text, !want)
		}
	}
}

// BenchmarkRatesObserve is what --console adds to every API request.
func BenchmarkRatesObserve(b *testing.B) {
	r := NewRates()
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		r.Observe(now, 200, time.Millisecond)
	}
}

// Signing in renews the session id and CSRF token: the ones known before
// are worth nothing after.
func TestSignInRenewsSession(t *testing.T) {
	ss := newSessions()
	s := ss.create(httptest.NewRecorder(), false)
	oldID, oldToken := s.id, s.csrfToken()
	w := httptest.NewRecorder()
	ss.signIn(w, s, identity{keyID: "AKID"}, false)
	if s.id == oldID || s.csrfToken() == oldToken || ss.byID[oldID] != nil || ss.byID[s.id] != s || !s.signedIn() {
		t.Fatalf("after signing in: id renewed %v, token renewed %v", s.id != oldID, s.csrfToken() != oldToken)
	}
	if c := w.Result().Cookies(); len(c) != 1 || c[0].Value != s.id || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", c)
	}
}
