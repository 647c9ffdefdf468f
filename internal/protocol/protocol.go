// Package protocol is extenddb's HTTP front door: DynamoDB's JSON 1.0 protocol
// over HTTP POST.
//
// A request is `POST /` with `X-Amz-Target: DynamoDB_20120810.<Operation>` (or
// `DynamoDBStreams_20120810.<Operation>`) and a JSON body, optionally gzip
// encoded (gzip or deflate, up to 16 MB decoded). Every response carries
// `x-amzn-RequestId` and `x-amz-crc32` (the CRC-32 of the body, which the
// SDKs verify), and is compressed when it is 4 KB or more and the client
// sends Accept-Encoding gzip or deflate. Requests with an Origin header get
// CORS headers. Errors are DynamoDB's:
// `{"__type": "...#Name", "message": "..."}` with HTTP 400, or 500 only for
// faults of the server itself. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html
package protocol

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/admission"
	"github.com/extenddb/extenddb/internal/ddberr"
)

// Caller identifies who sent a request, parsed from its SigV4 Authorization
// header (and verified by the Authenticator, when the server has one).
type Caller struct {
	AccessKeyID string
	Region      string
	Account     string // 12-digit account ID; "" = the engine's default
	Namespace   string // storage namespace (storage.Namespace); "" = Account
	Principal   string // ARN of the user or role; "" in local mode
	// Identity is what the Authenticator learned of the caller in
	// Authenticate (its policies), handed back to Authorize so that the
	// key is looked up once; opaque to this package, nil in local mode.
	Identity any
}

// Authenticator verifies a request's signature and names its caller
// (internal/auth). Verifies reports whether it needs the SHA-256 of the raw
// request body; Authenticate gets it as payloadSHA256 (nil otherwise).
// Authorize decides whether the caller may perform the operation on what
// the body names (AccessDeniedException otherwise) and returns the caller
// the operation runs as: c itself, or c in the namespace of another
// account whose resource-based policy let it act on that account's
// table or stream (cross-account access).
type Authenticator interface {
	Verifies() bool
	Authenticate(r *http.Request, payloadSHA256 []byte) (Caller, error)
	Authorize(r *http.Request, c Caller, service, operation string, body []byte) (Caller, error)
}

// Request is one decoded API call handed to an Operation.
type Request struct {
	Service   string // "DynamoDB" or "DynamoDBStreams"
	Operation string // e.g. "PutItem"
	Caller    Caller
	Host      string // the Host the request was sent to
	Body      []byte
}

// Appender is implemented by responses that encode themselves; others are
// encoded with encoding/json.
type Appender interface {
	AppendJSON(dst []byte) []byte
}

// Handler serves decoded requests; it returns the response value (an
// Appender, or anything encoding/json encodes) or an error (a *ddberr.Error
// is sent as is; any other error becomes InternalServerError).
type Handler interface {
	Serve(ctx context.Context, r *Request) (any, error)
	// Has reports whether target (the full X-Amz-Target value) names a known operation.
	Known(service, operation string) bool
}

// Server adapts a Handler to net/http.
type Server struct {
	Handler Handler
	Log     *slog.Logger
	// DefaultRegion is used when a request carries no credential scope.
	DefaultRegion string
	// Budget bounds the memory of requests in flight; nil admits all.
	Budget *admission.Budget
	// CORSOrigins are the origins browsers may call from; empty or "*"
	// allows any (setCORS).
	CORSOrigins []string
	// Observe, when set, is called once per POST request after its response
	// is written, with the operation ("" when none was recognized or the
	// request was refused before its operation ran), the HTTP status, the
	// short error type ("" on success) and the time taken.
	Observe func(operation string, status int, errType string, elapsed time.Duration)
	// Auth authenticates requests; nil accepts any well-formed signature.
	Auth Authenticator
}

// observed wraps a ResponseWriter to carry what Observe reports.
type observed struct {
	http.ResponseWriter
	op      string
	status  int
	errType string
}

func (o *observed) WriteHeader(status int) {
	o.status = status
	o.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (o *observed) Unwrap() http.ResponseWriter { return o.ResponseWriter }

var observedPool = sync.Pool{New: func() any { return new(observed) }}

// serverHeader is the Server header of every response, as DynamoDB sends it.
const serverHeader = "Server"

// Header values every response shares, set without allocating: net/http
// only reads them. The keys are in canonical form (x-amzn-RequestId goes
// out as X-Amzn-Requestid either way).
var (
	serverValue   = []string{serverHeader}
	jsonTypeValue = []string{"application/x-amz-json-1.0"}
)

const requestIDKey = "X-Amzn-Requestid"

const (
	targetDynamoDB = "DynamoDB_20120810."
	targetStreams  = "DynamoDBStreams_20120810."
)

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Observe == nil || r.Method != http.MethodPost {
		s.serveHTTP(w, r)
		return
	}
	start := time.Now()
	o := observedPool.Get().(*observed)
	*o = observed{ResponseWriter: w, status: http.StatusOK}
	s.serveHTTP(o, r)
	s.Observe(o.op, o.status, o.errType, time.Since(start))
	*o = observed{}
	observedPool.Put(o)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Server"] = serverValue
	if setCORS(h, r, s.CORSOrigins) {
		writeBody(w, "", http.StatusOK, nil)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/" {
		// DynamoDB Local answers a plain GET with this 400, and the tools
		// written for it (Testcontainers, compose health checks) wait for it.
		h.Set("Content-Type", "application/x-amz-json-1.0")
		writeBody(w, "", http.StatusBadRequest, []byte(localGetAnswer))
		return
	}
	if r.Method != http.MethodPost {
		writeUnknownOperation404(w)
		return
	}
	res := s.Budget.Reserve()
	defer res.Release()
	if err := res.Grow(r.Context(), baseReservation); err != nil {
		s.writeBodyError(w, r, err)
		return
	}
	var bodyHash hash.Hash
	if s.Auth != nil && r.Header.Get("Content-Encoding") != "" && s.Auth.Verifies() {
		// A compressed body is hashed as it is read (SigV4 signs the
		// bytes on the wire); any other once read (authenticate).
		bodyHash = sha256.New()
		r.Body = hashingBody{r.Body, bodyHash}
	}
	body, err := readBody(r.Context(), w, r, res)
	if err != nil {
		s.writeBodyError(w, r, err)
		return
	}
	// DynamoDB answers a body in a content type it does not speak as an
	// unknown operation, with 404 and an XML body.
	if len(body) > 0 && !jsonContentType(r.Header.Get("Content-Type")) {
		writeUnknownOperation404(w)
		return
	}
	req, err := s.decodeRequest(r, body, bodyHash)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if o, ok := w.(*observed); ok {
		o.op = req.Operation
	}
	resp, err := s.serve(admission.NewContext(r.Context(), res), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	a, ok := resp.(Appender)
	if !ok {
		out, err := json.Marshal(resp)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		h["Content-Type"] = jsonTypeValue
		writeBody(w, r.Header.Get("Accept-Encoding"), http.StatusOK, out)
		return
	}
	buf := getBuffer()
	*buf = a.AppendJSON((*buf)[:0])
	h["Content-Type"] = jsonTypeValue
	writeBody(w, r.Header.Get("Accept-Encoding"), http.StatusOK, *buf)
	putBuffer(buf)
}

// Response buffers are reused: writeBody has handed a body to the
// connection (net/http copies it or writes it out) when it returns, so a
// buffer is free again once the response is written. Buffers that grew
// past maxPooledBuffer are left to the garbage collector, so that one
// large answer does not keep its memory for good.
const maxPooledBuffer = 64 << 10

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuffer() *[]byte { return bufferPool.Get().(*[]byte) }

func putBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		bufferPool.Put(b)
	}
}

// decodeRequest names the operation of an HTTP request with a readable body
// and checks what DynamoDB's front end checks before any operation runs:
// the target, the Authorization header and the body's JSON.
func (s *Server) decodeRequest(r *http.Request, body []byte, bodyHash hash.Hash) (*Request, error) {
	target := r.Header.Get("X-Amz-Target")
	var service, op string
	switch {
	case strings.HasPrefix(target, targetDynamoDB):
		service, op = "DynamoDB", target[len(targetDynamoDB):]
	case strings.HasPrefix(target, targetStreams):
		service, op = "DynamoDBStreams", target[len(targetStreams):]
	}
	if op == "" || !s.Handler.Known(service, op) {
		// Malformed JSON is reported before an unknown target.
		if len(body) > 0 && !json.Valid(body) {
			return nil, ddberr.Serialization("")
		}
		return nil, ddberr.UnknownOperation()
	}
	caller, authErr := s.authenticate(r, body, bodyHash)
	if authErr != nil {
		return nil, authErr
	}
	if caller.Region == "" {
		caller.Region = s.DefaultRegion
	}
	if err := checkJSONBody(body); err != nil {
		return nil, err
	}
	if s.Auth != nil {
		var err error
		if caller, err = s.Auth.Authorize(r, caller, service, op, body); err != nil {
			return nil, err
		}
	}
	return &Request{Service: service, Operation: op, Caller: caller, Host: r.Host, Body: body}, nil
}

// authenticate names the caller of r, verifying its signature when the
// server has an Authenticator.
func (s *Server) authenticate(r *http.Request, body []byte, bodyHash hash.Hash) (Caller, error) {
	if s.Auth == nil {
		return parseAuthorization(r.Header.Get("Authorization"), r.Header.Get("X-Amz-Date") != "" || r.Header.Get("Date") != "")
	}
	var sum []byte
	switch {
	case bodyHash != nil:
		sum = bodyHash.Sum(nil)
	case s.Auth.Verifies():
		h := sha256.Sum256(body)
		sum = h[:]
	}
	return s.Auth.Authenticate(r, sum)
}

// hashingBody hashes the raw (still compressed) body as it is read: SigV4
// signs the bytes on the wire.
type hashingBody struct {
	io.ReadCloser
	h hash.Hash
}

func (b hashingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.Write(p[:n])
	return n, err
}

// serve calls the handler, turning a panic into InternalServerError so that
// no request can take the server down.
func (s *Server) serve(ctx context.Context, req *Request) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logger().Error("panic serving request", "operation", req.Operation, "panic", p)
			resp, err = nil, ddberr.Internal("Internal server error")
		}
	}()
	return s.Handler.Serve(ctx, req)
}

func (s *Server) logger() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// writeBodyError answers a request whose body could not be admitted or
// read. When the body could not be read to its end (the client went away,
// was too slow, or broke the chunked framing) or the client is gone, the
// connection is closed without an answer: returning without one would make
// net/http send an empty 200, which an SDK takes as the write's success.
func (s *Server) writeBodyError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil || err == errBodyRead {
		panic(http.ErrAbortHandler)
	}
	s.writeError(w, r, err)
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := err.(*ddberr.Error)
	if !ok {
		e = ddberr.As(err)
	}
	if o, ok := w.(*observed); ok {
		o.errType = e.Name()
	}
	if e.Status >= 500 {
		s.logger().Error("request failed", "target", r.Header.Get("X-Amz-Target"), "error", err)
	}
	buf := getBuffer()
	out, mErr := appendErrorBody((*buf)[:0], e)
	if mErr != nil {
		out = append(out[:0], `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`...)
	}
	*buf = out
	w.Header()["Content-Type"] = jsonTypeValue
	writeBody(w, r.Header.Get("Accept-Encoding"), e.Status, out)
	putBuffer(buf)
}

// writeBody sends body with a new request id, its CRC-32 and its length.
// A body of 4 KB or more is compressed when acceptEncoding (the request's
// Accept-Encoding) allows gzip or deflate, as DynamoDB does; the CRC-32 is
// then the compressed bytes', which is what the SDKs verify before
// decompressing.
func writeBody(w http.ResponseWriter, acceptEncoding string, status int, body []byte) {
	h := w.Header()
	if len(body) >= compressMinBytes && acceptEncoding != "" {
		if enc := negotiateEncoding(acceptEncoding); enc != "" {
			body = compressBody(enc, body)
			h.Set("Content-Encoding", enc)
		}
	}
	// The request id and both numbers in one string, the three values in
	// one array: two allocations instead of six.
	var digits [requestIDLen + 32]byte
	b := appendRequestID(digits[:0])
	b = strconv.AppendUint(b, uint64(crc32.ChecksumIEEE(body)), 10)
	n := len(b)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	all := string(b)
	vals := &[3]string{all[:requestIDLen], all[requestIDLen:n], all[n:]}
	h[requestIDKey] = vals[0:1:1]
	h["X-Amz-Crc32"] = vals[1:2:2]
	h["Content-Length"] = vals[2:3:3]
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// parseAuthorization reads the access key and region from a SigV4
// Authorization header:
//
//	AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=..., Signature=...
//
// It reports DynamoDB's errors for a missing or incomplete header; hasDate
// says whether the request carries X-Amz-Date or Date. The signature itself
// is not verified here.
func parseAuthorization(h string, hasDate bool) (Caller, error) {
	credential, _, _, err := AuthorizationParams(h, hasDate)
	if err != nil {
		return Caller{}, err
	}
	// Credential=AKID/date/region/service/aws4_request
	key, scope, _ := strings.Cut(credential, "/")
	c := Caller{AccessKeyID: key}
	if _, scope, ok := strings.Cut(scope, "/"); ok {
		c.Region, _, _ = strings.Cut(scope, "/")
	}
	return c, nil
}

// AuthorizationParams returns the Credential, SignedHeaders and Signature
// parameters of a SigV4 Authorization header h, the first of each when
// one repeats; spaces around h and around each parameter do not count.
// Errors, as DynamoDB reports them:
// MissingAuthenticationTokenException when h is not a SigV4 header, and
// IncompleteSignatureException naming every missing part (hasDate says
// whether the request carries X-Amz-Date or Date).
func AuthorizationParams(h string, hasDate bool) (credential, signedHeaders, signature string, err error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "AWS4-") {
		return "", "", "", ddberr.MissingAuthenticationToken("Request is missing Authentication Token")
	}
	if i := strings.IndexByte(h, ' '); i >= 0 {
		for rest := h[i+1:]; rest != ""; {
			var kv string
			kv, rest, _ = strings.Cut(rest, ",")
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch {
			case k == "Credential" && credential == "":
				credential = v
			case k == "SignedHeaders" && signedHeaders == "":
				signedHeaders = v
			case k == "Signature" && signature == "":
				signature = v
			}
		}
	}
	if credential != "" && signedHeaders != "" && signature != "" && hasDate {
		return credential, signedHeaders, signature, nil
	}
	var msg strings.Builder
	for _, p := range [...]struct{ name, value string }{{"Credential", credential}, {"Signature", signature}, {"SignedHeaders", signedHeaders}} {
		if p.value == "" {
			msg.WriteString("Authorization header requires '" + p.name + "' parameter. ")
		}
	}
	if !hasDate {
		msg.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
	}
	return "", "", "", ddberr.IncompleteSignature(msg.String() + "Authorization=" + h)
}

// jsonContentType reports whether ct is one of the JSON content types
// DynamoDB accepts.
func jsonContentType(ct string) bool {
	ct, _, _ = strings.Cut(ct, ";")
	ct = strings.TrimSpace(ct)
	return strings.EqualFold(ct, "application/x-amz-json-1.0") ||
		strings.EqualFold(ct, "application/x-amz-json-1.1") || strings.EqualFold(ct, "application/json")
}

// writeUnknownOperation404 is DynamoDB's answer to a non-POST request or a
// body it cannot read: 404 with an XML error body.
func writeUnknownOperation404(w http.ResponseWriter) {
	if o, ok := w.(*observed); ok {
		o.errType = "UnknownOperationException"
	}
	w.Header().Set("Content-Type", "application/xml")
	writeBody(w, "", http.StatusNotFound, []byte("<UnknownOperationException/>\n"))
}

// localGetAnswer is DynamoDB Local's body for GET /, sent with HTTP 400.
const localGetAnswer = `{"__type":"com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken","message":"Request must contain either a valid (registered) AWS access key ID or X.509 certificate."}`

const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// requestIDLen is the length of a request id.
const requestIDLen = 52

// appendRequestID appends a new request id in DynamoDB's style to dst:
// requestIDLen random characters from idAlphabet.
func appendRequestID(dst []byte) []byte {
	var raw [requestIDLen]byte
	_, _ = rand.Read(raw[:])
	for i, b := range raw {
		raw[i] = idAlphabet[int(b)%len(idAlphabet)]
	}
	return append(dst, raw[:]...)
}
