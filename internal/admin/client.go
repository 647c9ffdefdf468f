package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/extenddb/extenddb/internal/requestsign"
)

// Client calls the admin API of a server, signing its requests with SigV4
// for the service "dynamodb" as the AWS SDKs sign DynamoDB's.
type Client struct {
	Endpoint    string // e.g. http://127.0.0.1:8000
	Region      string // default us-east-1
	Credentials aws.Credentials
	HTTP        *http.Client // default a client with a 60 s timeout
}

// APIError is an error answer of the admin API.
type APIError struct {
	Status  int
	Type    string `json:"__type"`
	Message string `json:"message"`
}

func (e *APIError) Error() string {
	name := e.Type
	if i := strings.LastIndexByte(name, '#'); i >= 0 {
		name = name[i+1:]
	}
	return fmt.Sprintf("%s: %s", name, e.Message)
}

// do sends one request and decodes its answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.Endpoint, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	region := c.Region
	if region == "" {
		region = "us-east-1"
	}
	if c.Credentials.AccessKeyID != "" {
		if _, err := requestsign.Sign(ctx, req, body, c.Credentials, region, time.Now()); err != nil {
			return err
		}
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		e := &APIError{Status: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Type == "" {
			return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(raw))
		}
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// SaveSnapshot saves the named tables (all when none) as snapshot name.
func (c *Client) SaveSnapshot(ctx context.Context, name string, tables ...string) (*Snapshot, error) {
	var s Snapshot
	err := c.do(ctx, http.MethodPost, Prefix+"snapshots", map[string]any{"Name": name, "Tables": tables}, &s)
	return &s, err
}

// RestoreSnapshot restores snapshot name.
func (c *Client) RestoreSnapshot(ctx context.Context, name string) (*Snapshot, error) {
	var s Snapshot
	err := c.do(ctx, http.MethodPost, Prefix+"snapshots/"+url.PathEscape(name)+"/restore", nil, &s)
	return &s, err
}

// ListSnapshots lists the snapshots of the caller's namespace.
func (c *Client) ListSnapshots(ctx context.Context) ([]*Snapshot, error) {
	var l snapshotList
	err := c.do(ctx, http.MethodGet, Prefix+"snapshots", nil, &l)
	return l.Snapshots, err
}

// DeleteSnapshot deletes snapshot name.
func (c *Client) DeleteSnapshot(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, Prefix+"snapshots/"+url.PathEscape(name), nil, nil)
}

// Truncate removes every item of table and keeps its definition.
func (c *Client) Truncate(ctx context.Context, table string) error {
	return c.do(ctx, http.MethodPost, Prefix+"tables/"+url.PathEscape(table)+"/truncate", nil, nil)
}

// ExpireNow runs the TTL expiry of table at once and returns how many
// items it deleted.
func (c *Client) ExpireNow(ctx context.Context, table string) (int, error) {
	var r tableResult
	err := c.do(ctx, http.MethodPost, Prefix+"tables/"+url.PathEscape(table)+"/expire-now", nil, &r)
	if r.ExpiredItems == nil {
		return 0, err
	}
	return *r.ExpiredItems, err
}

// ClockState is the server's clock.
type ClockState = clockState

// Clock reads the server's clock.
func (c *Client) Clock(ctx context.Context) (ClockState, error) {
	var s clockState
	err := c.do(ctx, http.MethodGet, Prefix+"clock", nil, &s)
	return s, err
}

// AdvanceClock moves the manual clock forward by d ("1h", "2d").
func (c *Client) AdvanceClock(ctx context.Context, d string) (ClockState, error) {
	var s clockState
	err := c.do(ctx, http.MethodPost, Prefix+"clock", map[string]string{"Advance": d}, &s)
	return s, err
}

// SetClock sets the manual clock to t.
func (c *Client) SetClock(ctx context.Context, t time.Time) (ClockState, error) {
	var s clockState
	err := c.do(ctx, http.MethodPost, Prefix+"clock", map[string]string{"Set": t.UTC().Format(time.RFC3339Nano)}, &s)
	return s, err
}
