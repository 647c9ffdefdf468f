package storagetest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

func testPutGetDelete(t *testing.T, e *env) {
	for _, skType := range []string{"", "S"} {
		tb := e.create(e.table("t"+skType, skType))
		it := item.Item{
			"pk":   s("alpha"),
			"n":    n("-12.5"),
			"bin":  b(0, 0xFF, 7),
			"list": item.L(s("x"), item.Bool(true), item.Null()),
			"map":  item.M(map[string]item.AttributeValue{"inner": item.NS("1", "2")}),
			"ss":   item.SS("a", "b"),
		}
		if skType != "" {
			it["sk"] = s("one")
		}
		k := e.key(tb, it)
		if got := e.get(tb, k); got != nil {
			t.Fatalf("GetItem before put = %v", got)
		}
		e.put(tb, it)
		e.wantItem("GetItem after put", e.get(tb, k), it)

		it2 := item.Item{"pk": s("alpha"), "only": s("this")}
		if skType != "" {
			it2["sk"] = s("one")
		}
		e.put(tb, it2)
		e.wantItem("GetItem after overwrite", e.get(tb, k), it2)

		if skType != "" {
			// A neighbour in the same partition is a different item.
			other := item.Item{"pk": s("alpha"), "sk": s("two")}
			e.put(tb, other)
			e.wantItem("neighbour", e.get(tb, e.key(tb, other)), other)
			e.wantItem("first item", e.get(tb, k), it2)
		}

		var seen item.Item
		err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
			seen = old
			return nil, nil
		})
		if err != nil {
			t.Fatalf("delete: %v", err)
		}
		e.wantItem("image passed to the delete", seen, it2)
		if got := e.get(tb, k); got != nil {
			t.Fatalf("GetItem after delete = %v", got)
		}
		// Deleting an absent item succeeds and writes nothing.
		e.del(tb, k)
	}
}

func testMutateReturningOld(t *testing.T, e *env) {
	tb := e.create(e.table("t", "N"))
	orig := item.Item{"pk": s("k"), "sk": n("1"), "v": s("original")}
	e.put(tb, orig)
	k := e.key(tb, orig)
	calls := 0
	err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
		calls++
		old["v"] = s("changed in place") // returning old itself must write nothing
		return old, nil
	})
	if err != nil || calls == 0 {
		t.Fatalf("Mutate = %v after %d calls", err, calls)
	}
	e.wantItem("item after a no-op Mutate", e.get(tb, k), orig)

	// Returning nil for an absent item writes nothing either.
	missing := storage.Key{PK: enc(s("absent")), SK: enc(n("1"))}
	if err := e.b.Mutate(e.ctx, tb, missing, func(old item.Item) (item.Item, error) {
		if old != nil {
			return nil, fmt.Errorf("absent item has image %v", old)
		}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	st, err := e.b.Stats(e.ctx, tb)
	if err != nil || st.ItemCount != 1 {
		t.Fatalf("Stats = %+v, %v; want one item", st, err)
	}
}

func testFailingMutate(t *testing.T, e *env) {
	tb := e.create(e.table("t", ""))
	orig := item.Item{"pk": s("k"), "v": n("1")}
	e.put(tb, orig)
	k := e.key(tb, orig)
	cond := errors.New("condition failed")
	err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
		return item.Item{"pk": s("k"), "v": n("2")}, cond
	})
	if err != cond {
		t.Fatalf("Mutate error = %v, want fn's error unchanged", err)
	}
	e.wantItem("item after a failed Mutate", e.get(tb, k), orig)

	err = e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) { return nil, cond })
	if err != cond {
		t.Fatalf("failed delete error = %v", err)
	}
	e.wantItem("item after a failed delete", e.get(tb, k), orig)

	newKey := storage.Key{PK: enc(s("new"))}
	err = e.b.Mutate(e.ctx, tb, newKey, func(old item.Item) (item.Item, error) {
		return item.Item{"pk": s("new")}, cond
	})
	if err != cond || e.get(tb, newKey) != nil {
		t.Fatalf("failed create: %v, item %v", err, e.get(tb, newKey))
	}
}

// testRacingCounter increments one counter from many goroutines: every
// Mutate sees the image the previous one committed.
func testRacingCounter(t *testing.T, e *env) {
	tb := e.create(e.table("counter", ""))
	k := storage.Key{PK: enc(s("c"))}
	const workers, each = 16, 40
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
					v := 0
					if old != nil {
						var err error
						if v, err = strconv.Atoi(old["n"].S); err != nil {
							return nil, err
						}
					}
					return item.Item{"pk": s("c"), "n": n(strconv.Itoa(v + 1))}, nil
				})
				if err != nil {
					e.t.Errorf("increment: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got := e.get(tb, k)
	if got["n"].S != strconv.Itoa(workers*each) {
		t.Fatalf("counter = %v, want %d", got["n"], workers*each)
	}
}

var errExists = errors.New("item exists")

// testConditionalCreateRace races creates conditioned on absence: exactly
// one wins, and the stored item is the winner's.
func testConditionalCreateRace(t *testing.T, e *env) {
	tb := e.create(e.table("t", "S"))
	for round := range 5 {
		pk := fmt.Sprint("key-", round)
		k := storage.Key{PK: enc(s(pk)), SK: enc(s("x"))}
		const racers = 16
		errs := make([]error, racers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = e.b.Mutate(e.ctx, tb, k, func(old item.Item) (item.Item, error) {
					if old != nil {
						return nil, errExists
					}
					return item.Item{"pk": s(pk), "sk": s("x"), "owner": n(strconv.Itoa(i))}, nil
				})
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: racers %d and %d both created the item", round, winner, i)
			case err == nil:
				winner = i
			case err != errExists:
				t.Fatalf("round %d: racer %d: %v", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		if got := e.get(tb, k); got["owner"].S != strconv.Itoa(winner) {
			t.Fatalf("round %d: stored owner %v, winner %d", round, got["owner"], winner)
		}
	}
}

func testStats(t *testing.T, e *env) {
	tb := e.create(e.table("t", "S"))
	var want int64
	for i := range 20 {
		it := item.Item{"pk": s(fmt.Sprint("p", i%3)), "sk": s(fmt.Sprint(i)), "pad": s(fmt.Sprintf("%0*d", i*10, 0))}
		e.put(tb, it)
		want += int64(item.Size(it))
	}
	for i := range 5 {
		e.del(tb, storage.Key{PK: enc(s(fmt.Sprint("p", i%3))), SK: enc(s(fmt.Sprint(i)))})
		want -= int64(item.Size(item.Item{"pk": s(fmt.Sprint("p", i%3)), "sk": s(fmt.Sprint(i)), "pad": s(fmt.Sprintf("%0*d", i*10, 0))}))
	}
	st, err := e.b.Stats(e.ctx, tb)
	if err != nil {
		t.Fatal(err)
	}
	if st.ItemCount != 15 || st.SizeBytes != want {
		t.Fatalf("Stats = %+v, want 15 items, %d bytes", st, want)
	}
	var sum int64
	for _, r := range e.scan(tb, storage.ScanRequest{}) {
		sum += int64(r.Size)
		if r.Size != item.Size(r.Item) {
			t.Fatalf("row size %d, item.Size %d", r.Size, item.Size(r.Item))
		}
	}
	if sum != want {
		t.Fatalf("scanned sizes sum to %d, want %d", sum, want)
	}
}
