package workers

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/postgres"
)

// sharedPostgres opens two backends (two processes' worth of pools) on one
// fresh schema of EXTENDDB_POSTGRES_DSN, dropped at the end.
func sharedPostgres(t *testing.T) (*postgres.Backend, *postgres.Backend) {
	dsn := os.Getenv("EXTENDDB_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("EXTENDDB_POSTGRES_DSN is not set")
	}
	schema := fmt.Sprintf("extenddb_test_workers_%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			conn.Close(ctx)
		}
	})
	open := func() *postgres.Backend {
		b, err := postgres.Open(context.Background(), postgres.Options{DSN: dsn, Schema: schema, MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	return open(), open()
}

// lockedLog is a log buffer several goroutines write.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Two servers sharing a PostgreSQL database look for work at once: the
// index build is one job, run by exactly one of them, to the end.
func TestIndexBuildRunsOnceAcrossServers(t *testing.T) {
	b1, b2 := sharedPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tb := &storage.Table{Account: storage.DefaultAccount, Name: "shared", ID: uuid.NewString(), Status: storage.StatusActive,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}}}
	if err := b1.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		it := item.Item{"pk": item.S(fmt.Sprint(i)), "g": item.S(fmt.Sprint(i % 7))}
		if err := b1.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b1.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Indexes = append(t.Indexes, storage.Index{ID: uuid.NewString(), IndexName: "byG", Global: true, Status: storage.StatusCreating, Backfilling: true,
			KeySchema: []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}}, Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var logs [2]lockedLog
	var wg sync.WaitGroup
	for i, b := range []*postgres.Backend{b1, b2} {
		w := NewIndexes(b, IndexConfig{Sweep: time.Hour, PageConfig: PageConfig{PageSize: 50, PageDelay: 10 * time.Millisecond,
			Log: slog.New(slog.NewTextHandler(&logs[i], nil))}})
		wg.Go(func() {
			if err := w.RunOnce(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := b2.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || got.Index("byG").Status != storage.StatusActive {
		t.Fatalf("index after both passes: %+v, %v", got.Index("byG"), err)
	}
	built := 0
	for i := range logs {
		built += strings.Count(logs[i].String(), "index built")
	}
	if built != 1 {
		t.Fatalf("the build ran %d times, want once; logs:\n%s\n%s", built, logs[0].String(), logs[1].String())
	}
	list, err := jobs.NewStore(b1).List(ctx, KindIndexBackfill)
	if err != nil || len(list) != 1 || list[0].State != jobs.Succeeded || list[0].Progress.Done != 550 {
		t.Fatalf("job records %+v (%v), want one SUCCEEDED with 11 pages of 50", list, err)
	}
}
