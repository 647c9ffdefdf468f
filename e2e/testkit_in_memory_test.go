package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestInMemoryServerKeepsItsFilesInside: an --in-memory server keeps its
// snapshots, backups and exports inside its own in-memory directory, by
// default: two such servers never see each other's files, and a server
// killed with SIGKILL leaves none of them behind (its watchdog removes the
// directory with everything in it).
func TestInMemoryServerKeepsItsFilesInside(t *testing.T) {
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	sqliteOnly(t, "--in-memory directories are SQLite's")
	s, c := startClient(t, "--in-memory", "--admin-api")
	dir := memoryDirOf(t, s.Pid())
	name := tableName("inmem")
	createHashTable(t, c, name, "S")
	enablePITR(t, c, name)
	putItem(t, c, name, item{"pk": avS("a")})
	if _, err := adminAPI(s, testAccessKey, testSecretKey).SaveSnapshot(ctxT(t), "before"); err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("backup1")})
	if err != nil {
		t.Fatal(err)
	}
	waitBackup(t, c, aws.ToString(b.BackupDetails.BackupArn))
	desc, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{
		TableArn: desc.Table.TableArn, S3Bucket: aws.String("bucket")})
	if err != nil {
		t.Fatal(err)
	}
	waitExport(t, c, aws.ToString(ex.ExportDescription.ExportArn))
	for _, sub := range []string{"snapshots", "backups", "exports"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil || len(entries) == 0 {
			t.Fatalf("%s of the in-memory server not in %s: %v %v", sub, dir, entries, err)
		}
	}
	s.kill()
	waitRemoved(t, dir, 10*time.Second)
}
