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
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
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
	AccessKeyID   string
	Date          string // the scope's yyyymmdd
	Region        string
	Service       string
	Terminator    string
	SignedHeaders []string // lower case, in the order signed
	Signature     string   // lower-case hex
	Raw           string   // the whole header, for error messages
	signedList    string   // SignedHeaders as sent
	credential    string   // Credential as sent
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

// ParseAuthorization parses an Authorization header. hasDate says whether
// the request carries X-Amz-Date or Date. Errors, as DynamoDB reports them:
// MissingAuthenticationTokenException for no SigV4 header at all, and
// IncompleteSignatureException naming every missing part.
func ParseAuthorization(h string, hasDate bool) (*Authorization, error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "AWS4-") {
		return nil, ddberr.MissingAuthenticationToken("Request is missing Authentication Token")
	}
	var cred, signed, sig string
	if i := strings.IndexByte(h, ' '); i >= 0 {
		rest := h[i+1:]
		for rest != "" {
			var kv string
			kv, rest, _ = strings.Cut(rest, ",")
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch {
			case k == "Credential" && cred == "":
				cred = v
			case k == "SignedHeaders" && signed == "":
				signed = v
			case k == "Signature" && sig == "":
				sig = v
			}
		}
	}
	if cred == "" || sig == "" || signed == "" || !hasDate {
		var msg strings.Builder
		for _, p := range [...]struct{ name, v string }{{"Credential", cred}, {"Signature", sig}, {"SignedHeaders", signed}} {
			if p.v == "" {
				msg.WriteString("Authorization header requires '" + p.name + "' parameter. ")
			}
		}
		if !hasDate {
			msg.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
		}
		return nil, ddberr.IncompleteSignature(msg.String() + "Authorization=" + h)
	}
	a := &Authorization{Raw: h, Signature: sig}
	if alg, _, _ := strings.Cut(h, " "); alg != algorithm {
		return nil, ddberr.IncompleteSignature(fmt.Sprintf("Unsupported AWS 'algorithm': '%s'", alg))
	}
	a.credential = cred
	parts := strings.SplitN(cred, "/", 6)
	for i, dst := range []*string{&a.AccessKeyID, &a.Date, &a.Region, &a.Service, &a.Terminator} {
		if i < len(parts) {
			*dst = parts[i]
		}
	}
	a.SignedHeaders = strings.Split(signed, ";")
	a.signedList = signed
	return a, nil
}

// RequestTime returns the request's signing time from X-Amz-Date, or else
// the Date header, and its X-Amz-Date form.
func RequestTime(h http.Header) (time.Time, string, error) {
	if v := h.Get("X-Amz-Date"); v != "" {
		t, err := time.Parse(amzDateLayout, v)
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

// CheckScope reports DynamoDB's InvalidSignatureException for a credential
// scope that does not name the request's date, a region, DynamoDB's signing
// name and aws4_request.
func (a *Authorization) CheckScope(amzDate string) error {
	if a.Date != amzDate[:8] {
		return ddberr.InvalidSignature("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%s', from '%s'.", a.Date, amzDate[:8], amzDate)
	}
	if !validRegion(a.Region) {
		return ddberr.InvalidSignature("Credential should be scoped to a valid region, not '%s'. ", a.Region)
	}
	if a.Service != Service {
		return ddberr.InvalidSignature("Credential should be scoped to correct service: '%s'. ", Service)
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
// a.SignedHeaders and the hex SHA-256 payloadHash of the raw body.
func (a *Authorization) StringToSign(r *http.Request, amzDate, payloadHash string) []byte {
	var b strings.Builder
	b.Grow(512)
	b.WriteString(r.Method)
	b.WriteByte('\n')
	b.WriteString(canonicalURI(r.URL))
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.RawQuery))
	b.WriteByte('\n')
	for _, name := range a.SignedHeaders {
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(headerValue(r, name))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(a.signedListOrJoin())
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	creq := sha256.Sum256([]byte(b.String()))

	out := make([]byte, 0, 160)
	out = append(out, algorithm+"\n"...)
	out = append(out, amzDate...)
	out = append(out, '\n')
	out = append(out, a.Date...)
	out = append(out, '/')
	out = append(out, a.Region...)
	out = append(out, '/')
	out = append(out, a.Service...)
	out = append(out, "/"+terminator+"\n"...)
	out = hex.AppendEncode(out, creq[:])
	return out
}

func (a *Authorization) signedListOrJoin() string {
	if a.signedList != "" {
		return a.signedList
	}
	return strings.Join(a.SignedHeaders, ";")
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
	want := hmacSHA256(key, stringToSign)
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

// headerValue is a signed header's canonical value: its values trimmed,
// inner runs of spaces collapsed, joined by commas. Host and
// Content-Length, which net/http keeps outside Header, are read where it
// keeps them.
func headerValue(r *http.Request, name string) string {
	switch name {
	case "host":
		return r.Host
	case "content-length":
		if v := r.Header.Get("Content-Length"); v != "" {
			return v
		}
		if r.ContentLength >= 0 {
			return strconv.FormatInt(r.ContentLength, 10)
		}
	}
	vs := r.Header.Values(name)
	if len(vs) == 1 && !strings.Contains(vs[0], "  ") {
		return strings.TrimSpace(vs[0])
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(out, ",")
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
