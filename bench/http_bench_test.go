// Package bench measures extenddb through its HTTP layer with the AWS SDK for
// Go v2, exactly as an application sees it. The same benchmarks run against any
// DynamoDB endpoint named by EXTENDDB_BENCH_ENDPOINT, so other implementations
// can be measured with identical client code. See docs/performance.md.
//
//	go test -run '^$' -bench . -benchtime 5s ./bench
//	EXTENDDB_BENCH_INMEMORY=1 go test -run '^$' -bench . ./bench
//	EXTENDDB_BENCH_ENDPOINT=http://127.0.0.1:4567 go test -run '^$' -bench . ./bench
package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	// readPartitions × itemsPerPartition items are loaded for GetItem and Query.
	readPartitions    = 1000
	itemsPerPartition = 10
)

// BenchmarkPutItem writes new items (a fresh key each time, ~300 bytes).
func BenchmarkPutItem(b *testing.B) {
	c := target(b)
	table := createTable(b, c, "put")
	var seq atomic.Int64
	put := func(ctx context.Context) error {
		n := seq.Add(1)
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item:      item(fmt.Sprintf("put-%d", n), "s0"),
		})
		return err
	}
	runBoth(b, put)
}

// BenchmarkGetItem reads random existing items by full primary key
// (eventually consistent, the SDK default).
func BenchmarkGetItem(b *testing.B) {
	c := target(b)
	table := createTable(b, c, "get")
	load(b, c, table, readPartitions, itemsPerPartition)
	get := func(ctx context.Context) error {
		pk := fmt.Sprintf("p%d", rand.IntN(readPartitions))
		sk := fmt.Sprintf("s%d", rand.IntN(itemsPerPartition))
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(pk, sk)})
		if err == nil && out.Item == nil {
			err = fmt.Errorf("GetItem %s/%s: no item", pk, sk)
		}
		return err
	}
	runBoth(b, get)
}

// BenchmarkQuery reads one random partition of 10 items with a key condition
// on the partition key.
func BenchmarkQuery(b *testing.B) {
	c := target(b)
	table := createTable(b, c, "query")
	load(b, c, table, readPartitions, itemsPerPartition)
	query := func(ctx context.Context) error {
		pk := fmt.Sprintf("p%d", rand.IntN(readPartitions))
		out, err := c.Query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		})
		if err == nil && out.Count != itemsPerPartition {
			err = fmt.Errorf("Query %s: %d items, want %d", pk, out.Count, itemsPerPartition)
		}
		return err
	}
	runBoth(b, query)
}

// runBoth runs op as a serial sub-benchmark (one client goroutine, so the
// figure is 1/latency) and a parallel one (parallelism()×GOMAXPROCS client
// goroutines sharing one SDK client), each reporting ops/s.
func runBoth(b *testing.B, op func(context.Context) error) {
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		done := measureServerCPU(b)
		for b.Loop() {
			if err := op(ctx); err != nil {
				b.Fatal(err)
			}
		}
		done()
		reportOpsPerSec(b)
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(parallelism())
		var failed atomic.Pointer[error]
		done := measureServerCPU(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := op(ctx); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
		if errp := failed.Load(); errp != nil {
			b.Fatal(*errp)
		}
		done()
		reportOpsPerSec(b)
	})
}
