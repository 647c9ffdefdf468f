package api

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// DeleteTable's and DescribeTable's refusals beyond the member constraints
// (validation_control_test.go): a table still being created, deletion
// protection.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html
func TestValidationDeleteTableStates(t *testing.T) {
	store, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "states.sqlite"), Synchronous: "OFF"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := New(store, Config{StatusDelay: time.Hour})
	mustServe(t, e, "CreateTable", `{"TableName":"creating","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	const (
		srcCreating  = "https://github.com/vdesabou/kafka-docker-playground/issues/8703 (DeleteTable right after CreateTable, DynamoDB's answer quoted)"
		srcProtected = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection"
	)
	runValidations(t, e, "DeleteTable", []validation{
		{"being created", `{"TableName":"creating"}`,
			"ResourceInUseException: Attempt to change a resource which is still in use: Table is being created: creating", srcCreating},
	})
	active := itemEngine(t)
	mustServe(t, active, "UpdateTable", `{"TableName":"hash","DeletionProtectionEnabled":true}`)
	runValidations(t, active, "DeleteTable", []validation{
		{"deletion protection", `{"TableName":"hash"}`,
			"ValidationException: Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.", srcProtected},
	})
}
