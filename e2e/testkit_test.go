package e2e

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/extenddb/extenddb/internal/admin"
)

// The test suite features (docs/testing-with-extenddb.md): the admin API's
// snapshots, truncate, manual clock and expire-now.

func adminAPI(s *server, key, secret string) *admin.Client {
	return &admin.Client{Endpoint: s.Endpoint, Region: testRegion, Credentials: aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}}
}

func wantAdminError(t testing.TB, err error, status int, typ string) {
	t.Helper()
	var e *admin.APIError
	if !errors.As(err, &e) || e.Status != status || e.Type != typ {
		t.Fatalf("got %v, want %d %s", err, status, typ)
	}
}

// testkitTable creates a table with a sort key, a GSI, a stream and TTL on
// attribute "exp", and returns its description.
func testkitTable(t testing.TB, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	ctx := ctxT(t)
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: keySchema("g"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
		Tags:                []types.Tag{{Key: aws.String("team"), Value: aws.String("qa")}},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if err := updateTTL(c, name, true, "exp"); err != nil {
		t.Fatalf("UpdateTimeToLive: %v", err)
	}
	waitTTL(t, c, name, types.TimeToLiveStatusEnabled, 30*time.Second)
	return out.TableDescription
}

func keysOf(t testing.TB, c *dynamodb.Client, name string) []string {
	t.Helper()
	items, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	var ks []string
	for _, it := range items {
		ks = append(ks, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	sort.Strings(ks)
	return ks
}

func indexKeys(t testing.TB, c *dynamodb.Client, name, g string) int {
	t.Helper()
	out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS(g)}})
	if err != nil {
		t.Fatalf("Query byG: %v", err)
	}
	return len(out.Items)
}

// TestSnapshotSaveRestore: a whole snapshot restores every table as it was
// (items, index rows, stream ARN, TTL, tags), drops the tables created
// since, and is listed and deleted by name; a snapshot of chosen tables
// restores only those.
func TestSnapshotSaveRestore(t *testing.T) {
	s, c := startClient(t, "--admin-api")
	a := adminAPI(s, testAccessKey, testSecretKey)
	ctx := ctxT(t)
	name := tableName("snap")
	before := testkitTable(t, c, name)
	for i := range 5 {
		putItem(t, c, name, item{"pk": avS("k" + strconv.Itoa(i)), "g": avS("x")})
	}
	snap, err := a.SaveSnapshot(ctx, "base")
	if err != nil || len(snap.Tables) != 1 || snap.Tables[0].ItemCount != 5 || !snap.Whole {
		t.Fatalf("SaveSnapshot = %+v, %v", snap, err)
	}
	putItem(t, c, name, item{"pk": avS("new"), "g": avS("x")})
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item{"pk": avS("k0")}}); err != nil {
		t.Fatal(err)
	}
	other := tableName("later")
	createStreamTable(t, c, other, types.StreamViewTypeKeysOnly)

	start := time.Now()
	if _, err := a.RestoreSnapshot(ctx, "base"); err != nil {
		t.Fatalf("RestoreSnapshot: %v", err)
	}
	t.Logf("restore took %v", time.Since(start))
	if got := keysOf(t, c, name); len(got) != 5 || got[0] != "k0" {
		t.Fatalf("after restore: %v", got)
	}
	if n := indexKeys(t, c, name, "x"); n != 5 {
		t.Fatalf("index byG holds %d items after restore, want 5", n)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(d.Table.LatestStreamArn) != aws.ToString(before.LatestStreamArn) || !d.Table.CreationDateTime.Equal(*before.CreationDateTime) || d.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("restored table %+v, was %+v", d.Table, before)
	}
	if st, attr := ttlStatus(t, c, name); st != types.TimeToLiveStatusEnabled || attr != "exp" {
		t.Fatalf("TTL after restore: %s %s", st, attr)
	}
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(other)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+other+" not found")

	// A snapshot of chosen tables leaves the others alone.
	createStreamTable(t, c, other, types.StreamViewTypeKeysOnly)
	if _, err := a.SaveSnapshot(ctx, "one", name); err != nil {
		t.Fatal(err)
	}
	putItem(t, c, name, item{"pk": avS("z"), "g": avS("y")})
	if _, err := a.RestoreSnapshot(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, c, name); len(got) != 5 {
		t.Fatalf("after restoring one: %v", got)
	}
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(other)}); err != nil {
		t.Fatalf("a table outside the snapshot was touched: %v", err)
	}

	list, err := a.ListSnapshots(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "base" || list[1].Name != "one" {
		t.Fatalf("ListSnapshots = %+v, %v", list, err)
	}
	if err := a.DeleteSnapshot(ctx, "base"); err != nil {
		t.Fatal(err)
	}
	_, err = a.RestoreSnapshot(ctx, "base")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
	_, err = a.SaveSnapshot(ctx, "../escape")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.validate#ValidationException")
	_, err = a.SaveSnapshot(ctx, "x", "NoSuchTable")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
}

// TestTruncateKeepsDefinition: truncate empties a table and keeps its
// indexes, TTL, stream ARN and tags.
func TestTruncateKeepsDefinition(t *testing.T) {
	s, c := startClient(t, "--admin-api")
	a := adminAPI(s, testAccessKey, testSecretKey)
	ctx := ctxT(t)
	name := tableName("trunc")
	before := testkitTable(t, c, name)
	for i := range 3 {
		putItem(t, c, name, item{"pk": avS("k" + strconv.Itoa(i)), "g": avS("x")})
	}
	if err := a.Truncate(ctx, name); err != nil {
		t.Fatalf("Truncate: %v", err)
	}
	if got := keysOf(t, c, name); len(got) != 0 {
		t.Fatalf("after truncate: %v", got)
	}
	if n := indexKeys(t, c, name, "x"); n != 0 {
		t.Fatalf("index byG holds %d items after truncate", n)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(d.Table.LatestStreamArn) != aws.ToString(before.LatestStreamArn) || len(d.Table.GlobalSecondaryIndexes) != 1 || aws.ToInt64(d.Table.ItemCount) != 0 {
		t.Fatalf("truncated table %+v", d.Table)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: before.TableArn})
	if err != nil || len(tags.Tags) != 1 {
		t.Fatalf("tags after truncate: %+v, %v", tags, err)
	}
	putItem(t, c, name, item{"pk": avS("after"), "g": avS("x")})
	if n := indexKeys(t, c, name, "x"); n != 1 {
		t.Fatalf("index byG holds %d items after a write, want 1", n)
	}
	err = a.Truncate(ctx, "NoSuchTable")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
}

// TestAdminAPIOffByDefault: without --admin-api the paths are the DynamoDB
// endpoint's, which answers a GET elsewhere than / as an unknown operation.
func TestAdminAPIOffByDefault(t *testing.T) {
	s, _ := startClient(t)
	_, err := adminAPI(s, testAccessKey, testSecretKey).Clock(context.Background())
	if err == nil {
		t.Fatal("the admin API answers without --admin-api")
	}
}

// TestPerAccessKeyNamespaces: with --per-access-key each access key has
// its own tables and its own snapshots, so parallel test processes that
// each use a key of their own never see one another.
func TestPerAccessKeyNamespaces(t *testing.T) {
	s, c := startClient(t, "--admin-api", "--per-access-key")
	one, two := clientAs(c, "AKIDPROCESSONE", "secret", testRegion), clientAs(c, "AKIDPROCESSTWO", "secret", testRegion)
	a1, a2 := adminAPI(s, "AKIDPROCESSONE", "secret"), adminAPI(s, "AKIDPROCESSTWO", "secret")
	ctx := ctxT(t)
	for _, cl := range []*dynamodb.Client{one, two} {
		if _, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("users"), AttributeDefinitions: attrDefs("pk", "S"),
			KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest}); err != nil {
			t.Fatal(err)
		}
	}
	putItem(t, one, "users", item{"pk": avS("one")})
	if _, err := a1.SaveSnapshot(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	putItem(t, two, "users", item{"pk": avS("two")})
	if l, err := a2.ListSnapshots(ctx); err != nil || len(l) != 0 {
		t.Fatalf("key two lists %+v, %v", l, err)
	}
	_, err := a2.RestoreSnapshot(ctx, "s")
	wantAdminError(t, err, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException")
	if err := a1.Truncate(ctx, "users"); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, two, "users"); len(got) != 1 || got[0] != "two" {
		t.Fatalf("key one's truncate reached key two's table: %v", got)
	}
	if _, err := a1.RestoreSnapshot(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if got := keysOf(t, one, "users"); len(got) != 1 || got[0] != "one" {
		t.Fatalf("key one after restore: %v", got)
	}
}

// TestAdminAPIAuthentication: with credentials configured the admin API
// takes signed requests only, from an account root or a user allowed
// extenddb:Admin; an unsigned request gets DynamoDB's
// MissingAuthenticationTokenException and a user without the action
// AccessDeniedException.
func TestAdminAPIAuthentication(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	var keys [2]struct{ AccessKeyId, SecretAccessKey string }
	for i, u := range []string{"dev", "ops"} {
		adminCLI(t, dir, nil, "user", "create", "--account", testAccount, u)
		adminCLI(t, dir, &keys[i], "key", "create", "--account", testAccount, "--user", u)
	}
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--user", "ops", "admin",
		"--document", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"extenddb:Admin","Resource":"*"}}`)
	s, _ := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount, "--admin-api")...)
	ctx := ctxT(t)
	if _, err := adminAPI(s, testAccessKey, testSecretKey).SaveSnapshot(ctx, "root"); err != nil {
		t.Fatalf("root: %v", err)
	}
	if _, err := adminAPI(s, keys[1].AccessKeyId, keys[1].SecretAccessKey).ListSnapshots(ctx); err != nil {
		t.Fatalf("a user allowed extenddb:Admin: %v", err)
	}
	_, err := adminAPI(s, keys[0].AccessKeyId, keys[0].SecretAccessKey).ListSnapshots(ctx)
	wantAdminError(t, err, http.StatusBadRequest, "com.amazon.coral.service#AccessDeniedException")
	if want := "AccessDeniedException: User: arn:aws:iam::" + testAccount + ":user/dev is not authorized to perform: extenddb:Admin on resource: arn:aws:dynamodb:us-east-1:" +
		testAccount + ":table/* because no identity-based policy allows the extenddb:Admin action"; err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	_, err = (&admin.Client{Endpoint: s.Endpoint}).ListSnapshots(ctx)
	var e *admin.APIError
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Type != "com.amazon.coral.service#MissingAuthenticationTokenException" {
		t.Fatalf("unsigned: %v", err)
	}
	_, err = adminAPI(s, testAccessKey, "wrong-secret").ListSnapshots(ctx)
	var e2 *admin.APIError
	if !errors.As(err, &e2) || e2.Status != http.StatusBadRequest || e2.Type == "" {
		t.Fatalf("bad signature: %v", err)
	}
}
