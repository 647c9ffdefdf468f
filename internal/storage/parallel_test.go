package storage

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachWriteRunsEveryWriteBounded(t *testing.T) {
	var running, peak, done atomic.Int32
	err := EachWrite(context.Background(), 50, 4, func(i int) error {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		done.Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if done.Load() != 50 {
		t.Errorf("ran %d writes, want 50", done.Load())
	}
	if peak.Load() > 4 || peak.Load() < 2 {
		t.Errorf("peak concurrency %d, want 2..4", peak.Load())
	}
}

func TestEachWriteReturnsLowestFailureAndStopsStarting(t *testing.T) {
	errAt := func(i int) error { return errors.New("write " + string(rune('0'+i))) }
	var started atomic.Int32
	err := EachWrite(context.Background(), 1000, 3, func(i int) error {
		started.Add(1)
		if i == 5 || i == 7 {
			time.Sleep(time.Duration(10-i) * time.Millisecond) // 7 fails first
			return errAt(i)
		}
		time.Sleep(time.Millisecond)
		return nil
	})
	if err == nil || err.Error() != errAt(5).Error() {
		t.Errorf("error %v, want %v", err, errAt(5))
	}
	if started.Load() >= 1000 {
		t.Errorf("started all %d writes after a failure", started.Load())
	}
}

func TestEachWriteSerialStopsAtFirstError(t *testing.T) {
	var ran []int
	boom := errors.New("boom")
	err := EachWrite(context.Background(), 5, 1, func(i int) error {
		ran = append(ran, i)
		if i == 2 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || len(ran) != 3 {
		t.Errorf("err %v after %v, want boom after [0 1 2]", err, ran)
	}
}

type parallelStore struct{ n int }

func (p parallelStore) WriteParallelism() int { return p.n }

func TestWriteParallelism(t *testing.T) {
	if got := WriteParallelism(struct{}{}); got != 1 {
		t.Errorf("without ParallelWriter: %d, want 1", got)
	}
	if got := WriteParallelism(parallelStore{16}); got != 16 {
		t.Errorf("ParallelWriter 16: %d", got)
	}
	if got := WriteParallelism(parallelStore{0}); got != 1 {
		t.Errorf("ParallelWriter 0: %d, want 1", got)
	}
}

// A failure while the loop waits for a free slot stops it: the write that
// slot would have gone to is not started.
func TestEachWriteStartsNoneAfterFailureWhileWaiting(t *testing.T) {
	boom := errors.New("boom")
	release := make(chan struct{})
	var started atomic.Int32
	go func() {
		for started.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // the loop now waits for a slot
		close(release)
	}()
	err := EachWrite(context.Background(), 3, 2, func(i int) error {
		started.Add(1)
		switch i {
		case 0:
			<-release
			return boom
		case 1:
			<-release
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("err %v, want boom", err)
	}
	if n := started.Load(); n != 2 {
		t.Errorf("started %d writes, want 2 (none after the failure)", n)
	}
}
