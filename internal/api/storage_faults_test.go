package api

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// Storage faults reach the client as DynamoDB errors: a vanished table as
// ResourceNotFoundException (not a retried 500), a full disk as a retryable
// 503 that is logged, a storage closed by a shutdown as a retryable 503,
// a damaged file as a logged 500 telling the operator
// what to do. https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
func TestStorageFaultAnswers(t *testing.T) {
	for _, tc := range []struct {
		err     error
		typ     string
		status  int
		message string
		logged  string
	}{
		{fmt.Errorf("%w: no such table: t_1", storage.ErrTableNotFound), "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", 400,
			"Requested resource not found", ""},
		{fmt.Errorf("sqlite: commit: %w: database or disk is full", storage.ErrStorageFull), "com.amazon.coral.service#ServiceUnavailableException", 503,
			"The server's storage is full; retry after space is freed.", "storage is full"},
		{fmt.Errorf("cassandra: put: %w", storage.ErrClosed), "com.amazon.coral.service#ServiceUnavailableException", 503,
			"The server is shutting down; retry.", ""},
		{fmt.Errorf("%w: database disk image is malformed", storage.ErrCorrupt), "com.amazonaws.dynamodb.v20120810#InternalServerError", 500,
			"Internal server error", "restore the data directory from a backup"},
	} {
		var log bytes.Buffer
		err := storageFault(slog.New(slog.NewTextHandler(&log, nil)), "PutItem", tc.err)
		var de *ddberr.Error
		if !errors.As(err, &de) || de.Type != tc.typ || de.Status != tc.status || de.Message != tc.message {
			t.Errorf("%v: got %+v", tc.err, err)
		}
		if tc.logged != "" && !strings.Contains(log.String(), tc.logged) {
			t.Errorf("%v: log %q lacks %q", tc.err, log.String(), tc.logged)
		}
	}
	plain := errors.New("other")
	if storageFault(slog.Default(), "PutItem", plain) != plain {
		t.Error("other errors must pass unchanged")
	}
}
