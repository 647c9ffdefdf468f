package sqlite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Concurrent writers share commits (group commit), every acknowledged
// write is stored, and a lone writer after them still commits (the lead
// was handed back when the queue emptied).
func TestConcurrentWritersShareCommits(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{Synchronous: "FULL"})
	tb := hashTable("g")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 20
	start := b.commits.Load()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				put(t, b, tb, item.Item{"pk": item.S(fmt.Sprint(w, "-", i))})
			}
		}()
	}
	wg.Wait()
	if c := b.commits.Load() - start; c >= writers*each {
		t.Errorf("%d writes took %d commits: no group commit", writers*each, c)
	}
	put(t, b, tb, item.Item{"pk": item.S("last")})
	for _, pk := range []string{"0-0", "15-19", "7-11", "last"} {
		it, err := b.GetItem(ctx, tb, storage.Key{PK: item.EncodeKey(item.S(pk))}, true)
		if err != nil || it == nil {
			t.Errorf("acknowledged write %s missing: %v %v", pk, it, err)
		}
	}
}

// A write function that panics fails its own write with an error and
// nothing else: writes around it commit, and the backend keeps serving.
func TestWritePanicFailsOnlyItsWrite(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t, Options{Synchronous: "OFF"})
	tb := hashTable("p")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pk := fmt.Sprint(i)
			errs[i] = b.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(item.S(pk))}, func(item.Item) (item.Item, error) {
				if i%2 == 1 {
					panic("boom")
				}
				return item.Item{"pk": item.S(pk)}, nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		k := storage.Key{PK: item.EncodeKey(item.S(fmt.Sprint(i)))}
		it, gerr := b.GetItem(ctx, tb, k, true)
		if gerr != nil {
			t.Fatal(gerr)
		}
		if i%2 == 1 {
			if err == nil || !strings.Contains(err.Error(), "panicked") || it != nil {
				t.Errorf("panicking write %d: err %v, stored %v; want a panic error and nothing stored", i, err, it)
			}
		} else if err != nil || it == nil {
			t.Errorf("write %d beside the panics: err %v, stored %v", i, err, it)
		}
	}
	put(t, b, tb, item.Item{"pk": item.S("after")})
}

// A panic in the commit itself (here in Options.OnCommit) goes up the
// goroutine leading the commit, answers its group, and leaves the writer
// usable: the lead is passed on and later writes commit.
func TestPanicInCommitLeavesWriterUsable(t *testing.T) {
	ctx := context.Background()
	var once sync.Once
	b, _ := openTemp(t, Options{Synchronous: "OFF", OnCommit: func(int, time.Duration) {
		once.Do(func() { panic("commit hook") })
	}})
	tb := hashTable("c")
	var got any
	func() {
		defer func() { got = recover() }()
		b.CreateTable(ctx, tb)
	}()
	if got != "commit hook" {
		t.Fatalf("the leader's goroutine recovered %v, want the commit's panic", got)
	}
	tb2 := hashTable("d")
	if err := b.CreateTable(ctx, tb2); err != nil {
		t.Fatalf("CreateTable after the panic: %v", err)
	}
	put(t, b, tb2, item.Item{"pk": item.S("x")})
	if it, err := b.GetItem(ctx, tb2, storage.Key{PK: item.EncodeKey(item.S("x"))}, true); err != nil || it == nil {
		t.Fatalf("write after the panic: %v %v", it, err)
	}
}
