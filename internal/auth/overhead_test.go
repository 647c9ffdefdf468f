package auth

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/protocol"
)

// The cost of authentication on the request path: one GetItem of a small
// item on a real SQLite file through the protocol server, with
// authentication off (the local mode's static Authorization header) and
// on, signed by the account's root user and by a user with an identity
// policy. docs/performance.md gives the figures.

// overheadCase is one way of serving the same GetItem: a server and a
// request to send it again and again.
type overheadCase struct {
	name  string
	srv   *protocol.Server
	req   *http.Request
	reset func()
}

// overheadCases builds the three servers on one SQLite file, wired as
// extenddb serve wires them (the catalog read for resource-based
// policies and dynamodb:LeadingKeys).
func overheadCases(tb testing.TB) []overheadCase {
	st, store := openTestStore(tb)
	ctx := context.Background()
	const acct = "000000000000"
	if err := st.Bootstrap(ctx, acct, testKey, testSecret); err != nil {
		tb.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, acct, "reader"); err != nil {
		tb.Fatal(err)
	}
	uk, err := st.CreateAccessKey(ctx, acct, "reader", "AKIAREADER0000000000", "reader-secret")
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.PutUserPolicy(ctx, acct, "reader", "read", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:Query"],"Resource":"arn:aws:dynamodb:*:*:table/bench"}]}`); err != nil {
		tb.Fatal(err)
	}
	engine := api.New(store, api.Config{})
	for op, body := range map[string]string{
		"CreateTable": `{"TableName":"bench","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
	} {
		if _, err := engine.Serve(ctx, &protocol.Request{Operation: op, Body: []byte(body), Caller: protocol.Caller{Region: "us-east-1"}}); err != nil {
			tb.Fatal(err)
		}
	}
	put := `{"TableName":"bench","Item":{"pk":{"S":"k1"},"a":{"S":"some text"},"n":{"N":"12"}}}`
	if _, err := engine.Serve(ctx, &protocol.Request{Operation: "PutItem", Body: []byte(put), Caller: protocol.Caller{Region: "us-east-1"}}); err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	authn := New(Config{Store: st, HomeRegion: "us-east-1", Tables: store.GetTable, Now: func() time.Time { return now }})
	body := []byte(`{"TableName":"bench","Key":{"pk":{"S":"k1"}}}`)
	request := func(key, secret string) (*http.Request, func()) {
		rd := bytes.NewReader(body)
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", rd)
		r.RemoteAddr = "127.0.0.1:40000"
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
		if key == "" {
			r.Header.Set("X-Amz-Date", now.UTC().Format(amzDateLayout))
			r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=load/"+now.UTC().Format("20060102")+
				"/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature="+
				"0000000000000000000000000000000000000000000000000000000000000000")
		} else {
			sum := sha256.Sum256(body)
			if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", now); err != nil {
				tb.Fatal(err)
			}
		}
		return r, func() { rd.Reset(body); r.Body = io.NopCloser(rd) }
	}
	var out []overheadCase
	for _, c := range []struct {
		name, key, secret string
		auth              protocol.Authenticator
	}{{"off", "", "", nil}, {"root", testKey, testSecret, authn}, {"user", uk.ID, "reader-secret", authn}} {
		r, reset := request(c.key, c.secret)
		out = append(out, overheadCase{name: c.name, srv: &protocol.Server{Handler: engine, DefaultRegion: "us-east-1", Auth: c.auth}, req: r, reset: reset})
	}
	return out
}

// serveOnce serves the case's request into w and fails unless it is
// answered 200.
func (c overheadCase) serveOnce(tb testing.TB, w *discardWriter) {
	c.reset()
	clear(w.h)
	w.status = 0
	c.srv.ServeHTTP(w, c.req)
	if w.status != 0 && w.status != http.StatusOK {
		tb.Fatalf("%s: status %d", c.name, w.status)
	}
}

// BenchmarkGetItemAuthOverhead reports ns/op and allocs/op of one GetItem
// with authentication off, signed by root and signed by a user with an
// identity policy; the cost of authentication is the ratio of the signed
// figures to "off". cpu-ns/op is the process's CPU time per operation,
// which other processes competing for the cores disturb less than ns/op
// (wall time):
//
//	go test -run XXX -bench GetItemAuthOverhead -benchmem -count 6 ./internal/auth/
func BenchmarkGetItemAuthOverhead(b *testing.B) {
	for _, c := range overheadCases(b) {
		b.Run(c.name, func(b *testing.B) {
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				c.serveOnce(b, w)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// signedGetItemExtraAllocs is the most allocations a signed GetItem may
// make beyond the same GetItem with authentication off (verification,
// authorization and the body's hash included). Measure with:
//
//	go test -run TestSignedGetItemAllocationCeiling -v ./internal/auth/
const signedGetItemExtraAllocs = 3

// TestSignedGetItemAllocationCeiling holds the allocations authentication
// adds to a GetItem, by root and by a user with an identity policy, to
// signedGetItemExtraAllocs.
func TestSignedGetItemAllocationCeiling(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	allocs := map[string]float64{}
	for _, c := range overheadCases(t) {
		w := &discardWriter{h: http.Header{}}
		c.serveOnce(t, w) // caches filled
		allocs[c.name] = testing.AllocsPerRun(200, func() { c.serveOnce(t, w) })
	}
	t.Logf("allocations per GetItem: %v (ceiling off+%d)", allocs, signedGetItemExtraAllocs)
	for _, name := range []string{"root", "user"} {
		if extra := allocs[name] - allocs["off"]; extra > signedGetItemExtraAllocs {
			t.Errorf("a GetItem signed by %s allocates %.0f times more than one with authentication off, ceiling %d", name, extra, signedGetItemExtraAllocs)
		}
	}
}

// discardWriter is a ResponseWriter that keeps its header map between
// requests and throws the body away, so that allocations counted are the
// server's and not a recorder's.
type discardWriter struct {
	h      http.Header
	status int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(status int)      { d.status = status }

// TestSignedBodyAsSent: the signature covers the body as sent, compressed
// or not (the payload hash of SigV4 is over the bytes on the wire,
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html),
// whichever way the server hashes it.
func TestSignedBodyAsSent(t *testing.T) {
	c := overheadCases(t)[1] // root
	plain := []byte(`{"TableName":"bench","Key":{"pk":{"S":"k1"}}}`)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain)
	zw.Close()
	now := c.srv.Auth.(*Authenticator).cfg.Now()
	for _, tc := range []struct {
		name             string
		sent, signedOver []byte
		encoding         string
		want             int
	}{
		{"plain", plain, plain, "", http.StatusOK},
		{"plain, other bytes signed", plain, []byte(`{"TableName":"bench","Key":{"pk":{"S":"k2"}}}`), "", http.StatusBadRequest},
		{"gzip", zipped.Bytes(), zipped.Bytes(), "gzip", http.StatusOK},
		{"gzip, decompressed bytes signed", zipped.Bytes(), plain, "gzip", http.StatusBadRequest},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", bytes.NewReader(tc.sent))
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
		if tc.encoding != "" {
			r.Header.Set("Content-Encoding", tc.encoding)
		}
		sum := sha256.Sum256(tc.signedOver)
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}, r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", now); err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		c.srv.ServeHTTP(w, r)
		if w.Code != tc.want || (tc.want != http.StatusOK && !strings.Contains(w.Body.String(), "InvalidSignatureException")) {
			t.Errorf("%s: %d %s", tc.name, w.Code, w.Body)
		}
	}
}
