package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestExportBucketOfAnotherAccount: an S3 bucket belongs to one account,
// and DynamoDB's export or import of another account is refused access to
// it (the export fails with FailureCode S3AccessDenied:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportDescription.html).
// Here the buckets are directories every account of the server shares:
// account B must neither import what account A exported nor export into
// A's bucket, and A keeps both.
func TestExportBucketOfAnotherAccount(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", "111122223333", "--name", "b")
	adminCLI(t, dir, nil, "user", "create", "--account", "111122223333", "bob")
	adminCLI(t, dir, nil, "policy", "put", "--account", "111122223333", "--user", "bob", "all",
		"--document", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`)
	var key struct{ AccessKeyId, SecretAccessKey string }
	adminCLI(t, dir, &key, "key", "create", "--account", "111122223333", "--user", "bob")
	_, a := startClient(t, authArgs("--data-dir", dir)...)
	b := clientAs(a, key.AccessKeyId, key.SecretAccessKey, testRegion)
	ctx := ctxT(t)

	name := tableName("xacct")
	authTable(t, a, name)
	putItem(t, a, name, item{"pk": avS("a-secret")})
	enablePITR(t, a, name)
	out, err := a.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:" + testAccount + ":table/" + name), S3Bucket: aws.String("shared")})
	if err != nil {
		t.Fatal(err)
	}
	ad := waitExport(t, a, aws.ToString(out.ExportDescription.ExportArn))
	if ad.ExportStatus != types.ExportStatusCompleted {
		t.Fatalf("A's export %s (%s: %s)", ad.ExportStatus, aws.ToString(ad.FailureCode), aws.ToString(ad.FailureMessage))
	}

	// B imports from A's bucket: refused, and no table is left.
	imp, err := b.ImportTable(ctx, &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("shared")}, InputFormat: types.InputFormatDynamodbJson,
		InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("stolen"), AttributeDefinitions: attrDefs("pk", "S"),
			KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest},
	})
	if err != nil {
		t.Fatal(err)
	}
	bd := waitImport(t, b, aws.ToString(imp.ImportTableDescription.ImportArn), 60*time.Second)
	if bd.ImportStatus != types.ImportStatusFailed || aws.ToString(bd.FailureCode) != "S3AccessDenied" || bd.ImportedItemCount != 0 {
		t.Fatalf("B's import from A's bucket: %s, %d items (%s: %s)", bd.ImportStatus, bd.ImportedItemCount,
			aws.ToString(bd.FailureCode), aws.ToString(bd.FailureMessage))
	}
	waitGone(t, b, "stolen")

	// B exports into A's bucket: refused.
	authTable(t, b, name)
	enablePITR(t, b, name)
	bx, err := b.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{
		TableArn: aws.String("arn:aws:dynamodb:us-east-1:111122223333:table/" + name), S3Bucket: aws.String("shared")})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitExport(t, b, aws.ToString(bx.ExportDescription.ExportArn)); d.ExportStatus != types.ExportStatusFailed ||
		aws.ToString(d.FailureCode) != "S3AccessDenied" || !strings.Contains(aws.ToString(d.FailureMessage), "another account") {
		t.Fatalf("B's export into A's bucket: %s (%s: %s)", d.ExportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
	}

	// A still imports its own export.
	imp, err = a.ImportTable(ctx, &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("shared")}, InputFormat: types.InputFormatDynamodbJson,
		InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(name + "-copy"), AttributeDefinitions: attrDefs("pk", "S"),
			KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitImport(t, a, aws.ToString(imp.ImportTableDescription.ImportArn), 60*time.Second); d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 1 {
		t.Fatalf("A's import of its own export: %s, %d items (%s)", d.ImportStatus, d.ImportedItemCount, aws.ToString(d.FailureMessage))
	}
}

// waitGone polls DescribeTable until the table is not found.
func waitGone(t testing.TB, c *dynamodb.Client, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil && strings.Contains(err.Error(), "ResourceNotFoundException") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s still exists (%v)", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
