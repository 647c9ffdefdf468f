package storagetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

func testCatalogLifecycle(t *testing.T, e *env) {
	if names, err := e.b.ListTables(e.ctx, e.account); err != nil || len(names) != 0 {
		t.Fatalf("ListTables on a new account = %v, %v; want none", names, err)
	}
	gsi := storage.Index{
		IndexName:  "by-g.1",
		Global:     true,
		KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"a", "b"}},
		Throughput: &storage.Throughput{ReadCapacityUnits: 5, WriteCapacityUnits: 7},
	}
	names := []string{"b_table", "A-table", "a.table", "Z9", "a_table"}
	var created []*storage.Table
	for _, name := range names {
		tb := e.table(name, "N", gsi)
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "g", AttributeType: "S"})
		tb.Tags = []storage.Tag{{Key: "k", Value: name}}
		tb.Stream = storage.StreamSpecification{StreamEnabled: true, StreamViewType: "NEW_IMAGE"}
		tb.Status = storage.StatusCreating
		created = append(created, e.create(tb))
	}
	got, err := e.b.ListTables(e.ctx, e.account)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(names)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("ListTables = %v, want %v", got, want)
	}
	if other, err := e.b.ListTables(e.ctx, newAccount()); err != nil || len(other) != 0 {
		t.Fatalf("ListTables of another account = %v, %v; want none", other, err)
	}

	tb := created[0]
	if tb.Name != "b_table" || tb.Account != e.account || tb.ID == "" || tb.Version < 1 {
		t.Fatalf("stored entry = %+v", tb)
	}
	if len(tb.Indexes) != 1 || tb.Indexes[0].IndexName != "by-g.1" || tb.Indexes[0].ID == "" ||
		tb.Indexes[0].Projection.ProjectionType != storage.ProjectInclude ||
		!slices.Equal(tb.Indexes[0].Projection.NonKeyAttributes, []string{"a", "b"}) ||
		tb.Indexes[0].Throughput == nil || tb.Indexes[0].Throughput.WriteCapacityUnits != 7 {
		t.Fatalf("stored indexes = %+v", tb.Indexes)
	}
	if len(tb.Tags) != 1 || tb.Tags[0].Value != "b_table" || !tb.Stream.StreamEnabled || tb.Status != storage.StatusCreating {
		t.Fatalf("stored entry lost fields: %+v", tb)
	}

	// Entries are values: changing a returned copy changes nothing stored.
	tb.Status = "MUTATED"
	tb.Indexes[0].IndexName = "mutated"
	again, err := e.b.GetTable(e.ctx, e.account, "b_table")
	if err != nil || again.Status != storage.StatusCreating || again.Indexes[0].IndexName != "by-g.1" {
		t.Fatalf("GetTable after changing a copy = %+v, %v", again, err)
	}

	up, err := e.b.UpdateTable(e.ctx, e.account, "b_table", func(t *storage.Table) error {
		t.Status = storage.StatusActive
		t.Tags = append(t.Tags, storage.Tag{Key: "k2", Value: "v2"})
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateTable: %v", err)
	}
	if up.Status != storage.StatusActive || len(up.Tags) != 2 || up.Version <= again.Version {
		t.Fatalf("UpdateTable result = %+v (version before %d)", up, again.Version)
	}
	stored, err := e.b.GetTable(e.ctx, e.account, "b_table")
	if err != nil || stored.Status != storage.StatusActive || len(stored.Tags) != 2 || stored.Version != up.Version {
		t.Fatalf("GetTable after UpdateTable = %+v, %v", stored, err)
	}

	if err := e.b.DeleteTable(e.ctx, e.account, "b_table"); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	if _, err := e.b.GetTable(e.ctx, e.account, "b_table"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("GetTable after delete: %v, want ErrTableNotFound", err)
	}
	if err := e.b.DeleteTable(e.ctx, e.account, "b_table"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("second DeleteTable: %v, want ErrTableNotFound", err)
	}
	got, _ = e.b.ListTables(e.ctx, e.account)
	if !slices.Equal(got, want[:len(want)-1]) {
		t.Fatalf("ListTables after delete = %v", got)
	}
}

func testCatalogUpdateErrors(t *testing.T, e *env) {
	if _, err := e.b.UpdateTable(e.ctx, e.account, "missing", func(*storage.Table) error { return nil }); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("UpdateTable of a missing table: %v", err)
	}
	if _, err := e.b.GetTable(e.ctx, e.account, "missing"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("GetTable of a missing table: %v", err)
	}
	before := e.create(e.table("t", ""))
	boom := errors.New("boom")
	_, err := e.b.UpdateTable(e.ctx, e.account, "t", func(t *storage.Table) error {
		t.Status = storage.StatusDeleting
		return boom
	})
	if err != boom {
		t.Fatalf("UpdateTable error = %v, want fn's error unchanged", err)
	}
	after, err := e.b.GetTable(e.ctx, e.account, "t")
	if err != nil || after.Status != before.Status || after.Version != before.Version {
		t.Fatalf("failed UpdateTable changed the entry: %+v, %v", after, err)
	}

	// Concurrent updates are serialised: none is lost.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.b.UpdateTable(e.ctx, e.account, "t", func(t *storage.Table) error {
				t.Tags = append(t.Tags, storage.Tag{Key: fmt.Sprint(i)})
				return nil
			})
			if err != nil {
				e.t.Errorf("UpdateTable: %v", err)
			}
		}()
	}
	wg.Wait()
	final, err := e.b.GetTable(e.ctx, e.account, "t")
	if err != nil || len(final.Tags) != 8 || final.Version < before.Version+8 {
		t.Fatalf("after 8 concurrent updates: %d tags, version %d (from %d), %v", len(final.Tags), final.Version, before.Version, err)
	}
}

func testDuplicateCreate(t *testing.T, e *env) {
	first := e.create(e.table("dup", ""))
	second := e.table("dup", "S")
	if err := e.b.CreateTable(e.ctx, second); !errors.Is(err, storage.ErrTableExists) {
		t.Fatalf("second CreateTable: %v, want ErrTableExists", err)
	}
	got, err := e.b.GetTable(e.ctx, e.account, "dup")
	if err != nil || got.ID != first.ID || len(got.KeySchema) != 1 {
		t.Fatalf("entry after a failed duplicate create = %+v, %v", got, err)
	}
	// The same name in another account is another table.
	other := e.table("dup", "")
	other.Account = newAccount()
	if err := e.b.CreateTable(e.ctx, other); err != nil {
		t.Fatalf("CreateTable in another account: %v", err)
	}
}

func testConcurrentCreate(t *testing.T, e *env) {
	const racers = 16
	var wg sync.WaitGroup
	errs := make([]error, racers)
	ids := make([]string, racers)
	start := make(chan struct{})
	for i := range racers {
		wg.Add(1)
		tb := e.table("race", "")
		ids[i] = tb.ID
		go func() {
			defer wg.Done()
			<-start
			errs[i] = e.b.CreateTable(e.ctx, tb)
		}()
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("creates %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, storage.ErrTableExists):
			t.Fatalf("create %d: %v, want ErrTableExists", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no create won")
	}
	got, err := e.b.GetTable(e.ctx, e.account, "race")
	if err != nil || got.ID != ids[winner] {
		t.Fatalf("stored entry %+v, %v; want the winner's ID %s", got, err, ids[winner])
	}
	tb := got
	e.put(tb, item.Item{"pk": s("x")})
	if it := e.get(tb, storage.Key{PK: enc(s("x"))}); it == nil {
		t.Fatal("the winner's table does not store items")
	}
}

func testRecreate(t *testing.T, e *env) {
	gsi := storage.Index{IndexName: "g", Global: true,
		KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectAll}}
	mk := func() *storage.Table {
		tb := e.table("again", "S", gsi)
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "g", AttributeType: "S"})
		tb.Indexes[0].ID = uuid.NewString()
		return e.create(tb)
	}
	old := mk()
	for i := range 10 {
		e.put(old, item.Item{"pk": s("p"), "sk": s(fmt.Sprint(i)), "g": s("G")})
	}
	if err := e.b.DeleteTable(e.ctx, e.account, "again"); err != nil {
		t.Fatal(err)
	}
	tb := mk()
	if tb.ID == old.ID {
		t.Fatal("recreated table kept the old ID")
	}
	if it := e.get(tb, storage.Key{PK: enc(s("p")), SK: enc(s("1"))}); it != nil {
		t.Fatalf("recreated table returns an old item: %v", it)
	}
	if rows := e.scan(tb, storage.ScanRequest{}); len(rows) != 0 {
		t.Fatalf("recreated table scans %d old rows", len(rows))
	}
	if rows := e.query(tb, storage.QueryRequest{PK: enc(s("p")), Forward: true}); len(rows) != 0 {
		t.Fatalf("recreated table queries %d old rows", len(rows))
	}
	if rows := e.scan(tb, storage.ScanRequest{Index: "g"}); len(rows) != 0 {
		t.Fatalf("recreated table's index scans %d old rows", len(rows))
	}
	st, err := e.b.Stats(e.ctx, tb)
	if err != nil || st.ItemCount != 0 || st.SizeBytes != 0 {
		t.Fatalf("recreated table stats %+v, %v", st, err)
	}
}

func testDeletedTable(t *testing.T, e *env) {
	tb := e.create(e.table("gone", ""))
	e.put(tb, item.Item{"pk": s("x")})
	if err := e.b.DeleteTable(e.ctx, e.account, "gone"); err != nil {
		t.Fatal(err)
	}
	err := e.b.Mutate(e.ctx, tb, storage.Key{PK: enc(s("x"))}, func(old item.Item) (item.Item, error) {
		return item.Item{"pk": s("x")}, nil
	})
	if !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("Mutate on a deleted table: %v, want ErrTableNotFound", err)
	}
	if _, err := e.b.GetItem(e.ctx, tb, storage.Key{PK: enc(s("x"))}, true); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("GetItem on a deleted table: %v, want ErrTableNotFound", err)
	}
}
