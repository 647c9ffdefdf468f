package api

import (
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// TestFillingTableStaysCreating: a table a job is filling is CREATING
// until the job sets it ACTIVE, even under a clock set past
// storage.FillingUntil (extenddb serve --clock manual), so no item request
// reaches it mid-fill; a table CREATING for a status delay turns ACTIVE
// once its ActiveAt has passed.
func TestFillingTableStaysCreating(t *testing.T) {
	late := storage.FillingUntil.Add(time.Hour)
	e := &Engine{now: func() time.Time { return late }}
	filling := &storage.Table{Status: storage.StatusCreating, ActiveAt: storage.FillingUntil}
	if got := e.status(filling); got != storage.StatusCreating {
		t.Errorf("filling table at %v: %s, want CREATING", late, got)
	}
	delayed := &storage.Table{Status: storage.StatusCreating, ActiveAt: late.Add(-time.Second)}
	if got := e.status(delayed); got != storage.StatusActive {
		t.Errorf("table past its status delay: %s, want ACTIVE", got)
	}
}
