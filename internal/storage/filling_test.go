package storage

import (
	"testing"
	"time"
)

// TestFilling: only a CREATING table whose ActiveAt is FillingUntil is
// filling, also as the catalog stores it; a table CREATING for a status
// delay is not, before or after its ActiveAt.
func TestFilling(t *testing.T) {
	now := time.Now().UTC()
	for _, c := range []struct {
		status   string
		activeAt time.Time
		want     bool
	}{
		{StatusCreating, FillingUntil, true},
		{StatusActive, FillingUntil, false},
		{StatusCreating, now.Add(time.Minute), false},
		{StatusCreating, now.Add(-time.Minute), false},
		{StatusActive, time.Time{}, false},
	} {
		tb := &Table{Name: "t", Status: c.status, ActiveAt: c.activeAt}
		def, err := EncodeTable(tb)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := DecodeTable(def, 1)
		if err != nil {
			t.Fatal(err)
		}
		if tb.Filling() != c.want || stored.Filling() != c.want {
			t.Errorf("%s until %v: Filling() = %v, stored %v, want %v", c.status, c.activeAt, tb.Filling(), stored.Filling(), c.want)
		}
	}
}
