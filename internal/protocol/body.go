package protocol

import (
	"bufio"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/extenddb/extenddb/internal/admission"
	"github.com/extenddb/extenddb/internal/ddberr"
)

// MaxBodyBytes bounds a request body, as sent and after decompression:
// 16 MB, DynamoDB's limit on a request (BatchWriteItem "can transmit up to
// 16MB of data over the network").
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
const MaxBodyBytes = 16 << 20

// overheadFactor is how many bytes of memory a request is assumed to hold
// per byte of body while it is decoded and served (the body itself, its
// decoded items and the response built from them).
const overheadFactor = 3

// baseReservation is the memory every request reserves before its body
// arrives: its buffers, headers and a small response.
const baseReservation = 64 << 10

// errBodyRead marks a body that could not be read from the connection
// (the client went away or was too slow); nobody is left to answer.
var errBodyRead = ddberr.Serialization("")

// readBody reads and decodes r's body, reserving memory from res as bytes
// arrive; it never reserves from a declared Content-Length, and allocates
// from one only below 4 KB (firstBufferSize).
// Errors: RequestTooLarge (413) past MaxBodyBytes, sent or decoded;
// InternalFailure (500) for a body that does not decompress or an unknown
// Content-Encoding, as DynamoDB answers; ThrottlingException when the memory
// budget stays full.
func readBody(ctx context.Context, w http.ResponseWriter, r *http.Request, res *admission.Reservation) ([]byte, error) {
	if r.ContentLength > MaxBodyBytes {
		return nil, tooLargeClose(w)
	}
	raw := &rawReader{r: r.Body, left: MaxBodyBytes}
	src, closeSrc, err := decoder(r.Header.Get("Content-Encoding"), raw)
	if err != nil {
		return nil, classify(w, err, raw)
	}
	defer closeSrc()
	buf := make([]byte, 0, firstBufferSize(r))
	for {
		if len(buf) == cap(buf) {
			if len(buf) > MaxBodyBytes {
				return nil, tooLarge()
			}
			next := min(2*cap(buf), MaxBodyBytes+1)
			if err := res.Grow(ctx, baseReservation+overheadFactor*int64(next)); err != nil {
				return nil, err
			}
			buf = append(buf, make([]byte, next-len(buf))...)[:len(buf)]
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, classify(w, err, raw)
		}
	}
	if len(buf) > MaxBodyBytes {
		return nil, tooLarge()
	}
	return buf, nil
}

// maxFirstBuffer is the most readBody allocates before bytes arrive.
const maxFirstBuffer = 4 << 10

// firstBufferSize is the capacity of readBody's first buffer: room for a
// plain body whose length r declares (one byte more, so that its end is
// seen without growing), else maxFirstBuffer. A declared length above
// maxFirstBuffer is not trusted for more: the buffer grows as bytes
// arrive.
func firstBufferSize(r *http.Request) int {
	if r.ContentLength >= 0 && r.ContentLength < maxFirstBuffer && r.Header.Get("Content-Encoding") == "" {
		return int(r.ContentLength) + 1
	}
	return maxFirstBuffer
}

func tooLarge() *ddberr.Error {
	return ddberr.RequestTooLarge("Request size exceeded %d bytes", MaxBodyBytes)
}

// closeValue is the Connection header of an answer after which the
// connection is closed.
var closeValue = []string{"close"}

// tooLargeClose is tooLarge, with the connection closed after the answer
// rather than the rest of the body read and thrown away (as
// http.MaxBytesReader arranges).
func tooLargeClose(w http.ResponseWriter) *ddberr.Error {
	w.Header()["Connection"] = closeValue
	return tooLarge()
}

// classify turns a read error into the client's answer: a body over the
// limit, a connection that failed, or a body that failed to decompress.
func classify(w http.ResponseWriter, err error, raw *rawReader) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || errors.As(raw.err, &tooBig) {
		return tooLargeClose(w)
	}
	if raw.err != nil && !errors.Is(raw.err, io.EOF) {
		return errBodyRead
	}
	return ddberr.InternalFailure()
}

// rawReader reads the connection's body up to left bytes, failing with an
// *http.MaxBytesError past them (as http.MaxBytesReader does, without an
// allocation of its own), and remembers the body's first error, to tell it
// from a decompression error.
type rawReader struct {
	r    io.Reader
	left int64
	err  error
}

func (r *rawReader) Read(p []byte) (int, error) {
	if int64(len(p)) > r.left+1 {
		// One byte more than allowed tells a body at the limit from one
		// past it.
		p = p[:r.left+1]
	}
	n, err := r.r.Read(p)
	if int64(n) > r.left {
		n, err = int(r.left), &http.MaxBytesError{Limit: MaxBodyBytes}
		r.left = 0
	} else {
		r.left -= int64(n)
	}
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// decoder returns a reader of the decoded body for the Content-Encoding
// header value: none or identity, gzip (one or more members, as RFC 1952
// allows) or deflate (the zlib format, RFC 9110 section 8.4.1.2).
func decoder(encoding string, raw *rawReader) (io.Reader, func(), error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return raw, func() {}, nil
	case "gzip":
		br := bufio.NewReader(raw)
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return &gzipMembers{zr: zr, src: br, raw: raw}, func() { zr.Close() }, nil
	case "deflate":
		zr, err := zlib.NewReader(raw)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	}
	return nil, nil, errUnknownEncoding
}

var errUnknownEncoding = errors.New("unknown Content-Encoding")

// gzipMembers reads concatenated gzip members and, as DynamoDB does,
// ignores bytes after the last member that are not another member.
type gzipMembers struct {
	zr  *gzip.Reader
	src *bufio.Reader
	raw *rawReader
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		g.zr.Multistream(false)
		n, err := g.zr.Read(p)
		if !errors.Is(err, io.EOF) {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
		rerr := g.zr.Reset(g.src)
		if rerr == nil {
			continue
		}
		if g.raw.err != nil && !errors.Is(g.raw.err, io.EOF) {
			return 0, rerr // the connection failed, not the encoding
		}
		return 0, io.EOF // the end, or trailing bytes that are not a member
	}
}
