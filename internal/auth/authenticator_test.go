package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

func openTestStore(t testing.TB) (*Store, storage.Backend) {
	t.Helper()
	b, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "db.sqlite")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	s, err := NewSealer(make([]byte, ServerKeySize))
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(context.Background(), b, s)
	if err != nil {
		t.Fatal(err)
	}
	return st, b
}

// TestStoreLifecycle: accounts, users and keys on a real SQLite file;
// the secret is stored sealed, never in plain text.
func TestStoreLifecycle(t *testing.T) {
	ctx := context.Background()
	st, b := openTestStore(t)
	if ok, err := HasCredentials(ctx, b); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	a, err := st.CreateAccount(ctx, "", "team")
	if err != nil || !accountIDRE.MatchString(a.ID) {
		t.Fatalf("account %+v %v", a, err)
	}
	if _, err := st.CreateAccount(ctx, a.ID, "again"); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate account: %v", err)
	}
	if _, err := st.CreateUser(ctx, "999999999999", "bob"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("user of missing account: %v", err)
	}
	if _, err := st.CreateUser(ctx, a.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	k, err := st.CreateAccessKey(ctx, a.ID, "alice", "", "")
	if err != nil || len(k.ID) != 20 || k.ID[:4] != "AKIA" || len(k.Secret) != 40 {
		t.Fatalf("key %+v %v", k, err)
	}
	got, err := st.GetAccessKey(ctx, k.ID)
	if err != nil || got.Secret != k.Secret || got.Account != a.ID || got.User != "alice" {
		t.Fatalf("get key %+v %v", got, err)
	}
	it, err := b.GetItem(ctx, st.t, recordKey("key#"+k.ID), true)
	if err != nil || containsBytes(it["doc"].B, k.Secret) {
		t.Fatalf("secret stored in plain text: %s", it["doc"].B)
	}
	if ok, err := HasCredentials(ctx, b); !ok || err != nil {
		t.Fatalf("HasCredentials: %v %v", ok, err)
	}
	keys, err := st.ListAccessKeys(ctx, a.ID, "")
	if err != nil || len(keys) != 1 || keys[0].Secret != "" {
		t.Fatalf("list keys %+v %v", keys, err)
	}
	// `extenddb auth key list` prints the list as JSON: no sealed secret,
	// and no expiry for a long-term key.
	listed, err := json.Marshal(keys)
	if err != nil || contains(string(listed), `"Sealed"`) || contains(string(listed), `"Expires"`) {
		t.Fatalf("listed keys: %s %v", listed, err)
	}
	if got, err := st.GetAccessKey(ctx, k.ID); err != nil || len(got.Sealed) == 0 || !got.Expires.IsZero() {
		t.Fatalf("stored key after listing %+v %v", got, err)
	}
	if err := st.DeleteAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetAccessKey(ctx, k.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("key after account deletion: %v", err)
	}
	// Another server key does not open the secret.
	if err := st.Bootstrap(ctx, "000000000000", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	other, _ := NewSealer(append(make([]byte, ServerKeySize-1), 1))
	if _, err := (&Store{b: b, t: st.t, sealer: other}).GetAccessKey(ctx, testKey); err == nil {
		t.Fatal("a sealed secret opened with another server key")
	}
}

func containsBytes(b []byte, s string) bool {
	return len(s) > 0 && string(b) != "" && contains(string(b), s)
}

func contains(a, b string) bool {
	for i := 0; i+len(b) <= len(a); i++ {
		if a[i:i+len(b)] == b {
			return true
		}
	}
	return false
}

// TestAuthenticate: verified callers get their account's namespace;
// unknown, deleted and mis-signed keys get DynamoDB's errors.
func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	clock := now
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return clock }})

	r, sum := signedRequest(t, `{}`, testSecret, "eu-west-1", now, nil)
	c, err := a.Authenticate(r, sum)
	if err != nil || c.Account != "111122223333" || c.Namespace != "111122223333/eu-west-1" || c.Principal != "arn:aws:iam::111122223333:user/admin" {
		t.Fatalf("caller %+v %v", c, err)
	}
	r, sum = signedRequest(t, `{}`, testSecret, "us-east-1", now, nil)
	if c, err = a.Authenticate(r, sum); err != nil || c.Namespace != "111122223333" {
		t.Fatalf("home region caller %+v %v", c, err)
	}
	r, sum = signedRequest(t, `{}`, "wrong", "us-east-1", now, nil)
	if _, err := a.Authenticate(r, sum); !ddberr.Is(err, "InvalidSignatureException") {
		t.Fatalf("wrong secret: %v", err)
	}
	r, sum = signedRequest(t, `{}`, testSecret, "us-east-1", now, func(r *http.Request) { r.Header.Set("X-Amz-Security-Token", "tok") })
	if _, err := a.Authenticate(r, sum); !ddberr.Is(err, "UnrecognizedClientException") {
		t.Fatalf("session token with a long-term key: %v", err)
	}
	// A deleted key keeps working until the cache entry expires, then is
	// unknown.
	if err := st.DeleteAccessKey(ctx, testKey); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(KeyCacheTTL)
	r, sum = signedRequest(t, `{}`, testSecret, "us-east-1", clock, nil)
	_, err = a.Authenticate(r, sum)
	if e := ddberr.As(err); err == nil || e.Type != "com.amazon.coral.service#UnrecognizedClientException" || e.Message != "The security token included in the request is invalid." {
		t.Fatalf("deleted key: %v", err)
	}
}

// TestLocalModeNamespaces: without a store every well-formed signature is
// accepted; namespaces follow the region, the access key (PerAccessKey)
// or nothing (SharedDB).
func TestLocalModeNamespaces(t *testing.T) {
	now := time.Now()
	cases := []struct {
		cfg    Config
		region string
		want   string
	}{
		{Config{HomeRegion: "us-east-1"}, "us-east-1", "000000000000"},
		{Config{HomeRegion: "us-east-1"}, "eu-west-1", "000000000000/eu-west-1"},
		{Config{HomeRegion: "us-east-1", PerAccessKey: true}, "us-east-1", "000000000000/us-east-1/" + testKey},
		{Config{HomeRegion: "us-east-1", SharedDB: true}, "eu-west-1", "000000000000"},
	}
	for _, c := range cases {
		r, _ := signedRequest(t, `{}`, "anything", c.region, now.Add(-time.Hour), nil)
		got, err := New(c.cfg).Authenticate(r, nil)
		if err != nil || got.Namespace != c.want {
			t.Errorf("%+v %s: got %q %v, want %q", c.cfg, c.region, got.Namespace, err, c.want)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost:8000": true, "LOCALHOST": true, "api.localhost:1": true, "127.0.0.1:8000": true, "127.1.2.3": true,
		"[::1]:8000": true, "evil.example.com:8000": false, "10.0.0.1:8000": false, "localhost.evil.com": false, "": false,
	} {
		if IsLoopbackHost(h) != want {
			t.Errorf("%q: want %v", h, want)
		}
	}
}

// BenchmarkVerify is the cost of authenticating one signed GetItem-sized
// request with a cached key and signing key (compare with
// `go test -bench ItemOps ./internal/api`).
func BenchmarkVerify(b *testing.B) {
	st, _ := openTestStore(b)
	if err := st.Bootstrap(context.Background(), "111122223333", testKey, testSecret); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	r, sum := signedRequest(b, `{"TableName":"bench","Key":{"pk":{"S":"k1"}}}`, testSecret, "us-east-1", now, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Authenticate(r, sum); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAuthorize: a user's identity policies decide each table a request
// touches, with DynamoDB's AccessDeniedException texts
// (https://github.com/anomalyco/sst/issues/4469 quotes "... because no
// identity-based policy allows the dynamodb:PutItem action"); the root
// user is not subject to policies.
func TestAuthorize(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, "111122223333", "carol"); err != nil {
		t.Fatal(err)
	}
	k, err := st.CreateAccessKey(ctx, "111122223333", "carol", "AKIACAROL00000000000", "carol-secret")
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutUserPolicy(ctx, "111122223333", "carol", "rw", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:BatchWriteItem"],"Resource":"arn:aws:dynamodb:*:111122223333:table/A"},
		{"Effect":"Allow","Action":["dynamodb:PartiQLSelect","dynamodb:PartiQLInsert"],"Resource":"arn:aws:dynamodb:*:111122223333:table/A"},
		{"Effect":"Allow","Action":"dynamodb:PartiQLSelect","Resource":"arn:aws:dynamodb:*:111122223333:table/A/index/I"},
		{"Effect":"Allow","Action":["dynamodb:GetShardIterator","dynamodb:GetRecords"],"Resource":"arn:aws:dynamodb:*:111122223333:table/A/stream/*"},
		{"Effect":"Deny","Action":"dynamodb:PutItem","Resource":"*","Condition":{"StringEquals":{"dynamodb:ReturnValues":"ALL_OLD"}}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutUserPolicy(ctx, "111122223333", "carol", "bad", `{"Statement":{}}`); err == nil {
		t.Fatal("an invalid policy was stored")
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	authz := func(key, op, body string) error {
		r, _ := signedRequest(t, body, testSecret, "us-east-1", now, nil)
		r, sum := resign(t, r, body, key, map[string]string{testKey: testSecret, k.ID: "carol-secret"}[key], now)
		c, err := a.Authenticate(r, sum)
		if err != nil {
			return err
		}
		_, err = a.Authorize(r, c, "DynamoDB", op, []byte(body))
		return err
	}
	const carol = "arn:aws:iam::111122223333:user/carol"
	cases := []struct {
		key, op, body, want string
	}{
		{k.ID, "GetItem", `{"TableName":"A"}`, ""},
		{k.ID, "GetItem", `{"TableName":"B"}`, "User: " + carol + " is not authorized to perform: dynamodb:GetItem on resource: arn:aws:dynamodb:us-east-1:111122223333:table/B because no identity-based policy allows the dynamodb:GetItem action"},
		{k.ID, "PutItem", `{"TableName":"A","ReturnValues":"ALL_OLD"}`, "User: " + carol + " is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A with an explicit deny in an identity-based policy"},
		{k.ID, "BatchWriteItem", `{"RequestItems":{"A":[],"B":[]}}`, "User: " + carol + " is not authorized to perform: dynamodb:BatchWriteItem on resource: arn:aws:dynamodb:us-east-1:111122223333:table/B because no identity-based policy allows the dynamodb:BatchWriteItem action"},
		{k.ID, "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"A"}},{"Delete":{"TableName":"A"}}]}`, "User: " + carol + " is not authorized to perform: dynamodb:DeleteItem on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A because no identity-based policy allows the dynamodb:DeleteItem action"},
		{k.ID, "Query", `{"TableName":"A","IndexName":"I"}`, "User: " + carol + " is not authorized to perform: dynamodb:Query on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A/index/I because no identity-based policy allows the dynamodb:Query action"},
		{testKey, "DeleteTable", `{"TableName":"B"}`, ""},
		// Backups, imports and exports on their own resources.
		{k.ID, "DescribeBackup", `{"BackupArn":"arn:aws:dynamodb:us-east-1:111122223333:table/A/backup/01700000000000-abcdefgh"}`, "User: " + carol + " is not authorized to perform: dynamodb:DescribeBackup on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A/backup/01700000000000-abcdefgh because no identity-based policy allows the dynamodb:DescribeBackup action"},
		{k.ID, "ImportTable", `{"TableCreationParameters":{"TableName":"New"}}`, "User: " + carol + " is not authorized to perform: dynamodb:ImportTable on resource: arn:aws:dynamodb:us-east-1:111122223333:table/New because no identity-based policy allows the dynamodb:ImportTable action"},
		{k.ID, "ListExports", `{}`, "User: " + carol + " is not authorized to perform: dynamodb:ListExports on resource: * because no identity-based policy allows the dynamodb:ListExports action"},
		// PartiQL: the statement kind's action on its table or index
		// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-iam.html).
		{k.ID, "ExecuteStatement", `{"Statement":"SELECT * FROM \"A\".\"I\""}`, ""},
		{k.ID, "ExecuteStatement", `{"Statement":"SELECT * FROM A WHERE pk = ?"}`, ""},
		{k.ID, "ExecuteStatement", `{"Statement":"DELETE FROM A WHERE pk = 'x'"}`, "User: " + carol + " is not authorized to perform: dynamodb:PartiQLDelete on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A because no identity-based policy allows the dynamodb:PartiQLDelete action"},
		{k.ID, "BatchExecuteStatement", `{"Statements":[{"Statement":"INSERT INTO A VALUE {'pk':'x'}"},{"Statement":"SELECT * FROM B WHERE pk = 'x'"}]}`, "User: " + carol + " is not authorized to perform: dynamodb:PartiQLSelect on resource: arn:aws:dynamodb:us-east-1:111122223333:table/B because no identity-based policy allows the dynamodb:PartiQLSelect action"},
		{k.ID, "ExecuteTransaction", `{"TransactStatements":[{"Statement":"INSERT INTO A VALUE {'pk':'x'}"},{"Statement":"UPDATE A SET n = 1 WHERE pk = 'y'"}]}`, "User: " + carol + " is not authorized to perform: dynamodb:PartiQLUpdate on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A because no identity-based policy allows the dynamodb:PartiQLUpdate action"},
		// Streams: the stream ARN, for GetRecords the one its iterator names.
		{k.ID, "GetShardIterator", `{"StreamArn":"arn:aws:dynamodb:us-east-1:111122223333:table/A/stream/2026-01-01T00:00:00.000"}`, ""},
		{k.ID, "GetShardIterator", `{"StreamArn":"arn:aws:dynamodb:us-east-1:111122223333:table/B/stream/2026-01-01T00:00:00.000"}`, "User: " + carol + " is not authorized to perform: dynamodb:GetShardIterator on resource: arn:aws:dynamodb:us-east-1:111122223333:table/B/stream/2026-01-01T00:00:00.000 because no identity-based policy allows the dynamodb:GetShardIterator action"},
		{k.ID, "GetRecords", `{"ShardIterator":"` + iteratorFor("arn:aws:dynamodb:us-east-1:111122223333:table/A/stream/2026-01-01T00:00:00.000") + `"}`, ""},
		// Another region in the ARN: the engine looks the stream up in the
		// caller's, so that is where it is authorized; another account's
		// stream is that account's (cross-account access).
		{k.ID, "DescribeStream", `{"StreamArn":"arn:aws:dynamodb:eu-west-1:111122223333:table/B/stream/2026-01-01T00:00:00.000"}`, "User: " + carol + " is not authorized to perform: dynamodb:DescribeStream on resource: arn:aws:dynamodb:us-east-1:111122223333:table/B/stream/2026-01-01T00:00:00.000 because no identity-based policy allows the dynamodb:DescribeStream action"},
		{k.ID, "DescribeStream", `{"StreamArn":"arn:aws:dynamodb:eu-west-1:999999999999:table/B/stream/2026-01-01T00:00:00.000"}`, "User: " + carol + " is not authorized to perform: dynamodb:DescribeStream on resource: arn:aws:dynamodb:us-east-1:999999999999:table/B/stream/2026-01-01T00:00:00.000 because no identity-based policy allows the dynamodb:DescribeStream action"},
		{k.ID, "GetRecords", `{"ShardIterator":"` + iteratorFor("arn:aws:dynamodb:us-east-1:111122223333:table/B/stream/2026-01-01T00:00:00.000") + `"}`, "User: " + carol + " is not authorized to perform: dynamodb:GetRecords on resource: arn:aws:dynamodb:us-east-1:111122223333:table/B/stream/2026-01-01T00:00:00.000 because no identity-based policy allows the dynamodb:GetRecords action"},
	}
	for _, c := range cases {
		err := authz(c.key, c.op, c.body)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: %v", c.op, c.body, err)
			}
			continue
		}
		e := ddberr.As(err)
		if err == nil || e.Type != "com.amazon.coral.service#AccessDeniedException" || e.Message != c.want {
			t.Errorf("%s %s: got %v\nwant %q", c.op, c.body, err, c.want)
		}
	}
}

// iteratorFor is a ShardIterator of stream arn as the engine encodes one.
func iteratorFor(arn string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(`{"a":"` + arn + `","s":"shardId-1","p":0}`))
}

// resign signs r again for key with secret.
func resign(t *testing.T, r *http.Request, body, key, secret string, at time.Time) (*http.Request, []byte) {
	t.Helper()
	r.Header.Del("Authorization")
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at); err != nil {
		t.Fatal(err)
	}
	return r, sum[:]
}

// slowKeyReads counts the store's reads of access key records, each made
// slow enough that concurrent requests overlap.
type slowKeyReads struct {
	storage.Backend
	mu    sync.Mutex
	reads int
}

func (b *slowKeyReads) GetItem(ctx context.Context, t *storage.Table, key storage.Key, consistent bool) (item.Item, error) {
	if bytes.Equal(key.PK, recordKey("key#"+testKey).PK) {
		b.mu.Lock()
		b.reads++
		b.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	return b.Backend.GetItem(ctx, t, key, consistent)
}

// TestConcurrentRequestsReadKeyOnce: requests that arrive together with a
// key not yet cached wait for one store read of it, not one each.
func TestConcurrentRequestsReadKeyOnce(t *testing.T) {
	ctx := context.Background()
	_, b := openTestStore(t)
	counting := &slowKeyReads{Backend: b}
	s, err := NewSealer(make([]byte, ServerKeySize))
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(ctx, counting, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	counting.mu.Lock()
	counting.reads = 0
	counting.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		r, sum := signedRequest(t, `{}`, testSecret, "us-east-1", now, nil)
		wg.Go(func() {
			if _, err := a.Authenticate(r, sum); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if counting.reads != 1 {
		t.Fatalf("%d store reads of the key, want 1", counting.reads)
	}
}

// blockingKeyReads holds every store read of one key until released.
type blockingKeyReads struct {
	storage.Backend
	block   []byte
	entered chan struct{}
	release chan struct{}
}

func (b *blockingKeyReads) GetItem(ctx context.Context, t *storage.Table, key storage.Key, consistent bool) (item.Item, error) {
	if bytes.Equal(key.PK, b.block) {
		b.entered <- struct{}{}
		<-b.release
	}
	return b.Backend.GetItem(ctx, t, key, consistent)
}

// TestUnknownKeyReadDoesNotHoldUpOthers: a slow store read of a made-up
// key id (one of a flood) does not make a request with a real key wait.
func TestUnknownKeyReadDoesNotHoldUpOthers(t *testing.T) {
	ctx := context.Background()
	_, b := openTestStore(t)
	const unknown = "AKIAUNKNOWNKEY000000"
	blocking := &blockingKeyReads{Backend: b, block: recordKey("key#" + unknown).PK,
		entered: make(chan struct{}, 1), release: make(chan struct{})}
	s, err := NewSealer(make([]byte, ServerKeySize))
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(ctx, blocking, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	a := New(Config{Store: st, HomeRegion: "us-east-1"})
	unknownDone := make(chan error, 1)
	go func() {
		_, err := a.accessKey(ctx, unknown)
		unknownDone <- err
	}()
	<-blocking.entered
	known := make(chan error, 1)
	go func() {
		_, err := a.accessKey(ctx, testKey)
		known <- err
	}()
	select {
	case err := <-known:
		if err != nil {
			t.Fatalf("real key: %v", err)
		}
	case <-time.After(5 * time.Second):
		close(blocking.release)
		t.Fatal("a real key waited for the store read of an unknown one")
	}
	close(blocking.release)
	if err := <-unknownDone; !ddberr.Is(err, "UnrecognizedClientException") {
		t.Fatalf("unknown key: %v", err)
	}
}

// TestFullKeyCacheForgetsUnknownKeysFirst: made-up key ids filling the
// cache do not push out the real keys.
func TestFullKeyCacheForgetsUnknownKeysFirst(t *testing.T) {
	a := New(Config{HomeRegion: "us-east-1"})
	now := time.Now()
	a.remember(testKey, cachedKey{found: true, fetched: now})
	for i := 0; len(a.keys) < maxCached; i++ {
		a.remember(fmt.Sprintf("AKIAMADEUP%010d", i), cachedKey{fetched: now})
	}
	a.remember("AKIAONEMORE000000000", cachedKey{fetched: now})
	if c, ok := a.cachedKey(testKey, now); !ok || !c.found {
		t.Fatal("the real key was pushed out of the cache by unknown ones")
	}
	if len(a.keys) != 2 {
		t.Fatalf("cache holds %d entries after forgetting the unknown ones, want 2", len(a.keys))
	}
}

// TestKeyReadOutlivesACancelledCaller: the store read of a key is shared by
// every request waiting for it, so it must not end with the context of the
// request that started it (a client that hangs up would otherwise fail the
// others with an internal error), and that request, once gone, does not
// wait for the read: it returns at once while the read goes on and fills
// the cache.
func TestKeyReadOutlivesACancelledCaller(t *testing.T) {
	ctx := context.Background()
	_, b := openTestStore(t)
	blocking := &blockingKeyReads{Backend: b, block: recordKey("key#" + testKey).PK,
		entered: make(chan struct{}, 1), release: make(chan struct{})}
	s, err := NewSealer(make([]byte, ServerKeySize))
	if err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(ctx, b, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	if st, err = OpenStore(ctx, blocking, s); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	gone, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := a.loadKey(gone, testKey, now)
		done <- err
	}()
	<-blocking.entered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("key read for a cancelled caller: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		close(blocking.release)
		t.Fatal("a cancelled caller waited for the shared key read")
	}
	close(blocking.release)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if c, ok := a.cachedKey(testKey, now); ok && c.found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the shared key read ended with its caller: the key was never cached")
		}
	}
	c, err := a.loadKey(ctx, testKey, now)
	if err != nil || !c.found {
		t.Fatalf("key read after the cancelled one: %+v, %v", c, err)
	}
}
