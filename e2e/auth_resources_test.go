package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestPartiQLAndStreamsAccess: PartiQL statements are authorized under
// dynamodb:PartiQLSelect/Insert/Update/Delete on each statement's table
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-iam.html),
// and Streams operations on the stream's ARN, with DynamoDB's
// AccessDeniedException text.
func TestPartiQLAndStreamsAccess(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "user", "create", "--account", testAccount, "dave")
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--user", "dave", "pq", "--document",
		`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:PartiQLSelect","dynamodb:PartiQLInsert"],"Resource":"arn:aws:dynamodb:*:*:table/A*"},
		{"Effect":"Allow","Action":["dynamodb:DescribeStream","dynamodb:GetShardIterator","dynamodb:GetRecords"],"Resource":"arn:aws:dynamodb:*:*:table/A*/stream/*"}]}`)
	var key struct{ AccessKeyId, SecretAccessKey string }
	adminCLI(t, dir, &key, "key", "create", "--account", testAccount, "--user", "dave")
	s, admin := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	dave := clientAs(admin, key.AccessKeyId, key.SecretAccessKey, testRegion)
	ctx := ctxT(t)
	a, b := "A"+tableName("pq"), tableName("pq")
	streamA := createStreamTable(t, admin, a, types.StreamViewTypeKeysOnly)
	streamB := createStreamTable(t, admin, b, types.StreamViewTypeKeysOnly)
	putItem(t, admin, b, item{"pk": avS("1")})
	user := "arn:aws:iam::" + testAccount + ":user/dave"
	arn := func(n string) string { return "arn:aws:dynamodb:us-east-1:" + testAccount + ":table/" + n }
	denied := func(action, res string) string {
		return "User: " + user + " is not authorized to perform: " + action + " on resource: " + res +
			" because no identity-based policy allows the " + action + " action"
	}

	if _, err := dave.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "` + a + `" VALUE {'pk':'1'}`)}); err != nil {
		t.Fatalf("INSERT: %v", err)
	}
	out, err := dave.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + a + `" WHERE pk = '1'`)})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("SELECT: %+v %v", out, err)
	}
	_, err = dave.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`DELETE FROM "` + a + `" WHERE pk = '1'`)})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:PartiQLDelete", arn(a)))
	_, err = dave.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + b + `" WHERE pk = '1'`)})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:PartiQLSelect", arn(b)))
	_, err = dave.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`INSERT INTO "` + a + `" VALUE {'pk':'2'}`)}, {Statement: aws.String(`INSERT INTO "` + b + `" VALUE {'pk':'2'}`)}}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:PartiQLInsert", arn(b)))
	_, err = dave.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`INSERT INTO "` + a + `" VALUE {'pk':'3'}`)}, {Statement: aws.String(`UPDATE "` + a + `" SET n = 1 WHERE pk = '1'`)}}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:PartiQLUpdate", arn(a)))
	// Nothing of a refused batch or transaction was applied.
	for _, pk := range []string{"2", "3"} {
		if got := getItem(t, admin, a, item{"pk": avS(pk)}); got != nil {
			t.Fatalf("item %s of a refused request was written: %v", pk, got)
		}
	}

	sc := dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(key.AccessKeyId, key.SecretAccessKey, ""),
		Retryer:     aws.NopRetryer{}, HTTPClient: &http.Client{Timeout: 60 * time.Second}})
	if recs := readStream(t, sc, streamA); len(recs) != 1 {
		t.Fatalf("stream of %s: %d records, want 1", a, len(recs))
	}
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamB)})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:DescribeStream", streamB))
	// An iterator of B's stream, obtained by the root key, does not let
	// dave read it.
	root := newStreamsClient(t, s.Endpoint)
	d, err := root.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamB)})
	if err != nil || len(d.StreamDescription.Shards) == 0 {
		t.Fatalf("DescribeStream as root: %+v %v", d, err)
	}
	it, err := root.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(streamB),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:GetRecords", streamB))
}

// TestLeadingKeysAccess: AWS's fine-grained access control example, a
// user confined to the items whose partition key is their user name with
// ForAllValues:StringEquals on dynamodb:LeadingKeys and ${aws:username}
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html),
// through the SDK: own items read, written and queried; another user's
// refused, in batches and transactions too, and nothing of a refused
// request applied.
func TestLeadingKeysAccess(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "user", "create", "--account", testAccount, "erin")
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--user", "erin", "own", "--document",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Action":["dynamodb:GetItem","dynamodb:BatchGetItem","dynamodb:Query","dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:DeleteItem","dynamodb:BatchWriteItem"],
		"Resource":"arn:aws:dynamodb:*:*:table/Scores*",
		"Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}]}`)
	var key struct{ AccessKeyId, SecretAccessKey string }
	adminCLI(t, dir, &key, "key", "create", "--account", testAccount, "--user", "erin")
	_, admin := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	erin := clientAs(admin, key.AccessKeyId, key.SecretAccessKey, testRegion)
	ctx := ctxT(t)
	name := "Scores" + tableName("lk")
	if _, err := admin.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: attrDefs("UserId", "S", "Game", "S"), KeySchema: keySchema("UserId", "Game"),
		BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	putItem(t, admin, name, item{"UserId": avS("frank"), "Game": avS("go")})
	user := "arn:aws:iam::" + testAccount + ":user/erin"
	res := "arn:aws:dynamodb:us-east-1:" + testAccount + ":table/" + name
	denied := func(action string) string {
		return "User: " + user + " is not authorized to perform: " + action + " on resource: " + res +
			" because no identity-based policy allows the " + action + " action"
	}

	putItem(t, erin, name, item{"UserId": avS("erin"), "Game": avS("go")})
	wantItem(t, getItem(t, erin, name, item{"UserId": avS("erin"), "Game": avS("go")}), item{"UserId": avS("erin"), "Game": avS("go")})
	q, err := erin.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("UserId = :u"),
		ExpressionAttributeValues: item{":u": avS("erin")}})
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("Query own partition: %+v %v", q, err)
	}
	_, err = erin.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("UserId = :u"),
		ExpressionAttributeValues: item{":u": avS("frank")}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:Query"))
	_, err = erin.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"UserId": avS("frank"), "Game": avS("go")}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:GetItem"))
	_, err = erin.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(res), Key: item{"UserId": avS("frank"), "Game": avS("go")}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:DeleteItem"))
	_, err = erin.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: {
		{PutRequest: &types.PutRequest{Item: item{"UserId": avS("erin"), "Game": avS("chess")}}},
		{DeleteRequest: &types.DeleteRequest{Key: item{"UserId": avS("frank"), "Game": avS("go")}}}}}})
	wantAPIError(t, err, "AccessDeniedException", denied("dynamodb:BatchWriteItem"))
	if got := getItem(t, admin, name, item{"UserId": avS("erin"), "Game": avS("chess")}); got != nil {
		t.Fatalf("the refused batch wrote %v", got)
	}
	wantItem(t, getItem(t, admin, name, item{"UserId": avS("frank"), "Game": avS("go")}), item{"UserId": avS("frank"), "Game": avS("go")})
}
