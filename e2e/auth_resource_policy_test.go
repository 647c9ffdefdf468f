package e2e

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"
)

// otherAccount is the second account of the cross-account tests.
const otherAccount = "444455556666"

// eventually retries f until it returns nil or 10 s pass (policies and
// keys are cached for 5 s, as DynamoDB applies policies eventually:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutResourcePolicy.html).
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// deniedWith is nil when err is DynamoDB's AccessDeniedException with
// message msg.
func deniedWith(err error, msg string) error {
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "AccessDeniedException" || ae.ErrorMessage() != msg {
		return errors.New("want AccessDeniedException " + strconv.Quote(msg) + ", got " + errString(err))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "success"
	}
	return err.Error()
}

// userKey creates user name in account with the identity policy doc (none
// when doc is "") and returns its key (before the server starts: the
// command opens the server's storage).
func userKey(t *testing.T, dir, account, name, doc string) (id, secret string) {
	t.Helper()
	adminCLI(t, dir, nil, "user", "create", "--account", account, name)
	if doc != "" {
		adminCLI(t, dir, nil, "policy", "put", "--account", account, "--user", name, "p", "--document", doc)
	}
	var key struct{ AccessKeyId, SecretAccessKey string }
	adminCLI(t, dir, &key, "key", "create", "--account", account, "--user", name)
	return key.AccessKeyId, key.SecretAccessKey
}

// TestResourcePolicyAccess: a table's resource-based policy is evaluated
// with identity policies as AWS documents
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-auth-iam-id-based-policies-DDB.html):
// in the table's account an Allow of either suffices, across accounts
// both must allow, an explicit Deny anywhere wins; another account
// reaches the table through its ARN as TableName
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-examples.html#rbac-examples-cross-account),
// and its stream through the stream's ARN; deleting the policy revokes it.
// AccessDeniedException texts follow IAM's "with an explicit deny in a
// resource-based policy" / "because no resource-based policy allows"
// forms (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html).
func TestResourcePolicyAccess(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "account", "create", "--id", otherAccount)
	erinKey, erinSecret := userKey(t, dir, testAccount, "erin", "")
	bobKey, bobSecret := userKey(t, dir, otherAccount, "bob", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}]}`)
	carolKey, carolSecret := userKey(t, dir, otherAccount, "carol", "")
	s, root := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	erin := clientAs(root, erinKey, erinSecret, testRegion)
	bob := clientAs(root, bobKey, bobSecret, testRegion)
	carol := clientAs(root, carolKey, carolSecret, testRegion)
	ctx := ctxT(t)
	name := tableName("rbp")
	arn := "arn:aws:dynamodb:us-east-1:" + testAccount + ":table/" + name
	erinArn := "arn:aws:iam::" + testAccount + ":user/erin"
	bobArn := "arn:aws:iam::" + otherAccount + ":user/bob"
	doc := `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"` + erinArn + `"},"Action":["dynamodb:GetItem","dynamodb:PutItem"],"Resource":"` + arn + `"},
		{"Effect":"Allow","Principal":{"AWS":"` + otherAccount + `"},"Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:DeleteItem","dynamodb:DescribeTimeToLive"],"Resource":["` + arn + `","` + arn + `/index/*"]},
		{"Effect":"Deny","Principal":{"AWS":"` + bobArn + `"},"Action":"dynamodb:DeleteItem","Resource":"` + arn + `"}]}`
	out, err := root.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest, ResourcePolicy: aws.String(doc),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	if err != nil {
		t.Fatalf("CreateTable with ResourcePolicy: %v", err)
	}
	stream := aws.ToString(out.TableDescription.LatestStreamArn)
	denied := func(user, action, res, why string) string {
		return "User: " + user + " is not authorized to perform: " + action + " on resource: " + res + " " + why
	}

	// Same account: the resource policy alone lets erin, who has no
	// identity policy, read and write; nothing else.
	if _, err := erin.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("e")}}); err != nil {
		t.Fatalf("erin PutItem: %v", err)
	}
	if got, err := erin.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("e")}}); err != nil || got.Item == nil {
		t.Fatalf("erin GetItem: %v %v", got, err)
	}
	_, err = erin.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name)})
	wantAPIError(t, err, "AccessDeniedException", denied(erinArn, "dynamodb:Scan", arn, "because no identity-based policy allows the dynamodb:Scan action"))

	// Another account: through the table's ARN, with both policies.
	if _, err := bob.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(arn), Item: item{"pk": avS("b")}}); err != nil {
		t.Fatalf("bob PutItem by ARN: %v", err)
	}
	if got := getItem(t, root, name, item{"pk": avS("b")}); got == nil {
		t.Fatal("bob's item is not in the owner's table")
	}
	if got, err := bob.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(arn), Key: item{"pk": avS("e")}}); err != nil || got.Item == nil {
		t.Fatalf("bob GetItem by ARN: %v %v", got, err)
	}
	_, err = bob.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(arn)})
	wantAPIError(t, err, "AccessDeniedException", denied(bobArn, "dynamodb:Scan", arn, "because no resource-based policy allows the dynamodb:Scan action"))
	_, err = bob.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(arn), Key: item{"pk": avS("e")}})
	wantAPIError(t, err, "AccessDeniedException", denied(bobArn, "dynamodb:DeleteItem", arn, "with an explicit deny in a resource-based policy"))
	// Operations that do not cross accounts are refused whatever the
	// policy says (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-iam-actions.html).
	_, err = bob.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(arn)})
	wantAPIError(t, err, "AccessDeniedException", denied(bobArn, "dynamodb:DescribeTimeToLive", arn, "because no resource-based policy allows the dynamodb:DescribeTimeToLive action"))
	// By name, bob names a table of his own account, which has none.
	_, err = bob.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("e")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	// The account's root without an identity policy in bob's account
	// would need both too; a user of another account without one is
	// refused by its own account first.
	_, err = carol.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(arn), Key: item{"pk": avS("e")}})
	wantAPIError(t, err, "AccessDeniedException", denied("arn:aws:iam::"+otherAccount+":user/carol", "dynamodb:GetItem", arn,
		"because no identity-based policy allows the dynamodb:GetItem action"))

	// The stream: its own policy, read through its ARN from the other
	// account.
	putItem(t, root, name, item{"pk": avS("s")})
	sc := dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(bobKey, bobSecret, ""),
		Retryer:     aws.NopRetryer{}, HTTPClient: &http.Client{Timeout: 60 * time.Second}})
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(stream)})
	wantAPIError(t, err, "AccessDeniedException", denied(bobArn, "dynamodb:DescribeStream", stream,
		"because no resource-based policy allows the dynamodb:DescribeStream action"))
	if _, err := root.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(stream), Policy: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + otherAccount + `:root"},
		"Action":["dynamodb:DescribeStream","dynamodb:GetShardIterator","dynamodb:GetRecords"],"Resource":"` + stream + `"}]}`)}); err != nil {
		t.Fatalf("PutResourcePolicy on the stream: %v", err)
	}
	eventually(t, "bob reads the stream", func() error {
		_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(stream)})
		return err
	})
	if recs := readStream(t, sc, stream); len(recs) != 3 {
		t.Fatalf("bob read %d records of the stream, want 3", len(recs))
	}

	// Deleting the table's policy revokes the other account's access.
	if _, err := root.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn)}); err != nil {
		t.Fatalf("DeleteResourcePolicy: %v", err)
	}
	eventually(t, "bob refused after DeleteResourcePolicy", func() error {
		_, err := bob.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(arn), Key: item{"pk": avS("e")}})
		return deniedWith(err, denied(bobArn, "dynamodb:GetItem", arn, "because no resource-based policy allows the dynamodb:GetItem action"))
	})
	testRootDeniedByResourcePolicy(t, ctx, root, name, arn)
}

// testRootDeniedByResourcePolicy: a Deny naming the account stops even
// its root user, except for the policy operations, with which it can
// always repair the policy (docs/adr/0011b).
func testRootDeniedByResourcePolicy(t *testing.T, ctx context.Context, root *dynamodb.Client, name, arn string) {
	t.Helper()
	if _, err := root.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"` + testAccount + `"},"Action":"dynamodb:*","Resource":"*"}]}`)}); err != nil {
		t.Fatalf("PutResourcePolicy: %v", err)
	}
	rootArn := "arn:aws:iam::" + testAccount + ":root"
	eventually(t, "root refused by the Deny", func() error {
		_, err := root.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		return deniedWith(err, "User: "+rootArn+" is not authorized to perform: dynamodb:DescribeTable on resource: "+arn+
			" with an explicit deny in a resource-based policy")
	})
	_, err := root.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "AccessDeniedException", "User: "+rootArn+" is not authorized to perform: dynamodb:DeleteTable on resource: "+arn+
		" with an explicit deny in a resource-based policy")
	if _, err := root.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)}); err != nil {
		t.Fatalf("root GetResourcePolicy under the Deny: %v", err)
	}
	if _, err := root.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn)}); err != nil {
		t.Fatalf("root DeleteResourcePolicy under the Deny: %v", err)
	}
	eventually(t, "root deletes the table", func() error {
		_, err := root.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		return err
	})
}

// TestResourcePolicyPersists: without authentication the policy calls
// store and return policies (nothing is enforced), and a policy is kept
// with its table across a restart on every backend, and deleted with it.
func TestResourcePolicyPersists(t *testing.T) {
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	ctx := ctxT(t)
	name := tableName("rbpkeep")
	createHashTable(t, c, name, "S")
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"dynamodb:GetItem","Resource":"` + arn + `"}]}`
	put, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc),
		ExpectedRevisionId: aws.String("NO_POLICY")})
	if err != nil {
		t.Fatalf("PutResourcePolicy: %v", err)
	}
	s.stop()

	_, c = startClient(t, "--data-dir", dir)
	got, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil || aws.ToString(got.Policy) != doc || aws.ToString(got.RevisionId) != aws.ToString(put.RevisionId) {
		t.Fatalf("GetResourcePolicy after restart: %+v %v (put revision %s)", got, err, aws.ToString(put.RevisionId))
	}
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
}

// TestAttributesAccess: dynamodb:Attributes confines a user to some
// attributes with IAM's example policy
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_examples_dynamodb_attributes.html):
// projected reads and writes of the listed attributes pass, a whole-item
// read or a write of another attribute is refused.
func TestAttributesAccess(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	key, secret := userKey(t, dir, testAccount, "fay", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:UpdateItem"],"Resource":"arn:aws:dynamodb:*:*:table/*",
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["pk","TopScore"]},"StringEqualsIfExists":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES"}}}]}`)
	_, root := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	fay := clientAs(root, key, secret, testRegion)
	ctx := ctxT(t)
	name := tableName("attrs")
	createHashTable(t, root, name, "S")
	putItem(t, root, name, item{"pk": avS("a"), "TopScore": avN("1"), "Secret": avS("s")})
	arn := "arn:aws:dynamodb:us-east-1:" + testAccount + ":table/" + name
	denied := func(action string) string {
		return "User: arn:aws:iam::" + testAccount + ":user/fay is not authorized to perform: " + action + " on resource: " + arn +
			" because no identity-based policy allows the " + action + " action"
	}

	got, err := fay.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")}, ProjectionExpression: aws.String("TopScore")})
	if err != nil || len(got.Item) != 1 {
		t.Fatalf("projected GetItem: %v %v", got, err)
	}
	_, err = fay.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:GetItem"))
	_, err = fay.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")}, ProjectionExpression: aws.String("Secret")})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:GetItem"))
	if _, err := fay.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: item{"pk": avS("a")},
		UpdateExpression: aws.String("SET TopScore = :s"), ExpressionAttributeValues: item{":s": avN("2")}}); err != nil {
		t.Fatalf("UpdateItem of TopScore: %v", err)
	}
	_, err = fay.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("b"), "Secret": avS("x")}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:PutItem"))
	if got := getItem(t, root, name, item{"pk": avS("b")}); got != nil {
		t.Fatalf("refused PutItem wrote %v", got)
	}
}
