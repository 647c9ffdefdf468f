package storage

import (
	"errors"

	"github.com/google/uuid"
)

// PrepareCreate readies t for Catalog.CreateTable, on t itself: an empty
// ID or Index.ID gets a new UUID, and a zero Version becomes 1.
func PrepareCreate(t *Table) {
	if t.ID == "" {
		t.ID = uuid.NewString()
	}
	assignIndexIDs(t)
	if t.Version == 0 {
		t.Version = 1
	}
}

// PrepareUpdate readies cur, what a Catalog.UpdateTable function made of
// the entry before, to be stored: new indexes get a UUID and the Version
// is before's plus one. It refuses a change of the table's account, name
// or ID.
func PrepareUpdate(before, cur *Table) error {
	if cur.Account != before.Account || cur.Name != before.Name || cur.ID != before.ID {
		return errors.New("storage: UpdateTable may not change a table's account, name or ID")
	}
	assignIndexIDs(cur)
	cur.Version = before.Version + 1
	return nil
}

func assignIndexIDs(t *Table) {
	for i := range t.Indexes {
		if t.Indexes[i].ID == "" {
			t.Indexes[i].ID = uuid.NewString()
		}
	}
}

// DropDeletingIndex removes from t the index with ID indexID when its
// Status is DELETING (the catalog step of IndexBuilder.DropIndex), and
// reports whether it did.
func DropDeletingIndex(t *Table, indexID string) bool {
	for i, ix := range t.Indexes {
		if ix.ID == indexID && ix.Status == StatusDeleting {
			t.Indexes = append(t.Indexes[:i:i], t.Indexes[i+1:]...)
			return true
		}
	}
	return false
}
