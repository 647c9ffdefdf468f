package cassandra

import (
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// fillTestTable creates a table (hash key pk, range key sk) with a global
// index on g (ALL) and a local one on l (KEYS_ONLY), CREATING with the
// ActiveAt of a table a job fills (filling true: storage.Table.Filling) or
// ACTIVE, and returns its entry as read from the catalog.
func fillTestTable(t *testing.T, b *Backend, filling bool) *storage.Table {
	t.Helper()
	tb := &storage.Table{
		Account: newAccount(), Name: "filled", ID: uuid.NewString(),
		KeySchema: []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"},
			{AttributeName: "sk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}, {AttributeName: "l", AttributeType: "S"}},
		Indexes: []storage.Index{
			{IndexName: "gsi", Global: true, ID: uuid.NewString(), Status: storage.StatusActive,
				KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
				Projection: storage.Projection{ProjectionType: storage.ProjectAll}},
			{IndexName: "lsi", ID: uuid.NewString(),
				KeySchema:  []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}},
				Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}},
		},
		BillingMode: "PAY_PER_REQUEST", Status: storage.StatusActive, CreatedAt: time.Now().UTC(),
	}
	if filling {
		tb.Status, tb.ActiveAt = storage.StatusCreating, storage.FillingUntil
	}
	ctx := ctxT(t, 3*time.Minute)
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	got, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Filling() != filling {
		t.Fatalf("table entry: Filling() = %v, want %v (Status %s, ActiveAt %v)", got.Filling(), filling, got.Status, got.ActiveAt)
	}
	return got
}

// fillItem is an item of fillTestTable in both its indexes.
func fillItem(pk string) item.Item {
	return item.Item{"pk": item.S(pk), "sk": item.S("s"), "g": item.S("g-" + pk), "l": item.S("l-" + pk), "a": item.S("A")}
}

// TestFillRewritesIndexRowsOfUnchangedItem: a write into a table a job is
// filling (a restore, an import) writes every index row of its image, even
// when the item already holds that image. A job killed between an item's
// commit and its index rows leaves the item without them; the job resumed
// by another process writes the same item again, and the rows must be
// there when that write returns (so when the job sets the table ACTIVE),
// not only once the killed process's write intent is replayed. The
// replay, which comes later and is stamped with the older version, leaves
// them as they are.
func TestFillRewritesIndexRowsOfUnchangedItem(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := fillTestTable(t, b, true)
	b2 := openFrontend(t)
	k := storage.Key{PK: item.EncodeKey(item.S("a")), SK: item.EncodeKey(item.S("s"))}
	commitWithoutEffects(t, ctx, b2, tb, k, fillItem("a"))
	if d, err := divergences(ctx, b, tb, k, fillItem("a")); err != nil || len(d) != 2 {
		t.Fatalf("before the rewrite, want both index rows missing: %v, %v", d, err)
	}
	if err := b.Mutate(ctx, tb, k, put(fillItem("a"))); err != nil {
		t.Fatal(err)
	}
	if d, err := divergences(ctx, b, tb, k, fillItem("a")); err != nil || len(d) != 0 {
		t.Errorf("index rows after the rewrite of a filling table: %v, %v", d, err)
	}
	settle(t, ctx, b, b2)
	if d, err := divergences(ctx, b, tb, k, fillItem("a")); err != nil || len(d) != 0 {
		t.Errorf("index rows after the replay of the first write: %v, %v", d, err)
	}
}

// TestUnchangedRewriteWritesNoIndexRows: writing an item again with the
// same image sends no index statement into an ACTIVE table (a write there
// pays only for the rows it changes), and one batch of every index row
// into a table being filled.
func TestUnchangedRewriteWritesNoIndexRows(t *testing.T) {
	b, log := openObserved(t)
	ctx := ctxT(t, 3*time.Minute)
	for _, filling := range []bool{false, true} {
		tb := fillTestTable(t, b, filling)
		k := storage.Key{PK: item.EncodeKey(item.S("a")), SK: item.EncodeKey(item.S("s"))}
		if err := b.Mutate(ctx, tb, k, put(fillItem("a"))); err != nil {
			t.Fatal(err)
		}
		log.take()
		if err := b.Mutate(ctx, tb, k, put(fillItem("a"))); err != nil {
			t.Fatal(err)
		}
		var batches []string
		for _, l := range log.take() {
			if strings.HasPrefix(l, "batch(") {
				batches = append(batches, l)
			}
		}
		// Each index row is an INSERT into its table and one into the
		// directory: 4 statements for the two indexes.
		want := 0
		if filling {
			want = 1
		}
		if len(batches) != want || filling && !strings.HasPrefix(batches[0], "batch(4: ") {
			t.Errorf("filling %v: batches of the unchanged rewrite %q, want %d of 4 statements", filling, batches, want)
		}
	}
}

// TestFillWriteReplayedAfterActive: the effects of a write a filling job
// made are derived from the table's entry as it is when they are written,
// which is ACTIVE when they come late (a repair, or the replay of a killed
// process's intent after the job finished). Such a write, an unchanged
// rewrite of an item whose index rows are missing, still writes every row
// of its image.
func TestFillWriteReplayedAfterActive(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := fillTestTable(t, b, true)
	k := storage.Key{PK: item.EncodeKey(item.S("a")), SK: item.EncodeKey(item.S("s"))}
	if err := b.Mutate(ctx, tb, k, put(fillItem("a"))); err != nil {
		t.Fatal(err)
	}
	// The item's rows lost, with no intent left to restore them: deleted
	// at the item's version, so that any later write wins over the delete.
	cur, err := b.readItem(ctx, b.phys(tb), k, gocql.Serial)
	if err != nil || cur == nil {
		t.Fatalf("item: %v, %v", cur, err)
	}
	p := b.phys(tb)
	for i := range tb.Indexes {
		r := storage.IndexRowFor(tb, &tb.Indexes[i], fillItem("a"))
		if err := b.s.Query(`DELETE FROM `+p.index[tb.Indexes[i].IndexName]+` USING TIMESTAMP ? WHERE ipk = ? AND isk = ? AND pk = ? AND sk = ?`,
			cur.version, r.IndexKey.PK, storage.StoredSK(r.IndexKey.SK), r.TableKey.PK, storage.StoredSK(r.TableKey.SK)).WithContext(ctx).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	b2 := openFrontend(t)
	commitWithoutEffects(t, ctx, b2, tb, k, fillItem("a"))
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(cur *storage.Table) error {
		cur.Status, cur.ActiveAt = storage.StatusActive, cur.CreatedAt
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx, b, b2)
	if d, err := divergences(ctx, b, tb, k, fillItem("a")); err != nil || len(d) != 0 {
		t.Errorf("index rows after the late replay of a filling write: %v, %v", d, err)
	}
}
