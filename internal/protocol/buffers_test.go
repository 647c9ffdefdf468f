package protocol

import (
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// sizedResponse encodes itself as n bytes of a JSON string.
type sizedResponse int

func (s sizedResponse) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"S":"`...)
	for i := range int(s) {
		dst = append(dst, 'a'+byte(i%26))
	}
	return append(dst, `"}`...)
}

// bodyHandler answers with the body it was sent, as a JSON string of its
// length in characters, so that the test sees both the request body as read
// and the reuse of response buffers.
type bodyHandler struct{}

func (bodyHandler) Serve(_ context.Context, r *Request) (any, error) {
	return sizedResponse(len(r.Body)), nil
}
func (bodyHandler) Known(_, op string) bool { return op == "Echo" }

// Bodies of every size around the first buffer's (declared, chunked, and
// declared as empty-encoded) are read whole, and every response carries
// its own bytes and CRC-32 although response buffers are reused: a long
// answer followed by a short one must not leak the long one's tail.
func TestBuffersAcrossSizes(t *testing.T) {
	s := &Server{Handler: bodyHandler{}}
	for _, n := range []int{5000, 2, maxFirstBuffer - 2, maxFirstBuffer - 1, maxFirstBuffer, maxFirstBuffer + 1, 70 << 10, 9} {
		for _, chunked := range []bool{false, true} {
			body := `{"a":"` + strings.Repeat("x", max(n-8, 0)) + `"}`
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			if chunked {
				r.ContentLength = -1
			}
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810.Echo")
			r.Header.Set("Content-Type", "application/x-amz-json-1.0")
			r.Header.Set("Authorization", signed)
			r.Header.Set("X-Amz-Date", "20240101T000000Z")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			want := string(sizedResponse(len(body)).AppendJSON(nil))
			if w.Code != http.StatusOK || w.Body.String() != want {
				t.Fatalf("body of %d bytes (chunked %v): %d %.80s..., want 200 %.80s...", len(body), chunked, w.Code, w.Body.String(), want)
			}
			if got, crc := w.Header().Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(want))), 10); got != crc {
				t.Fatalf("body of %d bytes: x-amz-crc32 %s, want %s", len(body), got, crc)
			}
			if id := w.Header().Get("X-Amzn-Requestid"); len(id) != requestIDLen || strings.Trim(id, idAlphabet) != "" {
				t.Fatalf("request id %q", id)
			}
		}
	}
}

// The body's reader lets exactly its limit through and fails one byte
// past it with *http.MaxBytesError, as http.MaxBytesReader does, whatever
// the size of the reads.
func TestRawReaderLimit(t *testing.T) {
	for _, size := range []int{1, 7, 4096} {
		for _, sent := range []int{0, 9, 10, 11, 50} {
			raw := &rawReader{r: strings.NewReader(strings.Repeat("x", sent)), left: 10}
			var got int
			var err error
			p := make([]byte, size)
			for err == nil {
				var n int
				n, err = raw.Read(p)
				got += n
			}
			var tooBig *http.MaxBytesError
			if sent <= 10 {
				if err != io.EOF || got != sent {
					t.Errorf("read size %d, %d bytes sent: got %d bytes, %v; want %d, EOF", size, sent, got, err, sent)
				}
			} else if !errors.As(err, &tooBig) || !errors.As(raw.err, &tooBig) || got > 10 {
				t.Errorf("read size %d, %d bytes sent: got %d bytes, %v (remembered %v); want at most 10, MaxBytesError", size, sent, got, err, raw.err)
			}
		}
	}
}
