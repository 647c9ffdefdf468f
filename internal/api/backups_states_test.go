package api

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// The backup operations' refusals of a table or backup in the middle of
// something: CreateBackup of a table being created (TableInUseException),
// RestoreTableFromBackup and DeleteBackup of a backup being created
// (BackupInUseException), DeleteTable and CreateBackup of a table being
// restored. No job runner runs here, so the backup and the restore stay
// where they are; a second engine over the same data keeps its tables CREATING
// for an hour. The documented conditions are cited per case; the message
// texts are worded here (docs/differences-from-dynamodb.md).
func TestValidationBackupStates(t *testing.T) {
	store, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "states.sqlite"), Synchronous: "OFF"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := New(store, Config{})
	e.SetBackups(backup.New(store, jobs.NewStore(store), t.TempDir(), nil))
	slow := New(store, Config{StatusDelay: time.Hour})
	const key = `"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]`
	mustServe(t, slow, "CreateTable", `{"TableName":"creating","BillingMode":"PAY_PER_REQUEST",`+key+`}`)
	mustServe(t, e, "CreateTable", `{"TableName":"active","BillingMode":"PAY_PER_REQUEST",`+key+`}`)
	got, gerr := callService(e, "", "CreateBackup", `{"TableName":"active","BackupName":"pending"}`)
	if gerr != "" {
		t.Fatal(gerr)
	}
	var out struct {
		BackupDetails struct{ BackupArn, BackupStatus string }
	}
	if err := json.Unmarshal([]byte(got), &out); err != nil || out.BackupDetails.BackupStatus != "CREATING" {
		t.Fatalf("CreateBackup: %s (%v), want a backup CREATING", got, err)
	}
	arn := out.BackupDetails.BackupArn
	runValidations(t, e, "CreateBackup", []validation{
		{"table being created", `{"TableName":"creating","BackupName":"second"}`,
			"TableInUseException: Table is being created: creating",
			"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateBackup.html#API_CreateBackup_Errors (TableInUseException: the table is being created or deleted)"},
	})
	runValidations(t, e, "RestoreTableFromBackup", []validation{
		{"backup being created", `{"TargetTableName":"restored","BackupArn":"` + arn + `"}`,
			"BackupInUseException: Backup is being created: " + arn,
			"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_RestoreTableFromBackup.html#API_RestoreTableFromBackup_Errors (BackupInUseException: the backup is being created, deleted or restored)"},
	})
	runValidations(t, e, "DeleteBackup", []validation{
		{"backup being created", `{"BackupArn":"` + arn + `"}`,
			"BackupInUseException: Backup is being created: " + arn,
			"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteBackup.html#API_DeleteBackup_Errors (BackupInUseException: the backup is being created, deleted or restored)"},
	})
	// A table being restored is CREATING with RestoreInProgress until its
	// job ends; it can be neither deleted nor backed up meanwhile.
	mustServe(t, e, "UpdateContinuousBackups", `{"TableName":"active","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`)
	mustServe(t, e, "RestoreTableToPointInTime", `{"SourceTableName":"active","TargetTableName":"restoring","UseLatestRestorableTime":true}`)
	got, gerr = callService(e, "", "DescribeTable", `{"TableName":"restoring"}`)
	var d struct {
		Table struct {
			TableStatus    string
			RestoreSummary struct{ RestoreInProgress bool }
		}
	}
	if err := json.Unmarshal([]byte(got), &d); gerr != "" || err != nil || d.Table.TableStatus != "CREATING" || !d.Table.RestoreSummary.RestoreInProgress {
		t.Fatalf("DescribeTable of a table being restored: %s %s", got, gerr)
	}
	runValidations(t, e, "DeleteTable", []validation{
		{"table being restored", `{"TableName":"restoring"}`,
			"ResourceInUseException: Attempt to change a resource which is still in use: Table is being created: restoring",
			"https://github.com/vdesabou/kafka-docker-playground/issues/8703 (DeleteTable of a table being created, DynamoDB's answer quoted)"},
	})
	runValidations(t, e, "CreateBackup", []validation{
		{"table being restored", `{"TableName":"restoring","BackupName":"third"}`,
			"TableInUseException: Table is being created: restoring",
			"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateBackup.html#API_CreateBackup_Errors (TableInUseException: the table is being created or deleted)"},
	})
}

// A server started without the backup service answers the backup
// operations that take a BackupArn after their member rules, as DynamoDB
// answers a malformed member before anything else: a too-short BackupArn
// is the member's ValidationException, a well-formed one is the service's
// absence (DynamoDB always has the service; the message is ours). The
// length constraint is
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeBackup.html#API_DescribeBackup_RequestParameters
func TestValidationBackupsNotConfigured(t *testing.T) {
	store, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "none.sqlite"), Synchronous: "OFF"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := New(store, Config{})
	const src = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeBackup.html#API_DescribeBackup_RequestParameters"
	arn := `arn:aws:dynamodb:us-east-1:000000000000:table/t/backup/01234567890123-0123abcd`
	short := "1 validation error detected: Value 'arn:short' at 'backupArn' failed to satisfy constraint: Member must have length greater than or equal to 37"
	for _, op := range []string{"DescribeBackup", "DeleteBackup"} {
		runValidations(t, e, op, []validation{
			{"short arn", `{"BackupArn":"arn:short"}`, "ValidationException: " + short, src},
			{"not configured", `{"BackupArn":"` + arn + `"}`, "ValidationException: Backups are not configured on this server", src},
		})
	}
	runValidations(t, e, "RestoreTableFromBackup", []validation{
		{"short arn", `{"TargetTableName":"restored","BackupArn":"arn:short"}`, "ValidationException: " + short, src},
		{"not configured", `{"TargetTableName":"restored","BackupArn":"` + arn + `"}`, "ValidationException: Backups are not configured on this server", src},
	})
}
