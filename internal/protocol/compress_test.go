package protocol

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strings"
	"testing"
)

// TestCompressBody: each encoding decodes back to the body, also when its
// compressor is reused from the pool for another body.
func TestCompressBody(t *testing.T) {
	for _, enc := range []string{"gzip", "deflate"} {
		for i, body := range [][]byte{
			[]byte(strings.Repeat(`{"Item":{"k":{"S":"value"}}}`, 300)),
			[]byte(strings.Repeat("another body ", 500)),
		} {
			z := compressBody(enc, body)
			var r io.Reader
			var err error
			if enc == "gzip" {
				r, err = gzip.NewReader(bytes.NewReader(z))
			} else {
				r, err = zlib.NewReader(bytes.NewReader(z))
			}
			if err != nil {
				t.Fatalf("%s body %d: %v", enc, i, err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%s body %d: %d bytes back (%v), want %d", enc, i, len(got), err, len(body))
			}
		}
	}
	if got := compressBody("br", []byte("x")); string(got) != "x" {
		t.Fatalf("unknown encoding: %q", got)
	}
}
