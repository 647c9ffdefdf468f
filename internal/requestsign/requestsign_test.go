package requestsign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/extenddb/extenddb/internal/auth"
)

// A signed request passes the server's own SigV4 checks: its scope names
// the region and DynamoDB's signing name, and its signature verifies with
// the secret's signing key over the returned payload sum.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
func TestSignPassesTheServersVerification(t *testing.T) {
	body := []byte(`{"TableName":"t"}`)
	r, err := http.NewRequest(http.MethodPost, "http://localhost:8000/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}
	sum, err := Sign(context.Background(), r, body, creds, "eu-west-1", now)
	if err != nil {
		t.Fatal(err)
	}
	if sum != sha256.Sum256(body) {
		t.Fatalf("sum %x is not the body's SHA-256", sum)
	}
	a, err := auth.ParseAuthorization(r.Header.Get("Authorization"), r.Header.Get("X-Amz-Date") != "")
	if err != nil {
		t.Fatal(err)
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if err := a.CheckScope(amzDate, "dynamodb"); err != nil {
		t.Fatal(err)
	}
	if a.Region != "eu-west-1" {
		t.Errorf("region %q, want eu-west-1", a.Region)
	}
	key := auth.SigningKey("secret", amzDate[:8], "eu-west-1", "dynamodb")
	if !a.Verify(r, amzDate, sum[:], key) {
		t.Error("signature does not verify")
	}
	if a.Verify(r, amzDate, sum[:], auth.SigningKey("other", amzDate[:8], "eu-west-1", "dynamodb")) {
		t.Error("signature verifies under another secret")
	}
}

// Signing again for the same access key ID with another secret uses the
// new secret: the console signs in a user who first mistypes the secret.
func TestSignUsesTheSecretGiven(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, secret := range []string{"wrong", "right"} {
		r, err := http.NewRequest(http.MethodPost, "http://localhost:8000/", nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Sign(context.Background(), r, nil, aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: secret}, "us-east-1", now)
		if err != nil {
			t.Fatal(err)
		}
		a, err := auth.ParseAuthorization(r.Header.Get("Authorization"), true)
		if err != nil {
			t.Fatal(err)
		}
		amzDate := r.Header.Get("X-Amz-Date")
		if !a.Verify(r, amzDate, sum[:], auth.SigningKey(secret, amzDate[:8], "us-east-1", "dynamodb")) {
			t.Errorf("signed with secret %q: does not verify under it", secret)
		}
	}
}
