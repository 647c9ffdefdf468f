package sqlite

import (
	"context"
	"sync"
	"testing"
)

// In-memory databases opened at the same moment never remove each other's
// directory: each Open sweeps leftovers first, and a sweep that found a new
// database's lock file before it was locked took the lock and removed the
// directory ("unable to open database file", or "in use by another
// extenddb process").
func TestConcurrentInMemoryOpens(t *testing.T) {
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		backends := make(chan *Backend, 8)
		for i := 0; i < 8; i++ {
			wg.Go(func() {
				b, err := Open(context.Background(), Options{})
				if err != nil {
					errs <- err
					return
				}
				backends <- b
			})
		}
		wg.Wait()
		close(errs)
		close(backends)
		for b := range backends {
			if err := b.Close(); err != nil {
				t.Error(err)
			}
		}
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
