package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/extenddb/extenddb/internal/storage"
)

// PostgreSQL's disk_full and data or index corruption codes become the
// storage faults the API answers clearly (a retryable 503, a logged 500).
// https://www.postgresql.org/docs/current/errcodes-appendix.html
func TestStorageFaultCodes(t *testing.T) {
	for code, want := range map[string]error{
		"53100": storage.ErrStorageFull,
		"XX001": storage.ErrCorrupt,
		"XX002": storage.ErrCorrupt,
		"42P01": storage.ErrTableNotFound,
	} {
		err := mapErr(&pgconn.PgError{Code: code, Message: "m"})
		if !errors.Is(err, want) {
			t.Errorf("SQLSTATE %s: %v, want %v", code, err, want)
		}
	}
	if err := mapErr(&pgconn.PgError{Code: "23505"}); errors.Is(err, storage.ErrStorageFull) || errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("unique violation mapped to a fault: %v", err)
	}
}
