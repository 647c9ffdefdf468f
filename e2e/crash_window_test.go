package e2e

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// crashBeforeTable starts a server on args that dies with SIGKILL between
// the record of the job filling a new table and the table's creation
// (EXTENDDB_CRASH_AT, internal/crashpoint), sends it the request start
// makes, and waits for the process to die; then it starts the server
// again, normally, and returns it and a client of it.
func crashBeforeTable(t *testing.T, args []string, start func(c *dynamodb.Client) error) (*server, *dynamodb.Client) {
	t.Helper()
	t.Setenv("EXTENDDB_CRASH_AT", "job-before-table")
	s := startServer(t, args...)
	if err := start(newClient(t, s.Endpoint)); err == nil {
		t.Fatalf("the request answered although its server was to die before creating the table")
	}
	if err := s.wait(30 * time.Second); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("server at the crash point: %v, want it killed", err)
	}
	t.Setenv("EXTENDDB_CRASH_AT", "")
	s = startServer(t, args...)
	return s, newClient(t, s.Endpoint)
}

// waitActive waits until table name is ACTIVE; it fails the test if the
// table is in another status than CREATING meanwhile. The table may be
// missing for a moment: the restarted server's job runner creates it.
func waitActive(t *testing.T, c *dynamodb.Client, name string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		out, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var st types.TableStatus
		var nf *types.ResourceNotFoundException
		switch {
		case errors.As(err, &nf):
			st = "missing"
		case err != nil:
			t.Fatal(err)
		default:
			st = out.Table.TableStatus
		}
		if st == types.TableStatusActive {
			return
		}
		if (st != types.TableStatusCreating && st != "missing") || time.Now().After(deadline) {
			t.Fatalf("table %s is %s", name, st)
		}
	}
}

// A server killed between a restore's job record and its table resumes
// the job when it restarts: the job creates the table and fills it; the
// table is ACTIVE only with every item (the rule: no partial
// table ACTIVE, no table CREATING forever, no source data lost).
func TestRestoreSurvivesKillBeforeItsTable(t *testing.T) {
	dataDir, root := t.TempDir(), t.TempDir()
	args := []string{"--data-dir", dataDir, "--backup-root", root}
	s := startServer(t, args...)
	c := newClient(t, s.Endpoint)
	src := tableName("cw_src")
	createIndexedTable(t, c, src)
	const n = 400
	fillTable(t, c, src, n)
	out, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String(src), BackupName: aws.String("crash-window")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.BackupDetails.BackupArn)
	waitBackup(t, c, arn)
	if _, err := c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(src),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	s.stop()

	dst := tableName("cw_dst")
	s, c = crashBeforeTable(t, args, func(c *dynamodb.Client) error {
		_, err := c.RestoreTableFromBackup(ctxT(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(dst)})
		return err
	})
	waitActive(t, c, dst, 90*time.Second)
	if got := countItems(t, c, dst); got != n {
		t.Fatalf("restored table ACTIVE with %d items, want %d", got, n)
	}
	if got, want := tableState(t, c, dst), tableState(t, c, src); got != want {
		t.Fatalf("restored table and its indexes differ from the source")
	}

	s.stop()
	pitr := tableName("cw_pitr")
	_, c = crashBeforeTable(t, args, func(c *dynamodb.Client) error {
		_, err := c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(src),
			TargetTableName: aws.String(pitr), UseLatestRestorableTime: aws.Bool(true)})
		return err
	})
	waitActive(t, c, pitr, 90*time.Second)
	if got, want := tableState(t, c, pitr), tableState(t, c, src); got != want {
		t.Fatalf("table restored to a point in time differs from the source")
	}
	if got := countItems(t, c, src); got != n {
		t.Fatalf("source table has %d items after the crashes, want %d", got, n)
	}
}

// A server killed between an import's job record and its table resumes
// the import when it restarts: the table is created, filled and ACTIVE,
// and the import is COMPLETED with every item counted once.
func TestImportSurvivesKillBeforeItsTable(t *testing.T) {
	dataDir, root := t.TempDir(), t.TempDir()
	args := []string{"--data-dir", dataDir, "--export-dir", root}
	const n = 500
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"%d"},"g":{"S":"g%d"}}}`+"\n", i%10, i, i%7)
	}
	writeObject(t, root, "cw", "data/00000.json.gz", "GZIP", []byte(b.String()))
	name := tableName("cw_imp")
	_, c := crashBeforeTable(t, args, func(c *dynamodb.Client) error {
		_, err := c.ImportTable(ctxT(t), &dynamodb.ImportTableInput{
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("cw"), S3KeyPrefix: aws.String("data/")},
			InputFormat:    types.InputFormatDynamodbJson, InputCompressionType: types.InputCompressionTypeGzip,
			TableCreationParameters: importParams(name),
		})
		return err
	})
	waitActive(t, c, name, 90*time.Second)
	if got := countItems(t, c, name); got != n {
		t.Fatalf("imported table ACTIVE with %d items, want %d", got, n)
	}
	list, err := c.ListImports(ctxT(t), &dynamodb.ListImportsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.ImportSummaryList) != 1 {
		t.Fatalf("%d imports listed, want the one resumed", len(list.ImportSummaryList))
	}
	d := waitImport(t, c, aws.ToString(list.ImportSummaryList[0].ImportArn), 30*time.Second)
	if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != n || d.ProcessedItemCount != n || d.ErrorCount != 0 {
		t.Fatalf("resumed import: %s, %d processed, %d imported, %d errors", d.ImportStatus, d.ProcessedItemCount, d.ImportedItemCount, d.ErrorCount)
	}
}
