package protocol

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"strconv"
	"strings"
	"sync"
)

// compressMinBytes is the smallest response body DynamoDB compresses when
// the client accepts it: 4 KB. Smaller bodies are sent as they are.
const compressMinBytes = 4096

// negotiateEncoding picks the response encoding for an Accept-Encoding
// header value: "gzip", "deflate" or "" for none. Like DynamoDB, it takes
// the coding with the highest quality (q above 1 counts as 1; a q that does
// not parse counts as 1; q=0 refuses), prefers a named coding to "*" and
// an earlier one to a later one at equal quality, and gives "*" gzip, or
// deflate when gzip was named. Codings it does not know are ignored.
func negotiateEncoding(accept string) string {
	type choice struct {
		name string
		q    float64
	}
	var named []choice
	starQ, star := 0.0, false
	seen := map[string]bool{}
	for part := range strings.SplitSeq(accept, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := qvalue(params)
		switch name {
		case "gzip", "deflate":
			if !seen[name] || q > 0 {
				named = append(named, choice{name, q})
			}
			seen[name] = true
		case "*":
			star, starQ = true, q
		}
	}
	best := choice{}
	for _, c := range named {
		if c.q > best.q {
			best = c
		}
	}
	if star && starQ > best.q {
		for _, n := range []string{"gzip", "deflate"} {
			if !seen[n] {
				return n
			}
		}
	}
	return best.name
}

// qvalue reads the quality from a coding's parameters ("q=0.5"): the
// first q parameter counts; a missing or unreadable one is 1, one above 1
// is 1, and one below 0 is 0.
func qvalue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) != "q" {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 1
		}
		return max(0, min(q, 1))
	}
	return 1
}

// Compressors are pooled: each holds about a megabyte of state, too much
// to allocate for every response.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	zlibWriters = sync.Pool{New: func() any { return zlib.NewWriter(nil) }}
)

// compressBody returns body encoded with encoding ("gzip" or "deflate").
func compressBody(encoding string, body []byte) []byte {
	var pool *sync.Pool
	switch encoding {
	case "gzip":
		pool = &gzipWriters
	case "deflate":
		pool = &zlibWriters
	default:
		return body
	}
	var buf bytes.Buffer
	buf.Grow(len(body)/3 + 64)
	zw := pool.Get().(resetWriter)
	zw.Reset(&buf)
	_, _ = zw.Write(body)
	_ = zw.Close()
	pool.Put(zw)
	return buf.Bytes()
}

// resetWriter is what *gzip.Writer and *zlib.Writer share.
type resetWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}
