package storagetest

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// snapshotTests are added to Run's list.
var snapshotTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"ScanSnapshotOneInstant", testScanSnapshot},
}

// testScanSnapshot: storage.SnapshotScanner's read is the table at one
// instant while a writer keeps changing it. The writer sets items 0..n-1
// to round r, one after another, round after round, so the table at any
// instant is items 0..j-1 at some round r and items j..n-1 at r-1; a read
// that mixes instants (one chunk before a write, the next after it) sees
// another shape, which the visitor's pauses make all but certain.
func testScanSnapshot(t *testing.T, e *env) {
	ss, ok := e.b.(storage.SnapshotScanner)
	if !ok {
		t.Skip("the backend reads no table snapshot (docs/backups.md)")
	}
	tb := e.create(e.table("snapshot", ""))
	const n = 200
	for i := range n {
		e.put(tb, snapshotItem(i, 0))
	}
	var writes atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var werr error
	wg.Go(func() {
		for r := 1; ; r++ {
			for i := range n {
				select {
				case <-stop:
					return
				default:
				}
				it := snapshotItem(i, r)
				if werr = e.b.Mutate(e.ctx, tb, e.key(tb, it), func(item.Item) (item.Item, error) { return it, nil }); werr != nil {
					return
				}
				writes.Add(1)
			}
		}
	})
	for writes.Load() < n/2 {
		time.Sleep(time.Millisecond)
	}
	round := make([]int, n)
	seen := 0
	before := writes.Load()
	err := ss.ScanSnapshot(e.ctx, tb, func(r storage.Row) bool {
		i, _ := strconv.Atoi(r.Item["pk"].S)
		round[i], _ = strconv.Atoi(r.Item["v"].S)
		seen++
		time.Sleep(time.Millisecond)
		return true
	})
	during := writes.Load() - before
	close(stop)
	wg.Wait()
	if err != nil || werr != nil {
		t.Fatalf("ScanSnapshot: %v; writer: %v", err, werr)
	}
	if seen != n {
		t.Fatalf("ScanSnapshot visited %d items, want %d", seen, n)
	}
	if during < 10 {
		t.Fatalf("only %d writes ran during the scan: the test proves nothing", during)
	}
	if !oneInstant(round) {
		t.Fatalf("rounds %v are not one instant of the writer (%d writes during the scan)", round, during)
	}
}

// snapshotItem is item i of testScanSnapshot at round r.
func snapshotItem(i, r int) item.Item {
	return item.Item{"pk": s(strconv.Itoa(i)), "v": n(strconv.Itoa(r))}
}

// oneInstant reports whether round is r for a prefix of the items and r-1
// for the rest.
func oneInstant(round []int) bool {
	hi := round[0]
	for i, r := range round {
		if r != hi && r != hi-1 || i > 0 && r > round[i-1] {
			return false
		}
	}
	return true
}
