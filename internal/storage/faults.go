package storage

import "errors"

// Faults of the storage itself, which backends wrap around their own error
// so the API layer can answer clearly (see internal/api's storage faults):
var (
	// ErrStorageFull: the disk (or the database's size limit) is full;
	// nothing of the failed write was applied. Retrying later can succeed.
	ErrStorageFull = errors.New("storage: no space left for data")
	// ErrCorrupt: a data file is damaged. The operator has to restore it.
	ErrCorrupt = errors.New("storage: data file is damaged")
)
