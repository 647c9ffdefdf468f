package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// waitNextSecond sleeps until the wall clock is in a later whole second
// than t (history records count time in whole seconds).
func waitNextSecond(t time.Time) {
	next := t.Truncate(time.Second).Add(time.Second + 50*time.Millisecond)
	time.Sleep(time.Until(next))
}

// A point in time restore to a time between two known sets of writes
// gives exactly the table, indexes included, as it was after the first;
// UseLatestRestorableTime gives the table as it is.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html
func TestPointInTimeRestore(t *testing.T) {
	_, c := startClient(t, "--backup-root", t.TempDir())
	src := tableName("pitr_src")
	createIndexedTable(t, c, src)
	putItem(t, c, src, backupItem(100)) // before recovery is enabled
	if _, err := c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(src),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	waitNextSecond(time.Now())
	for i := range 20 {
		putItem(t, c, src, backupItem(i))
	}
	want := tableState(t, c, src)
	restoreAt := time.Now()
	waitNextSecond(restoreAt)
	// Changes after the restore time: updates, deletes and inserts.
	for i := range 5 {
		it := backupItem(i)
		it["extra"] = avS("later")
		putItem(t, c, src, it)
	}
	for i := 5; i < 10; i++ {
		k := backupItem(i)
		if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: item{"pk": k["pk"], "sk": k["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: item{"pk": avS("p2"), "sk": avN("100")}}); err != nil {
		t.Fatal(err)
	}
	for i := 200; i < 205; i++ {
		putItem(t, c, src, backupItem(i))
	}
	latest := tableState(t, c, src)

	dst := tableName("pitr_dst")
	out, err := c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(src),
		TargetTableName: aws.String(dst), RestoreDateTime: aws.Time(restoreAt)})
	if err != nil {
		t.Fatal(err)
	}
	if s := out.TableDescription.RestoreSummary; s == nil || !aws.ToBool(s.RestoreInProgress) || aws.ToString(s.SourceTableArn) != tableArn(src) {
		t.Fatalf("RestoreSummary = %+v", s)
	}
	waitStatus(t, c, dst, types.TableStatusActive, 60*time.Second)
	if got := tableState(t, c, dst); got != want {
		t.Fatalf("table restored to %v differs from the table then:\ngot\n%s\nwant\n%s", restoreAt, got, want)
	}

	dst2 := tableName("pitr_latest")
	if _, err := c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(src),
		TargetTableName: aws.String(dst2), UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, dst2, types.TableStatusActive, 60*time.Second)
	if got := tableState(t, c, dst2); got != latest {
		t.Fatalf("table restored to the latest time differs from the table:\ngot\n%s\nwant\n%s", got, latest)
	}

	// Errors: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableToPointInTime.html#API_RestoreTableToPointInTime_Errors
	_, err = c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(src),
		TargetTableName: aws.String(tableName("pitr_early")), RestoreDateTime: aws.Time(time.Now().Add(-time.Hour))})
	wantAPIError(t, err, "InvalidRestoreTimeException", "")
	_, err = c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(dst),
		TargetTableName: aws.String(tableName("pitr_off")), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "")
	_, err = c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("missing"),
		TargetTableName: aws.String(tableName("pitr_x")), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: missing")
	_, err = c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(src),
		TargetTableName: aws.String(dst), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "TableAlreadyExistsException", fmt.Sprintf("Table already exists: %s", dst))
}

// Changing RecoveryPeriodInDays keeps the window's start and the history
// in it: after lengthening the period from 1 to 35 days the table still
// restores to a time before the change, and the server's history pruner
// (which runs at start and then every ten minutes) leaves the window's
// history alone. "Your table data is only recoverable to any
// point-in-time from within the configured recovery period."
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PointInTimeRecoveryDescription.html
func TestPointInTimeRecoveryPeriodChange(t *testing.T) {
	_, c := startClient(t, "--backup-root", t.TempDir())
	src := tableName("pitr_period")
	createIndexedTable(t, c, src)
	before := time.Now().Add(-time.Second)
	pitr := func(days int32) *types.PointInTimeRecoveryDescription {
		t.Helper()
		out, err := c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(src),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(days)}})
		if err != nil {
			t.Fatal(err)
		}
		return out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	}
	first := pitr(1)
	if aws.ToInt32(first.RecoveryPeriodInDays) != 1 || first.EarliestRestorableDateTime == nil || first.EarliestRestorableDateTime.Before(before) {
		t.Fatalf("enabled with 1 day: %+v", first)
	}
	waitNextSecond(time.Now())
	for i := range 10 {
		putItem(t, c, src, backupItem(i))
	}
	want := tableState(t, c, src)
	restoreAt := time.Now()
	waitNextSecond(restoreAt)
	for i := range 5 {
		if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: item{"pk": backupItem(i)["pk"], "sk": backupItem(i)["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	second := pitr(35)
	if aws.ToInt32(second.RecoveryPeriodInDays) != 35 || !aws.ToTime(second.EarliestRestorableDateTime).Equal(aws.ToTime(first.EarliestRestorableDateTime)) {
		t.Fatalf("lengthened to 35 days: %+v, want the window's start unchanged (%v)", second, aws.ToTime(first.EarliestRestorableDateTime))
	}
	d, err := c.DescribeContinuousBackups(ctxT(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(src)})
	if err != nil {
		t.Fatal(err)
	}
	if p := d.ContinuousBackupsDescription.PointInTimeRecoveryDescription; aws.ToInt32(p.RecoveryPeriodInDays) != 35 ||
		!aws.ToTime(p.EarliestRestorableDateTime).Equal(aws.ToTime(first.EarliestRestorableDateTime)) {
		t.Fatalf("DescribeContinuousBackups: %+v", p)
	}
	dst := tableName("pitr_period_dst")
	if _, err := c.RestoreTableToPointInTime(ctxT(t), &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String(src),
		TargetTableName: aws.String(dst), RestoreDateTime: aws.Time(restoreAt)}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, dst, types.TableStatusActive, 60*time.Second)
	if got := tableState(t, c, dst); got != want {
		t.Fatalf("table restored to %v differs from the table then:\ngot\n%s\nwant\n%s", restoreAt, got, want)
	}
}
