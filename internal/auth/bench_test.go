package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/protocol"
)

// BenchmarkGetItemHTTP is one GetItem through the HTTP handler on a real
// SQLite file, in local mode (no verification) and with SigV4 verified
// against the credential store: the difference is what authentication
// costs per operation.
//
//	go test -run XXX -bench GetItemHTTP -count 5 ./internal/auth/
func BenchmarkGetItemHTTP(b *testing.B) {
	st, store := openTestStore(b)
	ctx := context.Background()
	if err := st.Bootstrap(ctx, "000000000000", testKey, testSecret); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	engine := api.New(store, api.Config{})
	for _, body := range []string{
		`{"TableName":"bench","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"bench","Item":{"pk":{"S":"k1"},"a":{"S":"some text"},"n":{"N":"12"}}}`,
	} {
		op := map[bool]string{true: "CreateTable", false: "PutItem"}[body[2:11] == "TableName" && bytes.Contains([]byte(body), []byte("KeySchema"))]
		if _, err := engine.Serve(ctx, &protocol.Request{Operation: op, Body: []byte(body), Caller: protocol.Caller{Region: "us-east-1"}}); err != nil {
			b.Fatal(err)
		}
	}
	body := []byte(`{"TableName":"bench","Key":{"pk":{"S":"k1"}}}`)
	signed := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", bytes.NewReader(body))
	signed.Header.Set("Content-Type", "application/x-amz-json-1.0")
	signed.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}, signed, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", now); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		cfg  Config
	}{{"local", Config{HomeRegion: "us-east-1"}}, {"sigv4", Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }}},
		// As the server wires it: with the catalog, for resource-based
		// policies and dynamodb:LeadingKeys.
		{"sigv4-catalog", Config{Store: st, HomeRegion: "us-east-1", Tables: store.GetTable, Now: func() time.Time { return now }}}} {
		b.Run(mode.name, func(b *testing.B) {
			srv := &protocol.Server{Handler: engine, DefaultRegion: "us-east-1", Auth: New(mode.cfg)}
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", bytes.NewReader(body))
				r.Header = signed.Header
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
