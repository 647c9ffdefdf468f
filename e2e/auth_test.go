package e2e

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// testServerKey seals secrets at rest in the authentication tests (the
// same for every process of a test, as on a shared backend).
const testServerKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

// authArgs turns authentication on with the test's key as root key.
func authArgs(extra ...string) []string {
	return append([]string{"--root-access-key-id", testAccessKey, "--root-secret-access-key", testSecretKey, "--server-key", testServerKey}, extra...)
}

// clientAs is a client of c's endpoint with other credentials and region,
// built afresh: the SDK's signer caches derived keys by access key ID, not
// by secret, so a copy of c's options would sign with c's secret.
func clientAs(c *dynamodb.Client, key, secret, region string) *dynamodb.Client {
	o := c.Options()
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: o.BaseEndpoint,
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
		Retryer:      o.Retryer,
		HTTPClient:   o.HTTPClient,
	})
}

// signedAt is a raw request signed by the SDK's signer with key/secret at t.
func signedAt(t *testing.T, endpoint, key, secret string, at time.Time, body string) rawResponse {
	t.Helper()
	req := rawRequest(t, endpoint, "DynamoDB_20120810.ListTables", []byte(body), false, nil)
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
		req, hex.EncodeToString(sum[:]), "dynamodb", testRegion, at); err != nil {
		t.Fatal(err)
	}
	return doRaw(t, req)
}

// TestAuthErrors: with credentials configured, every request is verified
// and refused with DynamoDB's error types and texts. Texts as AWS sends
// them: UnrecognizedClientException
// (https://github.com/edasque/DynamoDBtoCSV/issues/36), the signature
// mismatch (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html),
// "Signature expired: ... (... - 5 min.)" (https://github.com/hassy/artillery-dino/issues/2).
func TestAuthErrors(t *testing.T) {
	s, c := startClient(t, authArgs()...)
	ctx := ctxT(t)
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("root key: %v", err)
	}
	_, err := clientAs(c, testAccessKey, "not-the-secret", testRegion).ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
	_, err = clientAs(c, "AKIAUNKNOWNKEY000000", testSecretKey, testRegion).ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")

	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), false, nil))
	wantRawError(t, r, "MissingAuthenticationTokenException", "Request is missing Authentication Token")
	r = doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), false, func(r *http.Request) {
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+testAccessKey+"/20240101/us-east-1/dynamodb/aws4_request")
		r.Header.Set("X-Amz-Date", "20240101T000000Z")
	}))
	wantRawError(t, r, "IncompleteSignatureException", "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4-HMAC-SHA256 Credential="+testAccessKey+"/20240101/us-east-1/dynamodb/aws4_request")

	r = signedAt(t, s.Endpoint, testAccessKey, testSecretKey, time.Now().Add(-10*time.Minute), `{}`)
	wantRawErrorMatch(t, r, "InvalidSignatureException", regexp.MustCompile(`^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$`))
	r = signedAt(t, s.Endpoint, testAccessKey, testSecretKey, time.Now().Add(10*time.Minute), `{}`)
	wantRawErrorMatch(t, r, "InvalidSignatureException", regexp.MustCompile(`^Signature not yet current: \d{8}T\d{6}Z is still later than \d{8}T\d{6}Z \(\d{8}T\d{6}Z \+ 5 min\.\)$`))
	// A body changed after signing.
	req := rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, nil)
	req.Body = http.NoBody
	req.ContentLength = 0
	wantRawError(t, doRaw(t, req), "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.")
}

func wantRawErrorMatch(t *testing.T, r rawResponse, name string, msg *regexp.Regexp) {
	t.Helper()
	var body struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != 400 || !strings.HasSuffix(body.Type, "#"+name) || !msg.MatchString(body.Message) {
		t.Fatalf("want 400 %s %v, got %d %s", name, msg, r.Status, r.Body)
	}
}

// adminCLI runs `extenddb auth ...` on the storage the servers of dir use
// and decodes its JSON output into out (when not nil).
func adminCLI(t *testing.T, dir string, out any, args ...string) {
	t.Helper()
	full := append([]string{"auth"}, args...)
	switch e2eBackend {
	case backendSQLite:
		full = append(full, "--data-dir", dir)
	case backendPostgres:
		full = append(full, "--storage", backendPostgres, "--postgres-dsn", postgresDSN, "--postgres-schema", dataDirSchema(t, backendPostgres, dir))
	case backendCassandra:
		full = append(full, "--storage", backendCassandra, "--cassandra-hosts", cassandraHosts, "--cassandra-keyspace-prefix", dataDirSchema(t, backendCassandra, dir))
	}
	full = append(full, "--server-key", testServerKey)
	b, err := exec.Command(binPath, full...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("extenddb %v: %v\n%s", full, err, ee.Stderr)
		}
		t.Fatalf("extenddb %v: %v", full, err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("extenddb %v output %q: %v", full, b, err)
		}
	}
}

// TestAccountIsolation: a key of account B never sees account A's tables
// (list, describe, read, write), and ARNs carry each caller's account.
// Accounts, users and keys are made with the admin CLI on the server's
// storage.
func TestAccountIsolation(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", "111122223333", "--name", "b")
	adminCLI(t, dir, nil, "user", "create", "--account", "111122223333", "bob")
	adminCLI(t, dir, nil, "policy", "put", "--account", "111122223333", "--user", "bob", "all",
		"--document", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`)
	var key struct{ AccessKeyId, SecretAccessKey, Account string }
	adminCLI(t, dir, &key, "key", "create", "--account", "111122223333", "--user", "bob")
	if !regexp.MustCompile(`^AKIA[A-Z2-7]{16}$`).MatchString(key.AccessKeyId) || len(key.SecretAccessKey) != 40 {
		t.Fatalf("created key %+v", key)
	}
	_, a := startClient(t, authArgs("--data-dir", dir)...)
	b := clientAs(a, key.AccessKeyId, key.SecretAccessKey, testRegion)
	ctx := ctxT(t)
	name := tableName("iso")
	authTable(t, a, name)
	putItem(t, a, name, item{"pk": avS("a-secret")})

	lt, err := b.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 0 {
		t.Fatalf("account B lists %v (%v)", lt, err)
	}
	_, err = b.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a-secret")}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b")}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	_, err = b.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "")

	// Backups: B can neither back up A's table nor see A's backups.
	ab, err := a.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("a-backup")})
	if err != nil {
		t.Fatalf("A's CreateBackup: %v", err)
	}
	_, err = b.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("b-backup")})
	wantAPIError(t, err, "TableNotFoundException", "")
	if lb, err := b.ListBackups(ctx, &dynamodb.ListBackupsInput{}); err != nil || len(lb.BackupSummaries) != 0 {
		t.Fatalf("account B lists backups %v (%v)", lb, err)
	}
	_, err = b.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: ab.BackupDetails.BackupArn})
	wantAPIError(t, err, "BackupNotFoundException", "")
	_, err = b.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: ab.BackupDetails.BackupArn, TargetTableName: aws.String(name + "-r")})
	wantAPIError(t, err, "BackupNotFoundException", "")

	// B's table of the same name is its own, with B's account in its ARN.
	out := authTable(t, b, name)
	if arn := aws.ToString(out.TableDescription.TableArn); arn != "arn:aws:dynamodb:us-east-1:111122223333:table/"+name {
		t.Fatalf("B's TableArn %s", arn)
	}
	if it := getItem(t, b, name, item{"pk": avS("a-secret")}); it != nil {
		t.Fatalf("B reads A's item: %v", itemText(it))
	}
	wantItem(t, getItem(t, a, name, item{"pk": avS("a-secret")}), item{"pk": avS("a-secret")})
}

func authTable(t *testing.T, c *dynamodb.Client, name string) *dynamodb.CreateTableOutput {
	t.Helper()
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	return out
}

// TestRegionIsolation: regions are separate namespaces, as in DynamoDB; a
// table in eu-west-1 is invisible in us-east-1. --shared-db puts every
// region and key in one namespace (DynamoDB Local's -sharedDb), and
// --per-access-key separates keys too (DynamoDB Local's default).
func TestRegionIsolation(t *testing.T) {
	ctx := ctxT(t)
	_, c := startClient(t)
	eu := clientAs(c, testAccessKey, testSecretKey, "eu-west-1")
	name := tableName("region")
	out := authTable(t, eu, name)
	if arn := aws.ToString(out.TableDescription.TableArn); arn != "arn:aws:dynamodb:eu-west-1:"+testAccount+":table/"+name {
		t.Fatalf("TableArn %s", arn)
	}
	_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	if lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(lt.TableNames) != 0 {
		t.Fatalf("us-east-1 lists %v (%v)", lt, err)
	}

	_, shared := startClient(t, "--shared-db")
	authTable(t, clientAs(shared, "AKIAOTHERKEY00000000", "x", "eu-west-1"), name)
	if _, err := shared.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatalf("--shared-db: %v", err)
	}

	_, perKey := startClient(t, "--per-access-key")
	authTable(t, perKey, name)
	_, err = clientAs(perKey, "AKIAOTHERKEY00000000", "x", testRegion).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}

// TestLocalModeGuards: without credentials the server says so at start,
// refuses a non-loopback listen address unless --insecure, and answers
// only requests whose Host is a loopback name (DNS rebinding).
func TestLocalModeGuards(t *testing.T) {
	s := startServer(t)
	if !strings.Contains(s.log.String(), `auth="local (no credentials configured`) {
		t.Fatalf("start-up line does not name the local mode:\n%s", s.log.String())
	}
	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, func(r *http.Request) { r.Host = "rebound.example.com" }))
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "AccessDeniedException") {
		t.Fatalf("foreign Host: %d %s", r.Status, r.Body)
	}
	r = doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{}`), true, func(r *http.Request) { r.Host = "localhost" }))
	if r.Status != http.StatusOK {
		t.Fatalf("Host localhost: %d %s", r.Status, r.Body)
	}

	out, err := exec.Command(binPath, "serve", "--in-memory", "--listen", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to serve") || !strings.Contains(string(out), "--insecure") {
		t.Fatalf("non-loopback without auth: %v\n%s", err, out)
	}
}

// TestOwnerOnlyFiles: the data directory and the files in it are readable
// by their owner only.
func TestOwnerOnlyFiles(t *testing.T) {
	sqliteOnly(t, "SQLite data files")
	dir := filepath.Join(t.TempDir(), "data")
	s, c := startClient(t, authArgs("--data-dir", dir)...)
	authTable(t, c, tableName("perm"))
	s.stop()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", p, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTLS: `extenddb cert` makes a CA and a server certificate; the server
// serves HTTPS with HTTP/2 and HTTP/1.1, and the SDK trusts it through the
// CA bundle.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command(binPath, "cert", "--dir", dir, "--name", "localhost", "--name", "127.0.0.1").CombinedOutput(); err != nil {
		t.Fatalf("extenddb cert: %v\n%s", err, out)
	}
	s := startServer(t, authArgs("--tls-cert", filepath.Join(dir, "server.pem"), "--tls-key", filepath.Join(dir, "server-key.pem"))...)
	if !strings.HasPrefix(s.Endpoint, "https://") {
		t.Fatalf("endpoint %s", s.Endpoint)
	}
	pem, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	for _, h2 := range []bool{true, false} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: h2}
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
		c := clientAs(newClient(t, s.Endpoint), testAccessKey, testSecretKey, testRegion)
		c = dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: tr} })
		if _, err := c.ListTables(ctxT(t), &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("ListTables over TLS (h2 %v): %v", h2, err)
		}
		resp, err := (&http.Client{Transport: tr}).Get(s.Endpoint + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 2, false: 1}[h2]; resp.ProtoMajor != want {
			t.Fatalf("protocol %s, want HTTP/%d", resp.Proto, want)
		}
	}
	// Without the CA the certificate is refused.
	if _, err := http.Get(s.Endpoint + "/"); err == nil {
		t.Fatal("a client without the CA accepted the certificate")
	}
}

// TestAuthErrorsCLIAndBoto3: the AWS CLI and boto3 see DynamoDB's errors
// for an unknown key and a wrong secret, and trust the server's TLS
// certificate through --ca-bundle and verify=.
func TestAuthErrorsCLIAndBoto3(t *testing.T) {
	for _, tool := range []string{"aws", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run scripts/test.sh, which installs the AWS CLI and boto3: %v", tool, err)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command(binPath, "cert", "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("extenddb cert: %v\n%s", err, out)
	}
	s := startServer(t, authArgs("--tls-cert", filepath.Join(dir, "server.pem"), "--tls-key", filepath.Join(dir, "server-key.pem"))...)
	ca := filepath.Join(dir, "ca.pem")
	const mismatch = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	const unknown = "The security token included in the request is invalid."
	cases := []struct{ key, secret, want string }{
		{testAccessKey, testSecretKey, ""},
		{testAccessKey, "wrong", "(InvalidSignatureException) when calling the ListTables operation: " + mismatch},
		{"AKIAUNKNOWNKEY000000", testSecretKey, "(UnrecognizedClientException) when calling the ListTables operation: " + unknown},
	}
	boto := `import boto3, sys
c = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1", verify=sys.argv[2],
                 aws_access_key_id=sys.argv[3], aws_secret_access_key=sys.argv[4])
try:
    print(c.list_tables()["TableNames"])
except Exception as e:
    print(e)
`
	for _, c := range cases {
		cli := exec.Command("aws", "dynamodb", "list-tables", "--endpoint-url", s.Endpoint, "--ca-bundle", ca, "--region", "us-east-1")
		cli.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+c.key, "AWS_SECRET_ACCESS_KEY="+c.secret, "AWS_MAX_ATTEMPTS=1", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
		out, err := cli.CombinedOutput()
		if (c.want == "") != (err == nil) || !strings.Contains(string(out), c.want) {
			t.Errorf("aws CLI with %s: %v\n%s\nwant %q", c.key, err, out, c.want)
		}
		out, err = exec.Command("python3", "-c", boto, s.Endpoint, ca, c.key, c.secret).CombinedOutput()
		want := c.want
		if want == "" {
			want = "[]"
		}
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("boto3 with %s: %v\n%s\nwant %q", c.key, err, out, want)
		}
	}
}

// TestAccessDenied: identity policies attached with the admin CLI decide
// every table a request touches; refusals are DynamoDB's
// AccessDeniedException (wording as quoted in
// https://github.com/anomalyco/sst/issues/4469).
func TestAccessDenied(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "user", "create", "--account", testAccount, "carol")
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--user", "carol", "readA", "--document",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:DescribeTable","dynamodb:BatchGetItem"],"Resource":"arn:aws:dynamodb:*:*:table/A*"},
		{"Effect":"Deny","Action":"dynamodb:*","Resource":"*","Condition":{"StringEquals":{"dynamodb:Select":"ALL_ATTRIBUTES"}}}]}`)
	var key struct{ AccessKeyId, SecretAccessKey string }
	adminCLI(t, dir, &key, "key", "create", "--account", testAccount, "--user", "carol")
	_, admin := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	carol := clientAs(admin, key.AccessKeyId, key.SecretAccessKey, testRegion)
	ctx := ctxT(t)
	a, b := tableName("A"), tableName("B")
	a = "A" + a
	authTable(t, admin, a)
	authTable(t, admin, b)
	putItem(t, admin, a, item{"pk": avS("1")})
	putItem(t, admin, b, item{"pk": avS("1")})

	wantItem(t, getItem(t, carol, a, item{"pk": avS("1")}), item{"pk": avS("1")})
	user := "arn:aws:iam::" + testAccount + ":user/carol"
	arn := func(n string) string { return "arn:aws:dynamodb:us-east-1:" + testAccount + ":table/" + n }
	_, err := carol.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a), Item: item{"pk": avS("2")}})
	wantAPIError(t, err, "AccessDeniedException", "User: "+user+" is not authorized to perform: dynamodb:PutItem on resource: "+arn(a)+" because no identity-based policy allows the dynamodb:PutItem action")
	_, err = carol.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(b), Key: item{"pk": avS("1")}})
	wantAPIError(t, err, "AccessDeniedException", "User: "+user+" is not authorized to perform: dynamodb:GetItem on resource: "+arn(b)+" because no identity-based policy allows the dynamodb:GetItem action")
	_, err = carol.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		a: {Keys: []map[string]types.AttributeValue{{"pk": avS("1")}}}, b: {Keys: []map[string]types.AttributeValue{{"pk": avS("1")}}}}})
	wantAPIError(t, err, "AccessDeniedException", "User: "+user+" is not authorized to perform: dynamodb:BatchGetItem on resource: "+arn(b)+" because no identity-based policy allows the dynamodb:BatchGetItem action")
	_, err = carol.ListTables(ctx, &dynamodb.ListTablesInput{})
	// ListTables is refused on every table of the account and region, as
	// DynamoDB words it (https://github.com/AntonShuvaev/intellij-dynamodb/issues/20).
	wantAPIError(t, err, "AccessDeniedException", "User: "+user+" is not authorized to perform: dynamodb:ListTables on resource: "+arn("*")+" because no identity-based policy allows the dynamodb:ListTables action")
	// The root key is not subject to policies.
	if _, err := admin.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
}

// TestSTS: GetSessionToken and AssumeRole on the same port, in STS's query
// protocol, through the AWS SDK for Go v2's STS client; the ASIA keys they
// return work with their session token, act with the role's policies, and
// fail without it. Shapes and texts from
// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html.
func TestSTS(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "role", "create", "--account", testAccount, "reader")
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--role", "reader", "read", "--document",
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:DescribeTable"],"Resource":"*"}}`)
	s, admin := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	ctx := ctxT(t)
	name := tableName("sts")
	authTable(t, admin, name)
	putItem(t, admin, name, item{"pk": avS("1")})
	stsc := sts.New(sts.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, "")})

	tok, err := stsc.GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatalf("GetSessionToken: %v", err)
	}
	c := tok.Credentials
	if !strings.HasPrefix(aws.ToString(c.AccessKeyId), "ASIA") || aws.ToString(c.SessionToken) == "" || time.Until(aws.ToTime(c.Expiration)) > 901*time.Second {
		t.Fatalf("credentials %+v", c)
	}
	temp := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))})
	if _, err := temp.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("session credentials: %v", err)
	}
	noToken := clientAs(admin, aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), testRegion)
	_, err = noToken.ListTables(ctx, &dynamodb.ListTablesInput{})
	wantAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")

	_, err = stsc.GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(100)})
	wantAPIError(t, err, "ValidationError", "1 validation error detected: Value '100' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900")

	roleArn := "arn:aws:iam::" + testAccount + ":role/reader"
	ar, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleArn), RoleSessionName: aws.String("ci-job")})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	if got := aws.ToString(ar.AssumedRoleUser.Arn); got != "arn:aws:sts::"+testAccount+":assumed-role/reader/ci-job" {
		t.Fatalf("assumed role ARN %s", got)
	}
	rc := ar.Credentials
	reader := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(aws.ToString(rc.AccessKeyId), aws.ToString(rc.SecretAccessKey), aws.ToString(rc.SessionToken))})
	wantItem(t, getItem(t, reader, name, item{"pk": avS("1")}), item{"pk": avS("1")})
	_, err = reader.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("2")}})
	wantAPIError(t, err, "AccessDeniedException", "User: arn:aws:sts::"+testAccount+":assumed-role/reader/ci-job is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:"+testAccount+":table/"+name+" because no identity-based policy allows the dynamodb:PutItem action")

	_, err = stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + testAccount + ":role/missing"), RoleSessionName: aws.String("x1")})
	wantAPIError(t, err, "AccessDenied", "User: arn:aws:iam::"+testAccount+":user/admin is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::"+testAccount+":role/missing")
	bad := sts.New(sts.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIAUNKNOWNKEY000000", "x", "")})
	_, err = bad.GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	wantAPIError(t, err, "InvalidClientTokenId", "The security token included in the request is invalid.")
}

// TestTTLInAnotherRegion: the background workers look after every account
// and region, so an expired item of a table in eu-west-1 is deleted as in
// the home region.
func TestTTLInAnotherRegion(t *testing.T) {
	_, home := startClient(t, "--ttl-interval", "200ms")
	c := clientAs(home, testAccessKey, testSecretKey, "eu-west-1")
	name := tableName("ttlreg")
	authTable(t, c, name)
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatal(err)
	}
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 10*time.Second)
	putItem(t, c, name, item{"pk": avS("old"), "exp": avN(strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10))})
	deadline := time.Now().Add(15 * time.Second)
	for getItem(t, c, name, item{"pk": avS("old")}) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the expired item of a table in eu-west-1 was not deleted within 15s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
