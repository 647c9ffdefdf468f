package api

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// ClientRequestTokens on a storage.TokenStore: a token whose claim is held
// elsewhere is TransactionInProgressException until the claim lapses; a
// completed token is replayed by a new engine on the same database (a
// restart), with its ItemCollectionMetrics.
func TestTransactTokenStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.sqlite")
	open := func() (*Engine, *sqlite.Backend) {
		store, err := sqlite.Open(context.Background(), sqlite.Options{Path: path, Synchronous: "OFF"})
		if err != nil {
			t.Fatal(err)
		}
		e := New(store, Config{})
		return e, store
	}
	e, store := open()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	mustServe(t, e, "CreateTable", `{"TableName":"range","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"lsk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"lsk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	add := func(token, by string) string {
		return `{"TransactItems":[{"Update":{"TableName":"range","Key":{"pk":{"S":"c"},"sk":{"N":"1"}},"UpdateExpression":"ADD n :v","ExpressionAttributeValues":{":v":{"N":"` + by + `"}}}}],
			"ReturnItemCollectionMetrics":"SIZE","ClientRequestToken":"` + token + `"`
	}
	get := `{"TableName":"range","Key":{"pk":{"S":"c"},"sk":{"N":"1"}}}`
	metrics := `"ItemCollectionMetrics":{"range":[{"ItemCollectionKey":{"pk":{"S":"c"}},"SizeEstimateRangeGB":[0.0,1.0]}]}`

	// Another request (another process) holds the claim.
	ctx := context.Background()
	if ok, _, err := store.ClaimToken(ctx, "000000000000", "held", []byte("other"), now); err != nil || !ok {
		t.Fatalf("ClaimToken: %v %v", ok, err)
	}
	runSteps(t, e, []step{
		{name: "claim held", op: "TransactWriteItems", body: add("held", "1") + `}`,
			err: "IdempotentParameterMismatchException: Request parameters do not match the previous request with the same idempotency token"},
	})
	if ok, _, err := store.ClaimToken(ctx, "000000000000", "held2", txHashOf(t, add("held2", "1")+`}`), now); err != nil || !ok {
		t.Fatalf("ClaimToken: %v %v", ok, err)
	}
	runSteps(t, e, []step{
		{name: "in progress", op: "TransactWriteItems", body: add("held2", "1") + `}`,
			err: "TransactionInProgressException: Transaction from previous request is still in progress"},
	})
	now = now.Add(storage.TokenLease)
	runSteps(t, e, []step{
		{name: "lapsed claim taken over", op: "TransactWriteItems", body: add("held2", "1") + `}`, want: `{` + metrics + `}`},
		{op: "GetItem", body: get, want: `{"Item":{"pk":{"S":"c"},"sk":{"N":"1"},"n":{"N":"1"}}}`},
		{name: "first", op: "TransactWriteItems", body: add("t1", "10") + `}`, want: `{` + metrics + `}`},
	})

	// A restart on the same database still knows the tokens.
	store.Close()
	e, store = open()
	defer store.Close()
	e.now = func() time.Time { return now.Add(storage.TokenTTL - time.Second) }
	runSteps(t, e, []step{
		{name: "replay after restart", op: "TransactWriteItems", body: add("t1", "10") + `,"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":[{"TableName":"range","CapacityUnits":2.0,"ReadCapacityUnits":2.0}],` + metrics + `}`},
		{name: "mismatch after restart", op: "TransactWriteItems", body: add("t1", "11") + `}`,
			err: "IdempotentParameterMismatchException: Request parameters do not match the previous request with the same idempotency token"},
		{op: "GetItem", body: get, want: `{"Item":{"pk":{"S":"c"},"sk":{"N":"1"},"n":{"N":"11"}}}`},
	})

	// A record whose sizes were never recorded (a crash between the commit
	// and SetTokenResult) reads them at the replay.
	rp := &txReplay{tables: []string{"range"}, units: map[string]float64{"range": 4}, unsized: true}
	rp.metrics = rp.metrics.add("range", &itemCollectionMetrics{key: item.Item{"pk": item.S("c")}})
	if err := store.SetTokenResult(ctx, "000000000000", "t1", now, encodeTxReplay(rp)); err != nil {
		t.Fatal(err)
	}
	runSteps(t, e, []step{
		{name: "replay reads the sizes", op: "TransactWriteItems", body: add("t1", "10") + `,"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":[{"TableName":"range","CapacityUnits":4.0,"ReadCapacityUnits":4.0}],` + metrics + `}`},
	})
	now = now.Add(storage.TokenTTL)
	e.now = func() time.Time { return now }
	runSteps(t, e, []step{
		{name: "expired: applies again", op: "TransactWriteItems", body: add("t1", "10") + `}`, want: `{` + metrics + `}`},
		{op: "GetItem", body: get, want: `{"Item":{"pk":{"S":"c"},"sk":{"N":"1"},"n":{"N":"21"}}}`},
	})
}

// txHashOf is the request hash of a TransactWriteItems body.
func txHashOf(t *testing.T, body string) []byte {
	t.Helper()
	var in transactWriteItemsInput
	if err := decode([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	h := txRequestHash(&in)
	return h[:]
}
