package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
)

// Signature Version 4 as AWS documents it:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html

const (
	algorithm  = "AWS4-HMAC-SHA256"
	terminator = "aws4_request"
	// Service is the signing name of DynamoDB and DynamoDB Streams.
	Service = "dynamodb"
	// amzDateLayout is X-Amz-Date's ISO 8601 basic format.
	amzDateLayout = "20060102T150405Z"
	// MaxSkew is how far a request's date may be from the server's clock,
	// either way: AWS's 5 minutes ("... (20160610T181112Z - 5 min.)").
	MaxSkew = 5 * time.Minute
)

// Authorization is a parsed SigV4 Authorization header:
//
//	AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request,
//	    SignedHeaders=content-type;host;x-amz-date, Signature=<64 hex digits>
type Authorization struct {
	AccessKeyID string
	Date        string // the scope's yyyymmdd
	Region      string
	Service     string
	Terminator  string
	Signature   string // lower-case hex
	Raw         string // the whole header, for error messages
	signedList  string // SignedHeaders as sent: lower case, ';'-separated
	credential  string // Credential as sent
}

// CheckCredential reports IncompleteSignatureException unless the
// Credential has AWS's five elements (the local mode, which verifies
// nothing, also takes a bare access key).
func (a *Authorization) CheckCredential() error {
	if strings.Count(a.credential, "/") != 4 {
		return ddberr.IncompleteSignature(fmt.Sprintf("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '%s'", a.credential))
	}
	return nil
}

// CheckHostSigned reports DynamoDB's InvalidSignatureException unless
// SignedHeaders names the Host header (or HTTP/2's :authority): a
// signature that does not cover the host could be replayed to another
// server. The message is AWS's, quoted in
// https://github.com/aws/aws-sdk-php/issues/2469.
func (a *Authorization) CheckHostSigned() error {
	rest := a.signedList
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, ";")
		if name == "host" || name == ":authority" {
			return nil
		}
	}
	return ddberr.InvalidSignature("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
}

// ParseAuthorization parses an Authorization header. hasDate says whether
// the request carries X-Amz-Date or Date. Errors, as DynamoDB reports them:
// MissingAuthenticationTokenException for no SigV4 header at all, and
// IncompleteSignatureException naming every missing part.
func ParseAuthorization(h string, hasDate bool) (*Authorization, error) {
	a := new(Authorization)
	if err := a.parse(h, hasDate); err != nil {
		return nil, err
	}
	return a, nil
}

// parse is ParseAuthorization into a, which the request path keeps on
// its stack.
func (a *Authorization) parse(h string, hasDate bool) error {
	h = strings.TrimSpace(h)
	cred, signed, sig, err := protocol.AuthorizationParams(h, hasDate)
	if err != nil {
		return err
	}
	*a = Authorization{Raw: h, Signature: sig}
	if alg, _, _ := strings.Cut(h, " "); alg != algorithm {
		return ddberr.IncompleteSignature(fmt.Sprintf("Unsupported AWS 'algorithm': '%s'", alg))
	}
	a.credential = cred
	rest := cred
	for _, dst := range [...]*string{&a.AccessKeyID, &a.Date, &a.Region, &a.Service, &a.Terminator} {
		*dst, rest, _ = strings.Cut(rest, "/")
	}
	a.signedList = signed
	return nil
}

// RequestTime returns the request's signing time from X-Amz-Date, or else
// the Date header, and its X-Amz-Date form.
func RequestTime(h http.Header) (time.Time, string, error) {
	if v := h.Get("X-Amz-Date"); v != "" {
		t, err := parseAmzDate(v)
		if err != nil {
			return time.Time{}, "", ddberr.IncompleteSignature(fmt.Sprintf("Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601", v))
		}
		return t, v, nil
	}
	v := h.Get("Date")
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, "", ddberr.IncompleteSignature(fmt.Sprintf("Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601", v))
	}
	t = t.UTC()
	return t, t.Format(amzDateLayout), nil
}

// parseAmzDate parses yyyymmddThhmmssZ; it is time.Parse(amzDateLayout)
// without its general machinery, on the path of every request.
func parseAmzDate(v string) (time.Time, error) {
	if len(v) != 16 || v[8] != 'T' || v[15] != 'Z' {
		return time.Parse(amzDateLayout, v)
	}
	var n [6]int
	widths := [6]int{4, 2, 2, 2, 2, 2}
	pos := [6]int{0, 4, 6, 9, 11, 13}
	for i := range n {
		for _, c := range []byte(v[pos[i] : pos[i]+widths[i]]) {
			if c < '0' || c > '9' {
				return time.Parse(amzDateLayout, v)
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	if n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 31 || n[3] > 23 || n[4] > 59 || n[5] > 59 {
		return time.Parse(amzDateLayout, v)
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.UTC)
	if t.Day() != n[2] {
		return time.Parse(amzDateLayout, v) // e.g. February 30: Parse's error
	}
	return t, nil
}

// CheckScope reports DynamoDB's InvalidSignatureException for a credential
// scope that does not name the request's date, a region, DynamoDB's signing
// name and aws4_request.
func (a *Authorization) CheckScope(amzDate, service string) error {
	if a.Date != amzDate[:8] {
		return ddberr.InvalidSignature("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'.", a.Date, amzDate[:8], amzDate)
	}
	if !validRegion(a.Region) {
		return ddberr.InvalidSignature("Credential should be scoped to a valid region, not '%s'. ", a.Region)
	}
	if a.Service != service {
		return ddberr.InvalidSignature("Credential should be scoped to correct service: '%s'. ", service)
	}
	if a.Terminator != terminator {
		return ddberr.InvalidSignature("Credential should be scoped with a valid terminator: '%s', not '%s'. ", terminator, a.Terminator)
	}
	return nil
}

// validRegion accepts region names of lower-case letters, digits and
// hyphens (AWS's, and the names local tools use, such as "localhost").
func validRegion(r string) bool {
	if r == "" || len(r) > 64 {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// CheckSkew reports "Signature expired" or "Signature not yet current" when
// t is more than MaxSkew from now, with AWS's texts.
func CheckSkew(t, now time.Time) error {
	now = now.UTC()
	switch {
	case t.Before(now.Add(-MaxSkew)):
		return ddberr.InvalidSignature("Signature expired: %s is now earlier than %s (%s - 5 min.)",
			t.Format(amzDateLayout), now.Add(-MaxSkew).Format(amzDateLayout), now.Format(amzDateLayout))
	case t.After(now.Add(MaxSkew)):
		return ddberr.InvalidSignature("Signature not yet current: %s is still later than %s (%s + 5 min.)",
			t.Format(amzDateLayout), now.Add(MaxSkew).Format(amzDateLayout), now.Format(amzDateLayout))
	}
	return nil
}

// ErrSignatureMismatch is DynamoDB's answer to a signature computed with
// another secret or over other bytes.
func ErrSignatureMismatch() error {
	return ddberr.InvalidSignature("The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
}

// StringToSign builds the string to sign of r: the canonical request over
// the signed headers and the hex SHA-256 payloadHash of the raw body.
func (a *Authorization) StringToSign(r *http.Request, amzDate, payloadHash string) []byte {
	creq := sha256.Sum256(a.appendCanonicalRequest(nil, r, payloadHash, nil))
	return a.appendStringToSign(nil, amzDate, &creq)
}

// appendCanonicalRequest appends the canonical request; the payload hash is
// payloadHash (hex) or, when that is "", hex of payloadSum.
func (a *Authorization) appendCanonicalRequest(b []byte, r *http.Request, payloadHash string, payloadSum []byte) []byte {
	b = append(b, r.Method...)
	b = append(b, '\n')
	b = append(b, canonicalURI(r.URL)...)
	b = append(b, '\n')
	b = append(b, canonicalQuery(r.URL.RawQuery)...)
	b = append(b, '\n')
	rest := a.signedList
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, ";")
		b = append(b, name...)
		b = append(b, ':')
		b = appendHeaderValue(b, r, name)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	b = append(b, a.signedList...)
	b = append(b, '\n')
	if payloadHash != "" || payloadSum == nil {
		return append(b, payloadHash...)
	}
	return hex.AppendEncode(b, payloadSum)
}

func (a *Authorization) appendStringToSign(out []byte, amzDate string, creq *[32]byte) []byte {
	out = append(out, algorithm+"\n"...)
	out = append(out, amzDate...)
	out = append(out, '\n')
	out = append(out, a.Date...)
	out = append(out, '/')
	out = append(out, a.Region...)
	out = append(out, '/')
	out = append(out, a.Service...)
	out = append(out, "/"+terminator+"\n"...)
	return hex.AppendEncode(out, creq[:])
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// Verify reports whether the signature of r, made with the derived key
// and over a body whose SHA-256 is payloadSum, is a.Signature.
func (a *Authorization) Verify(r *http.Request, amzDate string, payloadSum, key []byte) bool {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	creq := sha256.Sum256(a.appendCanonicalRequest((*bp)[:0], r, "", payloadSum))
	var sts [256]byte
	want := hmacSum(key, a.appendStringToSign(sts[:0], amzDate, &creq), (*bp)[:0])
	return a.signatureIs(want[:])
}

// hmacSum is HMAC-SHA256 of msg under a key of at most 64 bytes, without
// allocating; buf is scratch space.
func hmacSum(key, msg, buf []byte) [32]byte {
	var pad [64]byte
	copy(pad[:], key)
	for i := range pad {
		pad[i] ^= 0x36
	}
	buf = append(append(buf[:0], pad[:]...), msg...)
	inner := sha256.Sum256(buf)
	var outer [96]byte
	for i := range pad {
		outer[i] = pad[i] ^ 0x36 ^ 0x5c
	}
	copy(outer[64:], inner[:])
	return sha256.Sum256(outer[:])
}

// SigningKey derives the signing key of secret for a scope.
func SigningKey(secret, date, region, service string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), []byte(date))
	k = hmacSHA256(k, []byte(region))
	k = hmacSHA256(k, []byte(service))
	return hmacSHA256(k, []byte(terminator))
}

// SignatureMatches reports whether a.Signature is the signature of
// stringToSign under key, in constant time.
func (a *Authorization) SignatureMatches(key, stringToSign []byte) bool {
	return a.signatureIs(hmacSHA256(key, stringToSign))
}

func (a *Authorization) signatureIs(want []byte) bool {
	var got [32]byte
	if len(a.Signature) != 64 {
		return false
	}
	if _, err := hex.Decode(got[:], []byte(a.Signature)); err != nil {
		return false
	}
	return hmac.Equal(want, got[:])
}

func hmacSHA256(key, data []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil)
}

// appendHeaderValue appends a signed header's canonical value: its values
// trimmed, inner runs of spaces collapsed, joined by commas. Host and
// Content-Length, which net/http keeps outside Header, are read where it
// keeps them.
func appendHeaderValue(b []byte, r *http.Request, name string) []byte {
	switch name {
	case "host", ":authority": // HTTP/2's name for Host
		return append(b, r.Host...)
	case "content-length":
		if v := r.Header.Get("Content-Length"); v != "" {
			return append(b, v...)
		}
		if r.ContentLength >= 0 {
			return strconv.AppendInt(b, r.ContentLength, 10)
		}
	}
	key, ok := canonicalNames[name]
	if !ok {
		key = http.CanonicalHeaderKey(name)
	}
	vs := r.Header[key]
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		v = strings.TrimSpace(v)
		if !strings.Contains(v, "  ") {
			b = append(b, v...)
			continue
		}
		for j, f := range strings.Fields(v) {
			if j > 0 {
				b = append(b, ' ')
			}
			b = append(b, f...)
		}
	}
	return b
}

// canonicalNames maps the signed header names SDKs send to net/http's key,
// so that the common ones are not canonicalised (and allocated) per request.
var canonicalNames = lowerToCanonical("Content-Type", "X-Amz-Date", "X-Amz-Target", "X-Amz-Content-Sha256",
	"X-Amz-Security-Token", "Amz-Sdk-Invocation-Id", "Amz-Sdk-Request", "User-Agent", "X-Amz-User-Agent",
	"Accept-Encoding", "Content-Encoding", "X-Amz-Api-Version")

func lowerToCanonical(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = n
	}
	return m
}

// canonicalURI is the URI-encoded path, each segment encoded once more as
// AWS does for every service but S3.
func canonicalURI(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" || p == "/" {
		return "/"
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = uriEncode(s)
	}
	return strings.Join(segs, "/")
}

// canonicalQuery sorts the query parameters by name, then value, each
// URI-encoded.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, _ := url.ParseQuery(raw)
	pairs := make([]string, 0, len(q))
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k)+"="+uriEncode(v))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

// uriEncode percent-encodes every byte but the unreserved characters
// A-Z a-z 0-9 - _ . ~, with upper-case hex digits.
func uriEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
