package storage

import (
	"context"
	"sync"
)

// ParallelWriter is implemented by backends whose single-item writes are
// each several network round trips, independent of one another
// (Cassandra: a SERIAL read, a lightweight transaction and the derived
// rows). Callers holding many independent single-item writes, such as
// BatchWriteItem and the expiry pass, run up to WriteParallelism of them
// at once there. Backends without it (SQLite's single writer,
// PostgreSQL's cheap local commits) get them one after another, as
// before. It is an optimization: results are the same either way.
type ParallelWriter interface {
	// WriteParallelism is how many independent Mutate calls are worth
	// running at once; 1 or less means one at a time.
	WriteParallelism() int
}

// WriteParallelism is store's ParallelWriter.WriteParallelism, or 1.
func WriteParallelism(store any) int {
	if p, ok := store.(ParallelWriter); ok {
		return max(p.WriteParallelism(), 1)
	}
	return 1
}

// EachWrite runs write(0), ..., write(n-1), up to limit at once, starting
// them in index order. After a call fails it starts no more (those already
// running finish: a write is never cancelled half-way by another's
// failure) and returns the error of the lowest index that failed. With a
// limit of 1 it is a plain loop that stops at the first error. A ctx that
// ends stops starting new calls and returns ctx's error when no call
// failed.
func EachWrite(ctx context.Context, n, limit int, write func(i int) error) error {
	if limit <= 1 || n <= 1 {
		for i := range n {
			if err := write(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed = -1
		first  error
	)
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed >= 0
	}
	sem := make(chan struct{}, limit)
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		// A write may have failed while the loop waited for a slot.
		if ctx.Err() != nil || stopped() {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := write(i); err != nil {
				mu.Lock()
				if failed < 0 || i < failed {
					failed, first = i, err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
