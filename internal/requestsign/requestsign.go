// Package requestsign signs HTTP requests for DynamoDB with AWS Signature
// Version 4, as the AWS SDKs sign them: signing name "dynamodb", the
// payload's SHA-256 as the canonical request's payload hash. The admin
// client and the web console sign with it.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
package requestsign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Sign adds the SigV4 headers for creds, region and the time now to r,
// whose body is body, and returns body's SHA-256 sum.
func Sign(ctx context.Context, r *http.Request, body []byte, creds aws.Credentials, region string, now time.Time) ([sha256.Size]byte, error) {
	sum := sha256.Sum256(body)
	// A signer per request: a v4.Signer caches derived keys by access key
	// ID and scope, not by secret, so one shared signer would go on
	// signing with a key derived from a mistyped secret after the right
	// one is given for the same access key ID.
	return sum, v4.NewSigner().SignHTTP(ctx, creds, r, hex.EncodeToString(sum[:]), "dynamodb", region, now)
}
