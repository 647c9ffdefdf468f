package api

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// TestListBackupsByTableArn: ListBackups' TableName, like CreateBackup's,
// may be the table's ARN: "Lists the backups from the table specified in
// TableName. You can also provide the Amazon Resource Name (ARN) of the
// table in this parameter."
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListBackups.html#DDB-ListBackups-request-TableName
func TestListBackupsByTableArn(t *testing.T) {
	store, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "list.sqlite"), Synchronous: "OFF"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := New(store, Config{})
	e.SetBackups(backup.New(store, jobs.NewStore(store), t.TempDir(), nil))
	const key = `"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]`
	for _, name := range []string{"music", "other"} {
		mustServe(t, e, "CreateTable", `{"TableName":"`+name+`","BillingMode":"PAY_PER_REQUEST",`+key+`}`)
		if _, gerr := callService(e, "", "CreateBackup", `{"TableName":"`+name+`","BackupName":"nightly"}`); gerr != "" {
			t.Fatal(gerr)
		}
	}
	arn := "arn:aws:dynamodb:us-east-1:" + e.cfg.AccountID + ":table/music"
	for _, table := range []string{"music", arn} {
		got, gerr := callService(e, "", "ListBackups", `{"TableName":"`+table+`"}`)
		if gerr != "" {
			t.Fatalf("ListBackups of %s: %s", table, gerr)
		}
		var out struct {
			BackupSummaries []struct{ TableName, TableArn string }
		}
		if err := json.Unmarshal([]byte(got), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.BackupSummaries) != 1 || out.BackupSummaries[0].TableName != "music" || out.BackupSummaries[0].TableArn != arn {
			t.Errorf("ListBackups of %s: %s, want the one backup of music", table, got)
		}
	}
	runValidations(t, e, "ListBackups", []validation{
		{"a name that is not one", `{"TableName":"a/b"}`,
			"ValidationException: 1 validation error detected: Value 'a/b' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
			"https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListBackups.html#DDB-ListBackups-request-TableName"},
	})
}
