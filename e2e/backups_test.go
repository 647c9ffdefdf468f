package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// On-demand backups, restores and continuous backups through the AWS SDK.
// API reference: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateBackup.html
// and the pages of the other backup operations.

// createIndexedTable creates a provisioned table keyed (pk, sk) with a GSI
// on g and an LSI on l, and waits for it to be ACTIVE.
func createIndexedTable(t testing.TB, c *dynamodb.Client, name string) {
	t.Helper()
	tp := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:             aws.String(name),
		AttributeDefinitions:  attrDefs("pk", "S", "sk", "N", "g", "S", "l", "S"),
		KeySchema:             keySchema("pk", "sk"),
		ProvisionedThroughput: tp,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"), KeySchema: keySchema("g"),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: tp,
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("byL"), KeySchema: keySchema("pk", "l"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, name, types.TableStatusActive, 30*time.Second)
}

// backupItem is item i of the round trip: every attribute type, and index
// keys on most items (some are missing from the sparse GSI).
func backupItem(i int) item {
	it := item{
		"pk": avS(fmt.Sprintf("p%d", i%7)), "sk": avN(fmt.Sprint(i)),
		"l": avS(fmt.Sprintf("l%03d", 100-i)), "b": avB([]byte{byte(i), 0, 255}),
		"ss": avSS("x", fmt.Sprint(i)), "ns": avNS("1.5", fmt.Sprint(i+2)), "bs": avBS([]byte("a"), []byte{byte(i)}),
		"m": avM(map[string]types.AttributeValue{"n": avNull(), "t": avBool(i%2 == 0), "list": avL(avS("é"), avN("-0.001"))}),
	}
	if i%4 != 0 {
		it["g"] = avS(fmt.Sprintf("g%d", i%3))
	}
	return it
}

// tableState renders a table's items, then each index's (query by every
// index key value), as sorted text.
func tableState(t testing.TB, c *dynamodb.Client, name string) string {
	t.Helper()
	items, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	var lines []string
	for _, it := range items {
		lines = append(lines, "table "+itemText(it))
	}
	for _, idx := range []string{"byG", "byL"} {
		rows, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String(idx)})
		for _, it := range rows {
			lines = append(lines, idx+" "+itemText(it))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// waitBackup polls DescribeBackup until the backup is AVAILABLE.
func waitBackup(t testing.TB, c *dynamodb.Client, arn string) *types.BackupDescription {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := c.DescribeBackup(ctxT(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.BackupDescription
		if d.BackupDetails.BackupStatus == types.BackupStatusAvailable {
			return d
		}
		if d.BackupDetails.BackupStatus != types.BackupStatusCreating || time.Now().After(deadline) {
			t.Fatalf("backup %s is %s", arn, d.BackupDetails.BackupStatus)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBackupRestoreRoundTrip(t *testing.T) {
	_, c := startClient(t, "--backup-root", t.TempDir())
	src := tableName("bk_src")
	createIndexedTable(t, c, src)
	for i := range 60 {
		putItem(t, c, src, backupItem(i))
	}
	want := tableState(t, c, src)
	before := time.Now().Add(-time.Second)
	created, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String(src), BackupName: aws.String("nightly.1")})
	if err != nil {
		t.Fatal(err)
	}
	det := created.BackupDetails
	arn := aws.ToString(det.BackupArn)
	if !strings.HasPrefix(arn, tableArn(src)+"/backup/") || aws.ToString(det.BackupName) != "nightly.1" ||
		det.BackupType != types.BackupTypeUser || det.BackupCreationDateTime.Before(before) {
		t.Fatalf("CreateBackup details = %+v", det)
	}
	d := waitBackup(t, c, arn)
	// Writes after the backup are not in it.
	putItem(t, c, src, item{"pk": avS("late"), "sk": avN("1"), "g": avS("g1"), "l": avS("x")})
	if d.SourceTableDetails.ItemCount == nil || *d.SourceTableDetails.ItemCount != 60 || aws.ToString(d.SourceTableDetails.TableName) != src ||
		len(d.SourceTableFeatureDetails.GlobalSecondaryIndexes) != 1 || len(d.SourceTableFeatureDetails.LocalSecondaryIndexes) != 1 ||
		aws.ToInt64(d.BackupDetails.BackupSizeBytes) <= 0 {
		t.Fatalf("DescribeBackup = %+v", d)
	}

	dst := tableName("bk_dst")
	rest, err := c.RestoreTableFromBackup(ctxT(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(dst)})
	if err != nil {
		t.Fatal(err)
	}
	td := rest.TableDescription
	if td.TableStatus != types.TableStatusCreating || td.RestoreSummary == nil || !aws.ToBool(td.RestoreSummary.RestoreInProgress) ||
		aws.ToString(td.RestoreSummary.SourceBackupArn) != arn || aws.ToString(td.RestoreSummary.SourceTableArn) != tableArn(src) {
		t.Fatalf("RestoreTableFromBackup TableDescription = %+v (summary %+v)", td, td.RestoreSummary)
	}
	waitStatus(t, c, dst, types.TableStatusActive, 60*time.Second)
	dd := describe(t, c, dst)
	if dd.RestoreSummary == nil || aws.ToBool(dd.RestoreSummary.RestoreInProgress) || len(dd.GlobalSecondaryIndexes) != 1 || len(dd.LocalSecondaryIndexes) != 1 {
		t.Fatalf("restored table = %+v", dd)
	}
	if got := tableState(t, c, dst); got != want {
		t.Fatalf("restored table differs from the table at its backup:\ngot\n%s\nwant\n%s", got, want)
	}

	// The restore target must not exist.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableFromBackup.html#API_RestoreTableFromBackup_Errors
	_, err = c.RestoreTableFromBackup(ctxT(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(src)})
	wantAPIError(t, err, "TableAlreadyExistsException", "Table already exists: "+src)

	// Overrides: on-demand billing, no GSI.
	dst2 := tableName("bk_dst2")
	restoredAt := time.Now().Add(-time.Second)
	_, err = c.RestoreTableFromBackup(ctxT(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String(dst2),
		BillingModeOverride: types.BillingModePayPerRequest, GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{}})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, dst2, types.TableStatusActive, 60*time.Second)
	d2 := describe(t, c, dst2)
	if len(d2.GlobalSecondaryIndexes) != 0 || d2.BillingModeSummary == nil ||
		d2.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || aws.ToInt64(d2.ItemCount) != 60 && aws.ToInt64(d2.ItemCount) != 0 {
		t.Fatalf("restored table with overrides = %+v", d2)
	}
	// An on-demand table reports when it became on demand: for a restored
	// table, its creation (a zero time was described as -62135596800).
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BillingModeSummary.html
	if at := d2.BillingModeSummary.LastUpdateToPayPerRequestDateTime; at == nil || at.Before(restoredAt) {
		t.Fatalf("restored on-demand table's LastUpdateToPayPerRequestDateTime = %v, want its creation (after %v)", at, restoredAt)
	}

	testListBackups(t, c, src, arn)

	del, err := c.DeleteBackup(ctxT(t), &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if del.BackupDescription.BackupDetails.BackupStatus != types.BackupStatusDeleted {
		t.Fatalf("DeleteBackup status = %s, want DELETED", del.BackupDescription.BackupDetails.BackupStatus)
	}
	// Text quoted in https://github.com/turbot/steampipe-plugin-aws/issues/1913.
	_, err = c.DescribeBackup(ctxT(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arn)
	_, err = c.DeleteBackup(ctxT(t), &dynamodb.DeleteBackupInput{BackupArn: aws.String(arn)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arn)
}

// testListBackups checks ListBackups' filters and paging with a second
// backup of src.
func testListBackups(t *testing.T, c *dynamodb.Client, src, first string) {
	out, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String(src), BackupName: aws.String("second")})
	if err != nil {
		t.Fatal(err)
	}
	second := aws.ToString(out.BackupDetails.BackupArn)
	waitBackup(t, c, second)
	list := func(in *dynamodb.ListBackupsInput) ([]string, string) {
		t.Helper()
		out, err := c.ListBackups(ctxT(t), in)
		if err != nil {
			t.Fatal(err)
		}
		var arns []string
		for _, s := range out.BackupSummaries {
			if aws.ToString(s.TableName) != src || s.BackupStatus != types.BackupStatusAvailable {
				t.Fatalf("summary %+v", s)
			}
			arns = append(arns, aws.ToString(s.BackupArn))
		}
		return arns, aws.ToString(out.LastEvaluatedBackupArn)
	}
	if got, last := list(&dynamodb.ListBackupsInput{TableName: aws.String(src)}); !slices.Equal(got, []string{first, second}) || last != "" {
		t.Fatalf("ListBackups = %v, %q; want both, no LastEvaluatedBackupArn", got, last)
	}
	got, last := list(&dynamodb.ListBackupsInput{TableName: aws.String(src), Limit: aws.Int32(1)})
	if !slices.Equal(got, []string{first}) || last != first {
		t.Fatalf("first page = %v, %q", got, last)
	}
	if got, last = list(&dynamodb.ListBackupsInput{TableName: aws.String(src), Limit: aws.Int32(1), ExclusiveStartBackupArn: aws.String(last)}); !slices.Equal(got, []string{second}) {
		t.Fatalf("second page = %v, %q", got, last)
	}
	if got, _ = list(&dynamodb.ListBackupsInput{TableName: aws.String(src), BackupType: types.BackupTypeFilterSystem}); len(got) != 0 {
		t.Fatalf("SYSTEM backups = %v, want none", got)
	}
	future := time.Now().Add(time.Hour)
	if got, _ = list(&dynamodb.ListBackupsInput{TableName: aws.String(src), TimeRangeLowerBound: aws.Time(future)}); len(got) != 0 {
		t.Fatalf("backups after an hour from now = %v", got)
	}
	if got, _ = list(&dynamodb.ListBackupsInput{TableName: aws.String(src), TimeRangeUpperBound: aws.Time(future), BackupType: types.BackupTypeFilterAll}); len(got) != 2 {
		t.Fatalf("backups before an hour from now = %v", got)
	}
}

func TestBackupErrors(t *testing.T) {
	_, c := startClient(t, "--backup-root", t.TempDir())
	// "Table not found: <name>", quoted in
	// https://github.com/hashicorp/terraform-provider-aws/issues/26577.
	_, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String("missing"), BackupName: aws.String("bk1")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: missing")
	_, err = c.DescribeContinuousBackups(ctxT(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("missing")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: missing")
	_, err = c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String("missing"), BackupName: aws.String("b")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'b' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3")
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/x/backup/01700000000000-0123abcd"
	_, err = c.DescribeBackup(ctxT(t), &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arn)
	_, err = c.RestoreTableFromBackup(ctxT(t), &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("target")})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arn)
	// RecoveryPeriodInDays is 1 to 35:
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PointInTimeRecoverySpecification.html
	_, err = c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("missing"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(36)}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")
	_, err = c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("missing"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: missing")
}

// The calls Terraform's aws_dynamodb_table makes for a table with
// point_in_time_recovery { enabled = true }: create, wait for ACTIVE,
// UpdateContinuousBackups, wait for the setting, then every refresh reads
// DescribeTable, DescribeContinuousBackups, DescribeTimeToLive and
// ListTagsOfResource; destroy deletes the table.
func TestTerraformPointInTimeRecovery(t *testing.T) {
	_, c := startClient(t)
	name := tableName("tf_pitr")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("id", "S"),
		KeySchema: keySchema("id"), BillingMode: types.BillingModePayPerRequest})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, name, types.TableStatusActive, 30*time.Second)
	cb, err := c.DescribeContinuousBackups(ctxT(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cb.ContinuousBackupsDescription; d.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled ||
		d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Fatalf("new table's continuous backups = %+v", d)
	}
	before := time.Now().Add(-time.Second)
	up, err := c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	p := up.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	// Without RecoveryPeriodInDays the window is 35 days
	// (https://github.com/getmoto/moto/issues/9902).
	if p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(p.RecoveryPeriodInDays) != 35 ||
		p.EarliestRestorableDateTime == nil || p.EarliestRestorableDateTime.Before(before) || p.LatestRestorableDateTime.Before(*p.EarliestRestorableDateTime) {
		t.Fatalf("UpdateContinuousBackups = %+v", p)
	}
	for range 2 { // two refreshes
		describe(t, c, name)
		cb, err := c.DescribeContinuousBackups(ctxT(t), &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if s := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus; s != types.PointInTimeRecoveryStatusEnabled {
			t.Fatalf("PointInTimeRecoveryStatus = %s", s)
		}
		if _, err := c.DescribeTimeToLive(ctxT(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(tableArn(name))}); err != nil {
			t.Fatal(err)
		}
	}
	up, err = c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	if err != nil || aws.ToInt32(up.ContinuousBackupsDescription.PointInTimeRecoveryDescription.RecoveryPeriodInDays) != 7 {
		t.Fatalf("changing the recovery period: %+v, %v", up, err)
	}
	up, err = c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
	if err != nil || up.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Fatalf("disabling: %+v, %v", up, err)
	}
	if _, err := c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
}
