package storage

import "context"

// Recoverer is implemented by a backend whose item writes commit the item
// first and write their derived rows (index rows, stream records, expiry
// rows) afterwards, so that a process that stops between the two leaves
// the derived rows behind. Such a backend records each write's intent
// durably before committing it, and Recover completes the intents of the
// processes that are gone.
type Recoverer interface {
	// Recover finishes the writes of frontends that stopped between an
	// item's commit and its derived rows; it returns how many writes it
	// repaired. Repairs are idempotent, so running it again, or in several
	// processes at once, is harmless. It returns ErrClosed once the backend
	// is closed, and a storage error when a pass could not complete (the
	// next pass resumes the unfinished work).
	Recover(ctx context.Context) (int, error)
}
