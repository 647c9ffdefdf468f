package protocol

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
)

// fixedResponse encodes itself as a GetItem answer of a small item.
type fixedResponse struct{}

func (fixedResponse) AppendJSON(dst []byte) []byte {
	return append(dst, `{"Item":{"pk":{"S":"user#1"},"n":{"N":"42"},"s":{"S":"hello"}}}`...)
}

// fixedHandler answers GetItem with fixedResponse, so what is measured is
// the protocol's own work: headers, body, target, JSON check, encoding.
type fixedHandler struct{}

func (fixedHandler) Serve(context.Context, *Request) (any, error) { return fixedResponse{}, nil }
func (fixedHandler) Known(_, op string) bool                      { return op == "GetItem" }

// discardWriter is a ResponseWriter that keeps its header map between
// requests and throws the body away, so the test counts the server's
// allocations and not a recorder's.
type discardWriter struct {
	h      http.Header
	status int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(status int)      { d.status = status }

// protocolRequest is a signed GetItem as an SDK sends it; reset rewinds its
// body for the next round.
func protocolRequest() (r *http.Request, reset func()) {
	body := []byte(`{"TableName":"t","Key":{"pk":{"S":"user#1"}}}`)
	rd := bytes.NewReader(body)
	r, _ = http.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", rd)
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("Authorization", signed)
	r.Header.Set("X-Amz-Date", "20240101T000000Z")
	return r, func() { rd.Reset(body); r.Body = io.NopCloser(rd) }
}

// protocolCeiling is the most allocations the protocol may make to decode a
// request and encode its response (net/http's own connection handling
// excluded). Measure with:
//
//	go test -run TestProtocolAllocationCeiling -v ./internal/protocol/
//	go test -run X -bench ProtocolRoundTrip -benchmem ./internal/protocol/
const protocolCeiling = 8

func TestProtocolAllocationCeiling(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	s := &Server{Handler: fixedHandler{}}
	r, reset := protocolRequest()
	w := &discardWriter{h: http.Header{}}
	got := testing.AllocsPerRun(200, func() {
		reset()
		clear(w.h)
		s.ServeHTTP(w, r)
	})
	if w.status != 0 && w.status != http.StatusOK {
		t.Fatalf("status %d", w.status)
	}
	t.Logf("%.0f allocations per request (ceiling %d)", got, protocolCeiling)
	if got > protocolCeiling {
		t.Errorf("the protocol allocates %.0f times per request, ceiling %d", got, protocolCeiling)
	}
}

func BenchmarkProtocolRoundTrip(b *testing.B) {
	s := &Server{Handler: fixedHandler{}}
	r, reset := protocolRequest()
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		reset()
		clear(w.h)
		s.ServeHTTP(w, r)
	}
}
