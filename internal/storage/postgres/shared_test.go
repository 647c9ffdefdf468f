package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestSharedDatabase runs two Backends (two pools, as two extenddb
// processes would) on one database and races them: catalog creates,
// conditional creates, read-modify-write counters, transactions, an index
// added while the other writes, and a delete under the other's writes.
// Nothing may be lost and exactly one create may win.
func TestSharedDatabase(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	var bs [2]*Backend
	var wg sync.WaitGroup
	for i := range bs {
		wg.Add(1)
		go func() { defer wg.Done(); bs[i] = openSchema(t, dsn, schema, Options{MaxConns: 16}) }()
	}
	wg.Wait()
	if bs[0] == nil || bs[1] == nil {
		t.FailNow()
	}
	via := func(i int) *Backend { return bs[i%2] }

	// Catalog: 16 creates of one name through both backends; one wins.
	var wins atomic.Int32
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch err := via(i).CreateTable(ctx, testTable("shared", "S")); {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, storage.ErrTableExists):
				t.Errorf("CreateTable %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d creates won, want 1", wins.Load())
	}
	tb, err := bs[1].GetTable(ctx, "000000000001", "shared")
	if err != nil {
		t.Fatal(err)
	}

	// Conditional creates: in each round exactly one racer creates the
	// item, and the stored item is the winner's.
	exists := errors.New("exists")
	for round := range 10 {
		pk := fmt.Sprint("c", round)
		k := storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S("x"))}
		var winner atomic.Int32
		winner.Store(-1)
		start := make(chan struct{})
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				err := via(i).Mutate(ctx, tb, k, func(old item.Item) (item.Item, error) {
					if old != nil {
						return nil, exists
					}
					return item.Item{"pk": item.S(pk), "sk": item.S("x"), "owner": item.N(strconv.Itoa(i))}, nil
				})
				switch {
				case err == nil:
					if !winner.CompareAndSwap(-1, int32(i)) {
						t.Errorf("round %d: racers %d and %d both created", round, winner.Load(), i)
					}
				case err != exists:
					t.Errorf("round %d racer %d: %v", round, i, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		got, err := bs[0].GetItem(ctx, tb, k, true)
		if err != nil || winner.Load() < 0 || got["owner"].S != strconv.Itoa(int(winner.Load())) {
			t.Fatalf("round %d: stored %v, winner %d, %v", round, got, winner.Load(), err)
		}
	}

	// Read-modify-write counters: no lost update.
	ck := storage.Key{PK: item.EncodeKey(item.S("counter")), SK: item.EncodeKey(item.S("x"))}
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				err := via(w).Mutate(ctx, tb, ck, func(old item.Item) (item.Item, error) {
					v := 0
					if old != nil {
						v, _ = strconv.Atoi(old["n"].S)
					}
					return item.Item{"pk": item.S("counter"), "sk": item.S("x"), "n": item.N(strconv.Itoa(v + 1))}, nil
				})
				if err != nil {
					t.Errorf("increment: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got, _ := bs[1].GetItem(ctx, tb, ck, true); got["n"].S != "400" {
		t.Fatalf("counter = %v, want 400", got["n"])
	}

	// Transactions through both backends keep a sum; some accounts start
	// absent, so creates race inside transactions too.
	acct := func(i int) storage.Key {
		return storage.Key{PK: item.EncodeKey(item.S(fmt.Sprint("acct", i))), SK: item.EncodeKey(item.S("x"))}
	}
	move := func(i, delta int) storage.Mutation {
		return storage.Mutation{Table: tb, Key: acct(i), Fn: func(old item.Item) (item.Item, error) {
			v := 0
			if old != nil {
				v, _ = strconv.Atoi(old["v"].S)
			}
			return item.Item{"pk": item.S(fmt.Sprint("acct", i)), "sk": item.S("x"), "v": item.N(strconv.Itoa(v + delta))}, nil
		}}
	}
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				from, to := (w+j)%5, (w*3+j+1)%5
				if from == to {
					to = (to + 1) % 5
				}
				if err := via(w).TransactWrite(ctx, []storage.Mutation{move(from, -1), move(to, 1)}); err != nil {
					t.Errorf("transfer: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sum := 0
	for i := range 5 {
		got, _ := bs[i%2].GetItem(ctx, tb, acct(i), true)
		v, _ := strconv.Atoi(got["v"].S)
		sum += v
	}
	if sum != 0 {
		t.Fatalf("sum after transfers = %d, want 0", sum)
	}

	// An index added through one backend while the other writes: every
	// item with g has exactly its index row afterwards.
	stop := make(chan struct{})
	var writes atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				it := item.Item{"pk": item.S(fmt.Sprint("w", w)), "sk": item.S(fmt.Sprint(i % 40)), "g": item.S(fmt.Sprint("G", i%3)), "i": item.N(strconv.Itoa(i))}
				if i%7 == 0 {
					delete(it, "g")
				}
				k, _ := storage.ItemKey(tb, it)
				if err := bs[1].Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
					t.Errorf("writer: %v", err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	waitWrites := func(n int64) {
		for deadline := time.Now().Add(time.Minute); writes.Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("writers stalled at %d writes", writes.Load())
			}
		}
	}
	waitWrites(200)
	_, err = bs[0].UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Indexes = append(t.Indexes, storage.Index{IndexName: "byg", Global: true,
			KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: storage.Projection{ProjectionType: storage.ProjectAll}, Status: storage.StatusActive})
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateTable: %v", err)
	}
	waitWrites(writes.Load() + 200)
	close(stop)
	wg.Wait()
	tb, err = bs[1].GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]item.Item{}
	if err := bs[0].Scan(ctx, tb, &storage.ScanRequest{}, func(r storage.Row) bool {
		if _, ok := r.Item["g"]; ok {
			want[string(r.Pos.Key.PK)+"|"+string(r.Pos.Key.SK)] = r.Item
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	got := 0
	if err := bs[1].Scan(ctx, tb, &storage.ScanRequest{Index: "byg"}, func(r storage.Row) bool {
		got++
		w := want[string(r.Pos.Key.PK)+"|"+string(r.Pos.Key.SK)]
		if w == nil || !item.Equal(item.M(w), item.M(r.Item)) {
			t.Errorf("index row %q: %v, item %v", r.Pos.Key.PK, r.Item, w)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got != len(want) {
		t.Fatalf("index has %d rows, table %d items with g", got, len(want))
	}

	// A delete through one backend: the other's writes and reads find no
	// table.
	if err := bs[0].DeleteTable(ctx, tb.Account, tb.Name); err != nil {
		t.Fatal(err)
	}
	err = bs[1].Mutate(ctx, tb, ck, func(item.Item) (item.Item, error) { return nil, nil })
	if !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("Mutate after the other's delete: %v", err)
	}
	if _, err := bs[1].GetItem(ctx, tb, ck, true); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("GetItem after the other's delete: %v", err)
	}
	if err := bs[1].Query(ctx, tb, &storage.QueryRequest{PK: ck.PK, Forward: true}, func(storage.Row) bool { return true }); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("Query after the other's delete: %v", err)
	}
}
