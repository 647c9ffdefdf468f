package protocol

import (
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// AuthorizationParams reads the three SigV4 parameters, the first of a
// repeated one, whichever order they come in; the unverified path
// (parseAuthorization, authentication off) takes the caller's key and
// region from the same Credential. The error texts are DynamoDB's, as
// internal/auth's TestParseAuthorizationErrors cites them.
func TestAuthorizationParams(t *testing.T) {
	h := "AWS4-HMAC-SHA256 Signature=00, SignedHeaders=host;x-amz-date, Credential=AK/20240101/eu-west-1/dynamodb/aws4_request, Credential=OTHER/20240101/us-east-1/dynamodb/aws4_request"
	cred, signed, sig, err := AuthorizationParams(h, true)
	if err != nil || cred != "AK/20240101/eu-west-1/dynamodb/aws4_request" || signed != "host;x-amz-date" || sig != "00" {
		t.Fatalf("got %q %q %q %v", cred, signed, sig, err)
	}
	c, err := parseAuthorization(h, true)
	if err != nil || c.AccessKeyID != "AK" || c.Region != "eu-west-1" {
		t.Fatalf("parseAuthorization: %+v %v", c, err)
	}
	// Spaces around the header and its parameters do not count, on the
	// unverified path as on the verified one (internal/auth's parse).
	padded := "  AWS4-HMAC-SHA256   Credential=AK/20240101/eu-west-1/dynamodb/aws4_request ,  SignedHeaders=host;x-amz-date,Signature=00  "
	if cred, signed, sig, err = AuthorizationParams(padded, true); err != nil || cred != "AK/20240101/eu-west-1/dynamodb/aws4_request" || signed != "host;x-amz-date" || sig != "00" {
		t.Fatalf("padded: got %q %q %q %v", cred, signed, sig, err)
	}
	if c, err = parseAuthorization(padded, true); err != nil || c.AccessKeyID != "AK" || c.Region != "eu-west-1" {
		t.Fatalf("parseAuthorization padded: %+v %v", c, err)
	}
	_, _, _, err = AuthorizationParams("  AWS4-HMAC-SHA256 SignedHeaders=host ", true)
	want := "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization=AWS4-HMAC-SHA256 SignedHeaders=host"
	if e := ddberr.As(err); err == nil || e.Name() != "IncompleteSignatureException" || e.Message != want {
		t.Errorf("got %v, want IncompleteSignatureException %q", err, want)
	}
	if _, _, _, err := AuthorizationParams("Basic Zm9v", true); !ddberr.Is(err, "MissingAuthenticationTokenException") {
		t.Errorf("Basic: got %v", err)
	}
}
