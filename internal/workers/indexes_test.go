package workers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// TestIndexesBuildAndDrop runs the worker over a SQLite backend: a kick
// builds a CREATING index, a second one drops a DELETING index.
func TestIndexesBuildAndDrop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := sqlite.Open(context.Background(), sqlite.Options{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tb := &storage.Table{Account: "000000000000", Name: "t", ID: "0b5e1b6a-1d9c-4e0e-9d7c-3d1f3b7f8a10", Status: storage.StatusActive,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}}}
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for i := range 700 {
		it := item.Item{"pk": item.S(fmt.Sprint(i)), "g": item.S(fmt.Sprint(i % 7))}
		if err := b.Mutate(ctx, tb, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Indexes = append(t.Indexes, storage.Index{IndexName: "byG", Global: true, Status: storage.StatusCreating, Backfilling: true,
			KeySchema: []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}}, Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w := NewIndexes(b, IndexConfig{PageConfig: PageConfig{PageSize: 50}, Sweep: time.Hour})
	go w.Run(ctx)
	wait := func(ok func(*storage.Table) bool) *storage.Table {
		for ctx.Err() == nil {
			got, err := b.GetTable(ctx, tb.Account, tb.Name)
			if err != nil {
				t.Fatal(err)
			}
			if ok(got) {
				return got
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatal("the worker did not finish")
		return nil
	}
	got := wait(func(t *storage.Table) bool { return t.Index("byG").Status == storage.StatusActive })
	n := 0
	if err := b.Scan(ctx, got, &storage.ScanRequest{Index: "byG"}, func(storage.Row) bool { n++; return true }); err != nil || n != 700 {
		t.Fatalf("built index has %d rows (%v), want 700", n, err)
	}
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.Index("byG").Status = storage.StatusDeleting
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w.Kick()
	wait(func(t *storage.Table) bool { return len(t.Indexes) == 0 })
}
