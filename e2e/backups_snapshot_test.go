package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A backup taken while a writer changes the table is the table at one
// instant: restored, it holds exactly what the table held at some moment
// of the backup. DynamoDB's backups are consistent to the second of the
// request ("a backup of the table ... as of the time of the request"):
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Backup-and-Restore.html
// The writer sets item 0..n-1 to round r one after another, round after
// round, so every instant of the table is items 0..j-1 at a round r and
// the rest at r-1. On Cassandra the instant is rebuilt from the change
// history (docs/adr/0013g).
func TestBackupIsOneInstant(t *testing.T) {
	_, c := startClient(t, "--backup-root", t.TempDir())
	src := tableName("bk_instant")
	createHashTable(t, c, src, "S")
	const n = 3000
	pad := avS(strings.Repeat("x", 1000))
	put := func(i, r int) error {
		_, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(src),
			Item: item{"pk": avS(fmt.Sprintf("%05d", i)), "v": avN(strconv.Itoa(r)), "pad": pad}})
		return err
	}
	for i := 0; i < n; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < min(i+25, n); j++ {
			reqs = append(reqs, putReq(item{"pk": avS(fmt.Sprintf("%05d", j)), "v": avN("0"), "pad": pad}))
		}
		if _, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{src: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() {
		for r := 1; ; r++ {
			for i := range n {
				select {
				case <-stop:
					return
				default:
				}
				if werr = put(i, r); werr != nil {
					return
				}
			}
		}
	})
	time.Sleep(200 * time.Millisecond)
	created, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String(src), BackupName: aws.String("instant")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(created.BackupDetails.BackupArn)
	waitBackup(t, c, arn)
	close(stop)
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	dst := tableName("bk_instant_dst")
	if _, err := c.RestoreTableFromBackup(ctxT(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(dst)}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, dst, types.TableStatusActive, 60*time.Second)
	items, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(dst), ConsistentRead: aws.Bool(true)})
	if len(items) != n {
		t.Fatalf("restored %d items, want %d", len(items), n)
	}
	round := make([]int, n)
	for _, it := range items {
		i, _ := strconv.Atoi(it["pk"].(*types.AttributeValueMemberS).Value)
		round[i], _ = strconv.Atoi(it["v"].(*types.AttributeValueMemberN).Value)
	}
	for i, r := range round {
		if r != round[0] && r != round[0]-1 || i > 0 && r > round[i-1] {
			t.Fatalf("restored rounds are not one instant of the writer: item %d at %d after %v", i, r, round[max(0, i-5):i])
		}
	}
}
