package backup

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// A source table deleted while a point in time restore reads it takes its
// change history along: the restore could no longer undo the changes made
// after its time and would make the source as it is now ACTIVE under the
// target's name. The restore fails instead and its table is deleted.
func TestPointInTimeRestoreOfSourceDeletedWhileRead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	src := pitrSource(t, f, "src")
	put := func(v string) {
		it := item.Item{"pk": item.S("k"), "v": item.N(v)}
		if err := f.store.Mutate(ctx, src, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			t.Fatal(err)
		}
	}
	put("1")
	at := time.Now()
	// The history's grain is the second: change the item in a later one.
	time.Sleep(time.Until(at.Truncate(time.Second).Add(1100 * time.Millisecond)))
	put("2")

	afterSourceRead = func() {
		if err := f.store.DeleteTable(context.Background(), src.Account, src.Name); err != nil {
			panic(fmt.Sprint("deleting the source: ", err))
		}
	}
	defer func() { afterSourceRead = func() {} }()
	target := *src
	target.Name, target.ID, target.PointInTimeRecovery = "restored", uuid.NewString(), nil
	target.Restore = &storage.RestoreSummary{InProgress: true, RestoreDateTime: at}
	if err := f.svc.RestoreToTime(ctx, src.Account, src, at, &target); err != nil {
		t.Fatal(err)
	}
	j := f.wait(t, KindPointInTimeRestore, target.ID)
	if j.State != jobs.Failed || j.Error != "source table src was deleted during its restore" {
		t.Fatalf("restore of a source deleted while read: %s %q", j.State, j.Error)
	}
	if _, err := f.store.GetTable(ctx, src.Account, "restored"); !errors.Is(err, storage.ErrTableNotFound) {
		t.Fatalf("table of the failed restore: %v, want it deleted", err)
	}
}

// A point in time restore counts every item it wrote in its job's
// progress, the last partial chunk too (a table smaller than a chunk
// counted none): docs/operations.md, extenddb_job_progress_units_total.
func TestPointInTimeRestoreCountsItems(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	src := pitrSource(t, f, "counted")
	const n = loadChunk + 7
	for i := range n {
		it := item.Item{"pk": item.S(fmt.Sprint(i))}
		if err := f.store.Mutate(ctx, src, storage.Key{PK: item.EncodeKey(it["pk"])}, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
			t.Fatal(err)
		}
	}
	target := *src
	target.Name, target.ID, target.PointInTimeRecovery = "counted-restored", uuid.NewString(), nil
	target.Restore = &storage.RestoreSummary{InProgress: true, RestoreDateTime: time.Now()}
	if err := f.svc.RestoreToTime(ctx, src.Account, src, time.Now(), &target); err != nil {
		t.Fatal(err)
	}
	j := f.wait(t, KindPointInTimeRestore, target.ID)
	if j.State != jobs.Succeeded || j.Progress.Done != n || j.Progress.Total != n {
		t.Fatalf("restore: %s %+v %s, want Succeeded with %d items done", j.State, j.Progress, j.Error, n)
	}
}

// pitrSource creates table name (hash key pk, S) with point in time
// recovery enabled.
func pitrSource(t *testing.T, f *fixture, name string) *storage.Table {
	t.Helper()
	src := &storage.Table{Account: storage.DefaultAccount, Name: name, ID: uuid.NewString(), Status: storage.StatusActive,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		BillingMode:          "PAY_PER_REQUEST", CreatedAt: time.Now(),
		PointInTimeRecovery: &storage.PointInTimeRecovery{RecoveryPeriodInDays: 35, EnabledAt: time.Now()}}
	if err := f.store.CreateTable(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	return src
}
