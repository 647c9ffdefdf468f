package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// PrepareCreate readies t for Catalog.CreateTable, on t itself: an empty
// ID or Index.ID gets a new UUID, and a zero Version becomes 1. It returns
// t's definition as a catalog stores it (EncodeTable).
func PrepareCreate(t *Table) ([]byte, error) {
	if t.ID == "" {
		t.ID = uuid.NewString()
	}
	assignIndexIDs(t)
	if t.Version == 0 {
		t.Version = 1
	}
	return EncodeTable(t)
}

// PrepareUpdate readies cur, what a Catalog.UpdateTable function made of
// the entry before, to be stored: new indexes get a UUID and the Version
// is before's plus one. It returns cur's definition as a catalog stores it
// (EncodeTable), and refuses a change of the table's account, name or ID.
func PrepareUpdate(before, cur *Table) ([]byte, error) {
	if cur.Account != before.Account || cur.Name != before.Name || cur.ID != before.ID {
		return nil, errors.New("storage: UpdateTable may not change a table's account, name or ID")
	}
	assignIndexIDs(cur)
	cur.Version = before.Version + 1
	return EncodeTable(cur)
}

// EncodeTable is the definition of t as a catalog stores it: JSON.
func EncodeTable(t *Table) ([]byte, error) {
	def, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("storage: encode table %s: %w", t.Name, err)
	}
	return def, nil
}

// DecodeTable reads a definition EncodeTable wrote, stored at version.
// Errors: a definition that is not one (a corrupt catalog entry).
func DecodeTable(def []byte, version int64) (*Table, error) {
	t := &Table{}
	if err := json.Unmarshal(def, t); err != nil {
		return nil, fmt.Errorf("storage: corrupt catalog entry: %w", err)
	}
	t.Version = version
	return t, nil
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

// errNothingToDrop ends a DropDeletingIndexEntry whose index is gone or not
// DELETING.
var errNothingToDrop = errors.New("storage: nothing to drop")

// DropDeletingIndexEntry is the catalog step of IndexBuilder.DropIndex for
// backends whose UpdateTable is atomic on the entry: it removes the index
// with ID indexID from the entry of table (account, name) with
// DropDeletingIndex, when the entry's ID is tableID ("": any). An index or
// table that is gone, or an index in another state, is left alone without
// error. Errors: c.UpdateTable's.
func DropDeletingIndexEntry(ctx context.Context, c Catalog, account, name, tableID, indexID string) error {
	_, err := c.UpdateTable(ctx, account, name, func(t *Table) error {
		if (tableID != "" && t.ID != tableID) || !DropDeletingIndex(t, indexID) {
			return errNothingToDrop
		}
		return nil
	})
	if errors.Is(err, errNothingToDrop) || errors.Is(err, ErrTableNotFound) {
		return nil
	}
	return err
}
