package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// marshalled is the error body as encoding/json writes it, the reference
// appendErrorBody must match byte for byte.
func marshalled(t testing.TB, e *ddberr.Error) []byte {
	body := map[string]any{"__type": e.Type}
	if e.Message != "" {
		body["message"] = e.Message
	}
	for k, v := range e.Extra {
		body[k] = v
	}
	out, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The error body is DynamoDB's {"__type": ..., "message": ...}
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html),
// written without reflection and exactly as encoding/json wrote it before.
func TestErrorBodyMatchesEncodingJSON(t *testing.T) {
	for _, e := range []*ddberr.Error{
		ddberr.Validation("One or more parameter values were invalid: Missing the key pk in the item"),
		ddberr.Validation(`Invalid ConditionExpression: Syntax error; token: "<", near: "a <> & b"`),
		ddberr.Validation("control \x00\x01\b\f\n\r\t\x1f and \\ and \" quoted"),
		ddberr.Validation("invalid UTF-8 \xff\xfe, separators \u2028\u2029, é and 😀"),
		ddberr.UnknownOperation(),
		ddberr.ConditionalCheckFailed(),
		ddberr.ConditionalCheckFailed().With("Item", map[string]any{"pk": map[string]string{"S": "a"}}),
	} {
		got, err := appendErrorBody(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalled(t, e); !bytes.Equal(got, want) {
			t.Errorf("body of %q:\n got %s\nwant %s", e.Message, got, want)
		}
	}
}

func FuzzErrorBody(f *testing.F) {
	for _, s := range []string{"", "plain", `"<&>"`, "\x00\x7f\xff", "\u2028é", "\\u0000"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, typ, msg string) {
		e := &ddberr.Error{Type: typ, Message: msg}
		got, err := appendErrorBody(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalled(t, e); !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

// failingHandler answers every GetItem with ConditionalCheckFailedException,
// the error a conditional write sees most.
type failingHandler struct{}

func (failingHandler) Serve(context.Context, *Request) (any, error) {
	return nil, ddberr.ConditionalCheckFailed()
}
func (failingHandler) Known(_, op string) bool { return op == "GetItem" }

// errorCeiling is the most allocations a request answered with an error
// without extra members may make, the handler's error value and the test
// request's body reader included (24 when the body was a map marshalled by
// encoding/json). Measure with:
//
//	go test -run TestProtocolErrorAllocationCeiling -v ./internal/protocol/
//	go test -run X -bench ProtocolErrorResponse -benchmem ./internal/protocol/
const errorCeiling = 9

func TestProtocolErrorAllocationCeiling(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	s := &Server{Handler: failingHandler{}}
	r, reset := protocolRequest()
	w := &discardWriter{h: http.Header{}}
	got := testing.AllocsPerRun(200, func() {
		reset()
		clear(w.h)
		s.ServeHTTP(w, r)
	})
	if w.status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", w.status)
	}
	t.Logf("%.0f allocations per error response (ceiling %d)", got, errorCeiling)
	if got > errorCeiling {
		t.Errorf("the protocol allocates %.0f times per error response, ceiling %d", got, errorCeiling)
	}
}

func BenchmarkProtocolErrorResponse(b *testing.B) {
	s := &Server{Handler: failingHandler{}}
	r, reset := protocolRequest()
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		reset()
		clear(w.h)
		s.ServeHTTP(w, r)
	}
}
