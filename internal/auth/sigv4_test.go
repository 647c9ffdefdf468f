package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/extenddb/extenddb/internal/ddberr"
)

const (
	testKey    = "AKIAIOSFODNN7EXAMPLE"
	testSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// signedRequest builds a request as the server receives it, signed by the
// AWS SDK for Go v2's signer at t with secret.
func signedRequest(t testing.TB, body, secret, region string, at time.Time, mutate func(*http.Request)) (*http.Request, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	req.Header.Set("User-Agent", "aws-sdk-go-v2/1.0   test")
	sum := sha256.Sum256([]byte(body))
	if mutate != nil {
		mutate(req)
	}
	err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: testKey, SecretAccessKey: secret},
		req, hex.EncodeToString(sum[:]), "dynamodb", region, at)
	if err != nil {
		t.Fatal(err)
	}
	// As net/http's server sees it: Host outside the header map.
	req.Host = req.URL.Host
	return req, sum[:]
}

func verify(r *http.Request, sum []byte, secret string) error {
	az, err := ParseAuthorization(r.Header.Get("Authorization"), true)
	if err != nil {
		return err
	}
	t, amzDate, err := RequestTime(r.Header)
	if err != nil {
		return err
	}
	if err := az.CheckScope(amzDate, Service); err != nil {
		return err
	}
	if err := CheckSkew(t, time.Now()); err != nil {
		return err
	}
	key := SigningKey(secret, az.Date, az.Region, az.Service)
	viaString := az.SignatureMatches(key, az.StringToSign(r, amzDate, hex.EncodeToString(sum)))
	if viaString != az.Verify(r, amzDate, sum, key) {
		panic("Verify and StringToSign disagree")
	}
	if !viaString {
		return ErrSignatureMismatch()
	}
	return nil
}

// TestVerifySDKSignatures: a signature made by the AWS SDK for Go v2
// verifies, including with a session token header, a query string and
// multi-valued headers; any change to the signed bytes does not.
func TestVerifySDKSignatures(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name   string
		mutate func(*http.Request)
	}{
		{"plain", nil},
		{"extra signed header with inner spaces", func(r *http.Request) { r.Header.Set("X-Amz-Meta", "a   b  c") }},
		{"multi-valued header", func(r *http.Request) { r.Header.Add("X-Amz-Multi", "one"); r.Header.Add("X-Amz-Multi", " two ") }},
		{"query string", func(r *http.Request) { r.URL.RawQuery = "b=2&a=1&a=0&c=x%20y" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, sum := signedRequest(t, `{"TableName":"T"}`, testSecret, "us-east-1", now, c.mutate)
			if err := verify(r, sum, testSecret); err != nil {
				t.Fatalf("verify: %v", err)
			}
			if err := verify(r, sum, "other"); !ddberr.Is(err, "InvalidSignatureException") {
				t.Fatalf("wrong secret: %v", err)
			}
			other := sha256.Sum256([]byte(`{"TableName":"U"}`))
			if err := verify(r, other[:], testSecret); !ddberr.Is(err, "InvalidSignatureException") {
				t.Fatalf("other body: %v", err)
			}
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DeleteTable")
			if err := verify(r, sum, testSecret); !ddberr.Is(err, "InvalidSignatureException") {
				t.Fatalf("changed signed header: %v", err)
			}
		})
	}
}

// TestSignatureMismatchText asserts DynamoDB's text for a wrong secret, as
// AWS's troubleshooting guide and users' reports quote it
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html).
func TestSignatureMismatchText(t *testing.T) {
	e := ddberr.As(ErrSignatureMismatch())
	if e.Type != "com.amazon.coral.service#InvalidSignatureException" ||
		e.Message != "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details." {
		t.Fatalf("got %s %q", e.Type, e.Message)
	}
}

// TestClockSkew: AWS's 5-minute window and texts, as users quote them:
// "Signature expired: 20160610T180547Z is now earlier than 20160610T180612Z
// (20160610T181112Z - 5 min.)" (https://github.com/hassy/artillery-dino/issues/2)
// and "Signature not yet current: 20181120T211543Z is still later than
// 20181120T211529Z (20181120T211029Z + 5 min.)"
// (https://github.com/serverless/enterprise/issues/11).
func TestClockSkew(t *testing.T) {
	now := time.Date(2016, 6, 10, 18, 11, 12, 0, time.UTC)
	cases := []struct {
		at   time.Time
		want string
	}{
		{now.Add(-4*time.Minute - 59*time.Second), ""},
		{now.Add(5 * time.Minute), ""},
		{time.Date(2016, 6, 10, 18, 5, 47, 0, time.UTC), "Signature expired: 20160610T180547Z is now earlier than 20160610T180612Z (20160610T181112Z - 5 min.)"},
		{now.Add(5*time.Minute + time.Second), "Signature not yet current: 20160610T181613Z is still later than 20160610T181612Z (20160610T181112Z + 5 min.)"},
	}
	for _, c := range cases {
		err := CheckSkew(c.at, now)
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.at, err)
			}
			continue
		}
		e := ddberr.As(err)
		if err == nil || e.Name() != "InvalidSignatureException" || e.Message != c.want {
			t.Errorf("%v: got %v, want %q", c.at, err, c.want)
		}
	}
}

// TestParseAuthorizationErrors: DynamoDB's MissingAuthenticationToken and
// IncompleteSignature answers.
func TestParseAuthorizationErrors(t *testing.T) {
	cases := []struct {
		h       string
		hasDate bool
		typ     string
		msg     string
	}{
		{"", true, "MissingAuthenticationTokenException", "Request is missing Authentication Token"},
		{"Basic Zm9v", true, "MissingAuthenticationTokenException", "Request is missing Authentication Token"},
		{"AWS4-HMAC-SHA256 Credential=A/20240101/us-east-1/dynamodb/aws4_request", false, "IncompleteSignatureException",
			"Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. " +
				"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. " +
				"Authorization=AWS4-HMAC-SHA256 Credential=A/20240101/us-east-1/dynamodb/aws4_request"},
		{"AWS4-HMAC-SHA256 Credential=A/20240101/us-east-1, SignedHeaders=host, Signature=00", true, "IncompleteSignatureException",
			"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'A/20240101/us-east-1'"},
	}
	for _, c := range cases {
		a, err := ParseAuthorization(c.h, c.hasDate)
		if err == nil {
			err = a.CheckCredential()
		}
		e := ddberr.As(err)
		if err == nil || e.Name() != c.typ || e.Message != c.msg {
			t.Errorf("%q: got %v, want %s %q", c.h, err, c.typ, c.msg)
		}
	}
}

// TestCheckScope: the credential scope must name the request's date, a
// region, DynamoDB and aws4_request (texts as AWS sends them, e.g.
// https://github.com/aws/aws-sdk-js/issues/4002 and
// https://github.com/cllunsford/aws-signing-proxy/issues/25).
func TestCheckScope(t *testing.T) {
	base := Authorization{Date: "20240101", Region: "us-east-1", Service: "dynamodb", Terminator: "aws4_request"}
	cases := []struct {
		edit func(a *Authorization)
		want string
	}{
		{func(a *Authorization) {}, ""},
		{func(a *Authorization) { a.Date = "20231231" }, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20231231' != '20240101', from '20240101T000000Z'."},
		{func(a *Authorization) { a.Region = "EU WEST" }, "Credential should be scoped to a valid region, not 'EU WEST'. "},
		{func(a *Authorization) { a.Service = "s3" }, "Credential should be scoped to correct service: 'dynamodb'. "},
		{func(a *Authorization) { a.Terminator = "aws5" }, "Credential should be scoped with a valid terminator: 'aws4_request', not 'aws5'. "},
	}
	for i, c := range cases {
		a := base
		c.edit(&a)
		err := a.CheckScope("20240101T000000Z", Service)
		if c.want == "" {
			if err != nil {
				t.Errorf("%d: %v", i, err)
			}
			continue
		}
		if e := ddberr.As(err); err == nil || e.Name() != "InvalidSignatureException" || e.Message != c.want {
			t.Errorf("%d: got %v, want %q", i, err, c.want)
		}
	}
}

func TestRequestTimeFromDateHeader(t *testing.T) {
	h := http.Header{}
	h.Set("Date", "Mon, 01 Jan 2024 10:00:00 GMT")
	_, amz, err := RequestTime(h)
	if err != nil || amz != "20240101T100000Z" {
		t.Fatalf("got %q, %v", amz, err)
	}
	h.Set("X-Amz-Date", "2024-01-01")
	if _, _, err := RequestTime(h); !ddberr.Is(err, "IncompleteSignatureException") || !strings.Contains(err.Error(), "ISO-8601") {
		t.Fatalf("bad X-Amz-Date: %v", err)
	}
}

// TestParseAmzDate: the fast path agrees with time.Parse.
func TestParseAmzDate(t *testing.T) {
	for _, v := range []string{"20240101T000000Z", "20241231T235959Z", "20240230T000000Z", "20241301T000000Z", "2024010xT000000Z", "20240101T246000Z", "20240229T120000Z"} {
		got, err := parseAmzDate(v)
		want, werr := time.Parse(amzDateLayout, v)
		if (err == nil) != (werr == nil) || !got.Equal(want) {
			t.Errorf("%s: got %v %v, want %v %v", v, got, err, want, werr)
		}
	}
}

func FuzzParseAuthorization(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=abcd")
	f.Add("AWS4-")
	f.Add("AWS4-HMAC-SHA256 Credential=/////, SignedHeaders=;, Signature==")
	f.Fuzz(func(t *testing.T, h string) {
		a, err := ParseAuthorization(h, true)
		if err != nil {
			if ddberr.As(err).Status != http.StatusBadRequest {
				t.Fatalf("status %d", ddberr.As(err).Status)
			}
			return
		}
		if a.CheckScope("20240101T000000Z", Service) == nil {
			r := httptest.NewRequest(http.MethodPost, "http://h/", nil)
			sts := a.StringToSign(r, "20240101T000000Z", "")
			a.SignatureMatches(SigningKey("s", a.Date, a.Region, a.Service), sts)
		}
	})
}

// TestParseAuthorizationPadded: spaces around the Authorization header and
// its parameters do not count (protocol.AuthorizationParams trims them for
// both the verified and the unverified path).
func TestParseAuthorizationPadded(t *testing.T) {
	a, err := ParseAuthorization("  AWS4-HMAC-SHA256   Credential=AK/20240101/eu-west-1/dynamodb/aws4_request ,  SignedHeaders=host;x-amz-date,Signature=00  ", true)
	if err != nil {
		t.Fatal(err)
	}
	if a.AccessKeyID != "AK" || a.Region != "eu-west-1" || a.Signature != "00" || a.Raw != "AWS4-HMAC-SHA256   Credential=AK/20240101/eu-west-1/dynamodb/aws4_request ,  SignedHeaders=host;x-amz-date,Signature=00" {
		t.Fatalf("got %+v", a)
	}
	if err := a.CheckCredential(); err != nil {
		t.Fatal(err)
	}
}
