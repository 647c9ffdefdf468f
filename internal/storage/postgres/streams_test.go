package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/storagetest"
)

// TestSharedStreams runs the stream tests of the suite at the same time on
// one Backend, whatever -parallel is. TrimStreams is global, so the suite
// must keep its trimming test apart from the tests that count their
// stream's records, which otherwise find records missing ("26 records for
// 200 writes").
func TestSharedStreams(t *testing.T) {
	storagetest.RunSharedStreams(t, openFresh(t, Options{MaxConns: 32}), 5)
}

// TestTrimStreamsMark trims a stream again and again while writers append
// to it: between trims, the oldest kept record must directly follow the
// trim mark. A trim that computes its mark and deletes on two snapshots
// removes records committed in between above the mark, and the gap goes
// unreported.
func TestTrimStreamsMark(t *testing.T) {
	b := openFresh(t, Options{MaxConns: 16})
	ctx := context.Background()
	tb := testTable("trim", "")
	tb.Stream = storage.StreamSpecification{StreamEnabled: true, StreamViewType: storage.ViewKeysOnly}
	tb.LatestStreamLabel = "2024-01-01T00:00:00.000"
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var writes atomic.Int64
	stop := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				it := item.Item{"pk": item.S(fmt.Sprint("w", w, "-", i))}
				if err := b.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
					t.Error(err)
					return
				}
				writes.Add(1)
			}
		})
	}
	check := func() {
		t.Helper()
		bd, err := b.StreamBounds(ctx, tb.ID, tb.LatestStreamLabel)
		if err != nil {
			t.Fatal(err)
		}
		if bd.First != 0 && bd.First != bd.Trimmed+1 {
			t.Fatalf("records up to %d trimmed, but the oldest kept is %d: %d records lost unreported", bd.Trimmed, bd.First, bd.First-bd.Trimmed-1)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for trims := 0; trims < 300 && time.Now().Before(deadline) && !t.Failed(); trims++ {
		check()
		if _, err := b.TrimStreams(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	check()
	if _, err := b.TrimStreams(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Every write appended one record: sequence numbers 1..writes, all trimmed now.
	if bd, err := b.StreamBounds(ctx, tb.ID, tb.LatestStreamLabel); err != nil || bd != (storage.StreamBounds{Trimmed: uint64(writes.Load())}) {
		t.Fatalf("after %d writes, all trimmed: %+v %v", writes.Load(), bd, err)
	}
}

// TestCommitOfFailedTransaction: a COMMIT that PostgreSQL answers with
// ROLLBACK (the transaction had failed) is an error, never a success.
func TestCommitOfFailedTransaction(t *testing.T) {
	b := openFresh(t, Options{})
	ctx := context.Background()
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("division by zero succeeded")
	}
	if err := commit(ctx, c); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("commit of a failed transaction: %v", err)
	}
	// The same COMMIT queued at the end of a batch.
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("division by zero succeeded")
	}
	batch := &pgx.Batch{}
	queueCommit(batch)
	if err := c.SendBatch(ctx, batch).Close(); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("batched commit of a failed transaction: %v", err)
	}
	if s := c.Conn().PgConn().TxStatus(); s != 'I' {
		t.Fatalf("transaction status %c after the commit", s)
	}
}
