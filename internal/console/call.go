package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/requestsign"
)

// localKeyID is the access key the console signs with in local mode when
// nobody signed in: in --per-access-key mode its tables are this key's.
const localKeyID = "extenddb-console"

// callTimeout bounds one in-process operation.
const callTimeout = 30 * time.Second

// apiError is a DynamoDB error returned by an operation the console ran.
type apiError struct{ Name, Message string }

func (e *apiError) Error() string {
	if e.Message == "" {
		return e.Name
	}
	return e.Name + ": " + e.Message
}

// call runs the DynamoDB operation op ("DynamoDB" service) with input in
// as the session's principal and decodes its JSON output into out (nil
// discards it). Errors are *apiError with DynamoDB's name and message.
func (c *Console) call(ctx context.Context, s *session, op string, in, out any) error {
	return c.callService(ctx, s, "DynamoDB", op, in, out)
}

// callService is call for service "DynamoDB" or "DynamoDBStreams".
func (c *Console) callService(ctx context.Context, s *session, service, op string, in, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	body, err := json.Marshal(in)
	if err != nil {
		return &apiError{Name: "SerializationException", Message: err.Error()}
	}
	caller, err := c.authorize(ctx, s.identity(), service, op, body)
	if err != nil {
		return asAPIError(err)
	}
	resp, err := c.serve(ctx, &protocol.Request{Service: service, Operation: op, Caller: caller, Host: "console", Body: body})
	if err != nil {
		return asAPIError(err)
	}
	var raw []byte
	if a, ok := resp.(protocol.Appender); ok {
		raw = a.AppendJSON(nil)
	} else if raw, err = json.Marshal(resp); err != nil {
		return asAPIError(err)
	}
	if out == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(out)
}

// serve calls the engine, turning a panic into InternalServerError as the
// protocol layer does.
func (c *Console) serve(ctx context.Context, req *protocol.Request) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.cfg.Log.Error("panic serving console request", "operation", req.Operation, "panic", p)
			resp, err = nil, ddberr.Internal("Internal server error")
		}
	}()
	return c.cfg.Engine.Serve(ctx, req)
}

func asAPIError(err error) error {
	e := ddberr.As(err)
	return &apiError{Name: e.Name(), Message: e.Message}
}

// authorize signs an in-memory request for the operation with the
// session's key and puts it through the server's authenticator, so that
// the console is held to the same signature checks and policies as any
// client.
func (c *Console) authorize(ctx context.Context, id identity, service, op string, body []byte) (protocol.Caller, error) {
	region := id.region
	if region == "" {
		region = c.cfg.Region
	}
	if c.cfg.Auth == nil {
		return protocol.Caller{AccessKeyID: localKeyID, Region: region}, nil
	}
	r, sum, err := c.signed(ctx, id, region, service, op, body)
	if err != nil {
		return protocol.Caller{}, err
	}
	caller, err := c.cfg.Auth.Authenticate(r, sum)
	if err != nil {
		return protocol.Caller{}, err
	}
	if caller.Region == "" {
		caller.Region = region
	}
	// The caller it runs as may be another account's (cross-account access
	// granted by a resource-based policy).
	return c.cfg.Auth.Authorize(r, caller, service, op, body)
}

// signed builds the SigV4-signed HTTP request a client would send.
func (c *Console) signed(ctx context.Context, id identity, region, service, op string, body []byte) (*http.Request, []byte, error) {
	target := "DynamoDB_20120810."
	if service == "DynamoDBStreams" {
		target = "DynamoDBStreams_20120810."
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://console/", bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	r.Header.Set("X-Amz-Target", target+op)
	creds := aws.Credentials{AccessKeyID: id.keyID, SecretAccessKey: id.secret, SessionToken: id.token}
	if creds.AccessKeyID == "" {
		creds.AccessKeyID, creds.SecretAccessKey = localKeyID, localKeyID
	}
	sum, err := requestsign.Sign(ctx, r, body, creds, region, c.cfg.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("signing the console's request: %w", err)
	}
	return r, sum[:], nil
}
