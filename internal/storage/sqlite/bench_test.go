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

// benchTable creates a table with hash key pk and range key sk (both S).
func benchTable(b *testing.B, be *Backend) *storage.Table {
	tb := hashTable("bench")
	tb.KeySchema = append(tb.KeySchema, storage.KeyElement{AttributeName: "sk", KeyType: "RANGE"})
	tb.AttributeDefinitions = append(tb.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "sk", AttributeType: "S"})
	if err := be.CreateTable(context.Background(), tb); err != nil {
		b.Fatal(err)
	}
	return tb
}

func benchItem(pk, sk string) item.Item {
	return item.Item{"pk": item.S(pk), "sk": item.S(sk), "n": item.N("12345"), "payload": item.S(strings.Repeat("x", 200))}
}

// BenchmarkMutatePut measures acknowledged puts of ~250-byte items (fresh
// keys) with 1 and 16 concurrent writers under each synchronous mode;
// writes/commit shows how many requests a group commit carries.
func BenchmarkMutatePut(b *testing.B) {
	for _, sync := range []string{"FULL", "NORMAL", "OFF"} {
		for _, writers := range []int{1, 16} {
			b.Run(fmt.Sprintf("sync=%s/writers=%d", sync, writers), func(b *testing.B) {
				be, _ := openTemp(b, Options{Synchronous: sync})
				benchPuts(b, be, writers)
			})
		}
	}
}

func benchPuts(b *testing.B, be *Backend, writers int) {
	tb := benchTable(b, be)
	ctx := context.Background()
	commits := be.commits.Load()
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += writers {
				it := benchItem(fmt.Sprint("p", i), "s")
				k := storage.Key{PK: item.EncodeKey(it["pk"]), SK: item.EncodeKey(it["sk"])}
				if err := be.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	if c := be.commits.Load() - commits; c > 0 {
		b.ReportMetric(float64(b.N)/float64(c), "writes/commit")
	}
}

func BenchmarkGetItem(b *testing.B) {
	be, _ := openTemp(b, Options{})
	tb := benchTable(b, be)
	const n = 10000
	for i := range n {
		put(b, be, tb, benchItem(fmt.Sprint("p", i), "s"))
	}
	ctx := context.Background()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			k := storage.Key{PK: item.EncodeKey(item.S(fmt.Sprint("p", i%n))), SK: item.EncodeKey(item.S("s"))}
			it, err := be.GetItem(ctx, tb, k, true)
			if err != nil || it == nil {
				b.Fatalf("GetItem: %v, %v", it, err)
			}
			i += 7
		}
	})
}

// BenchmarkQuery10 reads 10-row partitions.
func BenchmarkQuery10(b *testing.B) {
	be, _ := openTemp(b, Options{})
	tb := benchTable(b, be)
	const parts = 500
	for p := range parts {
		for s := range 10 {
			put(b, be, tb, benchItem(fmt.Sprint("p", p), fmt.Sprint("s", s)))
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			rows := 0
			q := storage.QueryRequest{PK: item.EncodeKey(item.S(fmt.Sprint("p", i%parts))), Forward: true}
			if err := be.Query(ctx, tb, &q, func(storage.Row) bool { rows++; return true }); err != nil || rows != 10 {
				b.Fatalf("Query: %d rows, %v", rows, err)
			}
			i += 7
		}
	})
}

// BenchmarkGetItemsSnapshot reads 4 items in one read transaction, as
// TransactGetItems does, reporting process CPU time per call:
//
//	go test -run X -bench GetItemsSnapshot -benchtime 20000x ./internal/storage/sqlite/
func BenchmarkGetItemsSnapshot(b *testing.B) {
	be, _ := openTemp(b, Options{Synchronous: "OFF"})
	tb := benchTable(b, be)
	const n = 1000
	for i := range n {
		put(b, be, tb, benchItem(fmt.Sprint("p", i), "s"))
	}
	ctx := context.Background()
	refs := make([]storage.ItemRef, 4)
	start := processCPU()
	for i := 0; b.Loop(); i++ {
		for j := range refs {
			pk := fmt.Sprint("p", (i*4+j*7)%n)
			refs[j] = storage.ItemRef{Table: tb, Key: storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S("s"))}}
		}
		its, err := be.GetItemsSnapshot(ctx, refs)
		if err != nil || its[3] == nil {
			b.Fatalf("GetItemsSnapshot: %v, %v", its, err)
		}
	}
	reportCPU(b, start)
}
