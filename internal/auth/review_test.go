package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// signerFor signs r with the SDK's signer for key and region.
func signerFor(r *http.Request, key, secret string, sum []byte, region string, at time.Time) error {
	return v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
		r, hex.EncodeToString(sum), "dynamodb", region, at)
}

// signOver signs r by hand with testKey and secret over the given
// SignedHeaders (lower case, sorted), as a hand-written client might.
func signOver(t *testing.T, r *http.Request, body, secret string, signed []string, at time.Time) []byte {
	t.Helper()
	amzDate := at.UTC().Format("20060102T150405Z")
	r.Header.Set("X-Amz-Date", amzDate)
	sum := sha256.Sum256([]byte(body))
	var canon strings.Builder
	canon.WriteString("POST\n/\n\n")
	for _, h := range signed {
		v := r.Header.Get(h)
		if h == "host" || h == ":authority" {
			v = r.Host
		}
		canon.WriteString(h + ":" + v + "\n")
	}
	canon.WriteString("\n" + strings.Join(signed, ";") + "\n" + hex.EncodeToString(sum[:]))
	creq := sha256.Sum256([]byte(canon.String()))
	scope := amzDate[:8] + "/us-east-1/dynamodb/aws4_request"
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(creq[:])
	mac := func(k []byte, m string) []byte { h := hmac.New(sha256.New, k); h.Write([]byte(m)); return h.Sum(nil) }
	k := mac([]byte("AWS4"+secret), amzDate[:8])
	for _, m := range []string{"us-east-1", "dynamodb", "aws4_request"} {
		k = mac(k, m)
	}
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+testKey+"/"+scope+", SignedHeaders="+
		strings.Join(signed, ";")+", Signature="+hex.EncodeToString(mac(k, sts)))
	return sum[:]
}

// TestHostMustBeSigned: DynamoDB refuses a signature that does not cover
// the Host header, with InvalidSignatureException "'Host' or ':authority'
// must be a 'SignedHeader' in the AWS Authorization." (HTTP 400, quoted
// from DynamoDB in https://github.com/aws/aws-sdk-php/issues/2469 and
// https://github.com/kitar/laravel-dynamodb/issues/18). Otherwise a
// signature captured for one server is good for any other.
func TestHostMustBeSigned(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	for _, c := range []struct {
		signed []string
		want   string // "" for accepted
	}{
		{[]string{"host", "x-amz-date", "x-amz-target"}, ""},
		// HTTP/2's :authority stands for Host, and is the Host's value.
		{[]string{":authority", "x-amz-date"}, ""},
		{[]string{"x-amz-date", "x-amz-target"}, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."},
		{[]string{"content-type", "x-amz-date"}, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."},
	} {
		r, _ := signedRequest(t, `{}`, testSecret, "us-east-1", now, nil)
		sum := signOver(t, r, `{}`, testSecret, c.signed, now)
		_, err := a.Authenticate(r, sum)
		if c.want == "" {
			if err != nil {
				t.Errorf("SignedHeaders %v: %v", c.signed, err)
			}
			continue
		}
		e := ddberr.As(err)
		if err == nil || e.Type != "com.amazon.coral.service#InvalidSignatureException" || e.Message != c.want || e.Status != http.StatusBadRequest {
			t.Errorf("SignedHeaders %v: got %v, want InvalidSignatureException %q", c.signed, err, c.want)
		}
	}
}

// TestStoredPolicyThatNoLongerParsesDenies: an identity policy stored
// before the parser became stricter (here with a misspelt element) must
// not be skipped, which would drop its Deny and widen access: it denies
// everything until replaced.
func TestStoredPolicyThatNoLongerParsesDenies(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, "111122223333", "dave"); err != nil {
		t.Fatal(err)
	}
	k, err := st.CreateAccessKey(ctx, "111122223333", "dave", "AKIADAVE000000000000", "dave-secret")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutUserPolicy(ctx, "111122223333", "dave", "all", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`); err != nil {
		t.Fatal(err)
	}
	old := `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"dynamodb:GetItem","Resource":"*","Sid2":"x"}}`
	if err := st.put(ctx, policyID("111122223333", "dave", "legacy"), UserPolicy{Account: "111122223333", User: "dave", Name: "legacy", Document: old}, false); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	body := `{"TableName":"A"}`
	r, _ := signedRequest(t, body, testSecret, "us-east-1", now, nil)
	r, sum := resign(t, r, body, k.ID, "dave-secret", now)
	c, err := a.Authenticate(r, sum)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Authorize(r, c, "DynamoDB", "GetItem", []byte(body))
	want := "User: arn:aws:iam::111122223333:user/dave is not authorized to perform: dynamodb:GetItem on resource: arn:aws:dynamodb:us-east-1:111122223333:table/A with an explicit deny in an identity-based policy"
	if e := ddberr.As(err); err == nil || e.Message != want {
		t.Fatalf("got %v, want AccessDeniedException %q", err, want)
	}
}

// TestListTablesResource: DynamoDB authorizes ListTables on
// arn:aws:dynamodb:REGION:ACCOUNT:table/*, so a policy granting it on the
// account's tables allows it, and a refusal names that resource ("... is
// not authorized to perform: dynamodb:ListTables on resource:
// arn:aws:dynamodb:us-east-1:123456789012:table/* because no
// identity-based policy allows the dynamodb:ListTables action", quoted
// from AWS in https://github.com/AntonShuvaev/intellij-dynamodb/issues/20).
func TestListTablesResource(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, u := range []string{"erin", "frank"} {
		if _, err := st.CreateUser(ctx, "111122223333", u); err != nil {
			t.Fatal(err)
		}
		k, err := st.CreateAccessKey(ctx, "111122223333", u, "AKIA"+strings.ToUpper(u)+strings.Repeat("0", 16-len(u)), u+"-secret")
		if err != nil {
			t.Fatal(err)
		}
		keys[u] = k.ID
	}
	if err := st.PutUserPolicy(ctx, "111122223333", "erin", "list", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:ListTables","Resource":"arn:aws:dynamodb:eu-west-1:111122223333:table/*"}}`); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	list := func(user string) error {
		r, _ := signedRequest(t, `{}`, testSecret, "eu-west-1", now, nil)
		r.Header.Del("Authorization")
		sum := sha256.Sum256([]byte(`{}`))
		if err := signerFor(r, keys[user], user+"-secret", sum[:], "eu-west-1", now); err != nil {
			t.Fatal(err)
		}
		c, err := a.Authenticate(r, sum[:])
		if err != nil {
			return err
		}
		_, err = a.Authorize(r, c, "DynamoDB", "ListTables", []byte(`{}`))
		return err
	}
	if err := list("erin"); err != nil {
		t.Errorf("erin, allowed on table/*: %v", err)
	}
	want := "User: arn:aws:iam::111122223333:user/frank is not authorized to perform: dynamodb:ListTables on resource: arn:aws:dynamodb:eu-west-1:111122223333:table/* because no identity-based policy allows the dynamodb:ListTables action"
	if err := list("frank"); ddberr.As(err) == nil || ddberr.As(err).Message != want {
		t.Errorf("frank: got %v, want %q", err, want)
	}
}

// TestSessionCredentials: a temporary key works only with its session
// token, and from its expiry on gets DynamoDB's ExpiredTokenException,
// "The security token included in the request is expired" (HTTP 400, the
// response DynamoDB sent for a GetSessionToken key past its expiry in
// https://github.com/guregu/dynamo/issues/68); a wrong or missing token is
// an unknown security token.
func TestSessionCredentials(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	base, err := st.GetAccessKey(ctx, testKey)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	creds, err := st.CreateSessionKey(ctx, base, "", "", start, 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	clock := start
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return clock }})
	call := func(token string) error {
		r, _ := signedRequest(t, `{}`, testSecret, "us-east-1", clock, nil)
		r.Header.Del("Authorization")
		sum := sha256.Sum256([]byte(`{}`))
		err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, SessionToken: token},
			r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", clock)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.Authenticate(r, sum[:])
		return err
	}
	if err := call(creds.SessionToken); err != nil {
		t.Fatalf("with its token: %v", err)
	}
	for _, tok := range []string{"", creds.SessionToken + "x", "AQoDYXdzEJr"} {
		e := ddberr.As(call(tok))
		if e == nil || e.Type != "com.amazon.coral.service#UnrecognizedClientException" || e.Message != "The security token included in the request is invalid." {
			t.Errorf("token %q: got %v, want UnrecognizedClientException", tok, e)
		}
	}
	clock = creds.Expiration.Add(-time.Second)
	if err := call(creds.SessionToken); err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	clock = creds.Expiration
	e := ddberr.As(call(creds.SessionToken))
	if e == nil || e.Type != "com.amazon.coral.service#ExpiredTokenException" || e.Message != "The security token included in the request is expired" || e.Status != http.StatusBadRequest {
		t.Fatalf("at expiry: got %v, want ExpiredTokenException", e)
	}
}

// TestLoopbackRefusalIsJSON: the local mode's refusal of a foreign Host is
// a DynamoDB error body that SDKs can parse, whatever the Host holds
// (quotes included), and it names the Host it refused.
func TestLoopbackRefusalIsJSON(t *testing.T) {
	h := LoopbackHostOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Fatal("reached the API") }))
	for _, host := range []string{"rebound.example.com", `x","__type":"Injected`, "evil.example:8000"} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8000/", strings.NewReader(`{}`))
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var body map[string]string
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("Host %q: body is not JSON: %v\n%s", host, err, w.Body.String())
		}
		want := "Host '" + host + "' is not a loopback name or address; this server runs without authentication and answers loopback clients only (see docs/security.md)"
		if w.Code != http.StatusForbidden || len(body) != 2 || body["__type"] != "com.amazon.coral.service#AccessDeniedException" || body["message"] != want {
			t.Errorf("Host %q: %d %v", host, w.Code, body)
		}
	}
}

// TestDeletingRevokesRoleSessions: deleting a role, or the account that
// holds it, ends its sessions (within the key cache's lifetime); a role
// created again under the same name does not revive them, as IAM ties
// sessions to the role's unique ID.
func TestDeletingRevokesRoleSessions(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	if err := st.Bootstrap(ctx, "111122223333", testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateAccount(ctx, "444455556666", "b"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	clock := start
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return clock }})
	session := func(account string) SessionCredentials {
		if _, err := st.CreateRole(ctx, account, "ci", nil); err != nil {
			t.Fatal(err)
		}
		c, err := st.CreateSessionKey(ctx, AccessKey{Account: account}, "ci", "build", clock, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	call := func(c SessionCredentials) error {
		r, _ := signedRequest(t, `{}`, testSecret, "us-east-1", clock, nil)
		r.Header.Del("Authorization")
		sum := sha256.Sum256([]byte(`{}`))
		if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken},
			r, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", clock); err != nil {
			t.Fatal(err)
		}
		_, err := a.Authenticate(r, sum[:])
		return err
	}
	byRole, byAccount := session("111122223333"), session("444455556666")
	for _, c := range []SessionCredentials{byRole, byAccount} {
		if err := call(c); err != nil {
			t.Fatalf("live session: %v", err)
		}
	}
	if err := st.DeleteRole(ctx, "111122223333", "ci"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRole(ctx, "111122223333", "ci", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteAccount(ctx, "444455556666"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateAccount(ctx, "444455556666", "b again"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetRole(ctx, "444455556666", "ci"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the role of a deleted account: %v, want ErrNotFound", err)
	}
	clock = start.Add(KeyCacheTTL)
	for name, c := range map[string]SessionCredentials{"role deleted": byRole, "account deleted": byAccount} {
		err := call(c)
		if e := ddberr.As(err); err == nil || e.Type != "com.amazon.coral.service#UnrecognizedClientException" {
			t.Errorf("%s: the session got %v, want UnrecognizedClientException", name, err)
		}
	}
}
