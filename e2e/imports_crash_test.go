package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A server killed with SIGKILL in the middle of an import resumes it when
// it restarts: the table stays CREATING until every item and its index
// row are in, and the import completes with every item counted once.
func TestImportSurvivesKill(t *testing.T) {
	dataDir, root := t.TempDir(), t.TempDir()
	args := []string{"--data-dir", dataDir, "--export-dir", root}
	s := startServer(t, args...)
	c := newClient(t, s.Endpoint)
	n := 200_000
	if e2eBackend != backendSQLite {
		n = 60_000 // single-item writes on Cassandra: fewer, for the test's time
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"%d"},"g":{"S":"g%d"}}}`+"\n", i%100, i, i%7)
	}
	writeObject(t, root, "big", "data/00000.json.gz", "GZIP", []byte(b.String()))
	name := tableName("imp_kill")
	out, err := c.ImportTable(ctxT(t), &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("big"), S3KeyPrefix: aws.String("data/")},
		InputFormat:    types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
		TableCreationParameters: importParams(name),
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.ImportTableDescription.ImportArn)
	// Killed after the first checkpoint, or a moment into the import if
	// that comes later: either way the restarted server must finish it.
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		d, err := c.DescribeImport(ctxT(t), &dynamodb.DescribeImportInput{ImportArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		if d.ImportTableDescription.ImportStatus != types.ImportStatusInProgress {
			t.Skipf("the import ended (%s) before it could be interrupted", d.ImportTableDescription.ImportStatus)
		}
		if d.ImportTableDescription.ProcessedItemCount > 0 || time.Now().After(deadline) {
			break
		}
	}
	s.kill()

	s = startServer(t, args...)
	c = newClient(t, s.Endpoint)
	for deadline := time.Now().Add(300 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if d.Table.TableStatus == types.TableStatusActive {
			break
		}
		if d.Table.TableStatus != types.TableStatusCreating || time.Now().After(deadline) {
			t.Fatalf("table %s while its import resumes", d.Table.TableStatus)
		}
	}
	if got := countItems(t, c, name); got != n {
		t.Fatalf("table ACTIVE with %d items, want %d", got, n)
	}
	if got := countIndexItems(t, c, name, "byG"); got != n {
		t.Fatalf("table ACTIVE with %d items in its index byG, want %d", got, n)
	}
	d := waitImport(t, c, arn, 10*time.Second)
	if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != int64(n) || d.ProcessedItemCount != int64(n) || d.ErrorCount != 0 {
		t.Fatalf("resumed import: %s, %d processed, %d imported, %d errors", d.ImportStatus, d.ProcessedItemCount, d.ImportedItemCount, d.ErrorCount)
	}
}
