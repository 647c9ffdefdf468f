package cassandra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// testLease is the frontend lease of the second frontends these tests open.
const testLease = 2 * time.Second

// openFrontend opens a second Backend on the shared backend's keyspaces: a
// frontend the tests let "crash" (Close stops its lease renewals). Each of
// set changes its options first.
func openFrontend(t *testing.T, set ...func(*Options)) *Backend {
	t.Helper()
	backend(t)
	o := Options{Hosts: strings.Split(os.Getenv(hostsEnv), ","), KeyspacePrefix: prefix,
		ReplicationFactor: shared.opts.ReplicationFactor, FrontendLease: testLease}
	for _, f := range set {
		f(&o)
	}
	b2, err := Open(ctxT(t, time.Minute), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b2.Close() })
	return b2
}

// intentTable creates a table (hash key pk) with a global index on g and
// a NEW_AND_OLD_IMAGES stream.
func intentTable(t *testing.T, b *Backend) *storage.Table {
	t.Helper()
	tb := &storage.Table{
		Account: newAccount(), Name: "intents", ID: uuid.NewString(),
		KeySchema: []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"},
			{AttributeName: "g", AttributeType: "S"}},
		Indexes: []storage.Index{{IndexName: "gsi", Global: true, ID: uuid.NewString(), Status: storage.StatusActive,
			KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: storage.Projection{ProjectionType: storage.ProjectAll}}},
		BillingMode: "PAY_PER_REQUEST", Status: storage.StatusActive, CreatedAt: time.Now().UTC(),
		Stream:            storage.StreamSpecification{StreamEnabled: true, StreamViewType: storage.ViewNewAndOldImage},
		LatestStreamLabel: "2024-01-01T00:00:00.000",
	}
	ctx := ctxT(t, 3*time.Minute)
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	got, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// twoFrontends is where the tests of a second frontend's writes start: a
// table tb (intentTable) of the shared backend b, the key k of its item
// "a", which holds first (written through b) unless first is nil, and a
// frontend b2 opened after that write; ctx lasts 3 minutes.
func twoFrontends(t *testing.T, first item.Item) (ctx context.Context, b, b2 *Backend, tb *storage.Table, k storage.Key) {
	t.Helper()
	b = backend(t)
	ctx = ctxT(t, 3*time.Minute)
	tb = intentTable(t, b)
	k = strKey(t, tb, "a")
	if first != nil {
		if err := b.Mutate(ctx, tb, k, put(first)); err != nil {
			t.Fatal(err)
		}
	}
	return ctx, b, openFrontend(t), tb, k
}

func gItem(pk, g string) item.Item { return item.Item{"pk": item.S(pk), "g": item.S(g)} }

// spoilt names the column of a planted intent or repair that a test
// spoils, so that applying it fails at every pass.
type spoilt int

const (
	intact   spoilt = iota
	badDef          // the table definition: it does not decode
	badImage        // the new image: it does not unmarshal ("corrupt intent")
)

// plantValues returns the values of intentColumns (intentValues) of an
// insert of it into tb at a fresh version of b, by no identity, with the
// column spoil names spoilt: what plantIntent and plantRepair store.
func plantValues(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, it item.Item, spoil spoilt) []any {
	t.Helper()
	vals, err := intentValues(ctx, tb, strKey(t, tb, it["pk"].S), nil, it, b.nextVersion(0))
	if err != nil {
		t.Fatal(err)
	}
	switch spoil {
	case badDef:
		vals[3] = []byte("not a table definition")
	case badImage:
		vals[7] = []byte{0xff, 0xfe, 0xfd}
	}
	return vals
}

// plantIntent stores an intent with vals (plantValues) under owner in
// minute with write ID id directly, as writeIntent would (with the
// table's default TTL).
func plantIntent(t *testing.T, ctx context.Context, b *Backend, owner string, minute, id int64, vals []any) {
	t.Helper()
	err := b.s.Query(`INSERT INTO `+b.catalog+`.intents (owner, minute, id, `+intentColumns+`) VALUES (?, ?, ?, `+intentMarks+`)`,
		append([]any{owner, minute, id}, vals...)...).WithContext(ctx).Exec()
	if err != nil {
		t.Fatal(err)
	}
}

// commitWithoutEffects does what Mutate does for an attempt that writes nw
// (nil: delete) over the current item, up to and including its LWT and
// the intent written before it, and stops there: its frontend crashed
// between the commit and the derived rows. It returns the old image.
func commitWithoutEffects(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table, key storage.Key, nw item.Item) item.Item {
	t.Helper()
	p := b.phys(tb)
	cur, err := b.readItem(ctx, p, key, gocql.Serial)
	if err != nil {
		t.Fatal(err)
	}
	var old item.Item
	var prev int64
	var writes []byte
	if cur != nil {
		old, prev, writes = cur.item, cur.version, cur.writes
	}
	ver := b.nextVersion(prev)
	id := rand.Uint64()
	writes = appendWrite(writes, id, ver)
	if err := b.writeIntent(ctx, tb, key, old, nw, ver, id); err != nil {
		t.Fatal(err)
	}
	var blob []byte
	size := 0
	if nw != nil {
		blob, size = item.MarshalItem(nw), item.Size(nw)
	}
	var q *gocql.Query
	if cur == nil {
		if err := b.writeDir(ctx, p, "", key.PK); err != nil {
			t.Fatal(err)
		}
		q = b.s.Query(`INSERT INTO `+p.items+` (pk, sk, item, version, size, writes) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
			key.PK, storage.StoredSK(key.SK), blob, ver, size, writes)
	} else {
		q = b.s.Query(`UPDATE `+p.items+` SET item = ?, version = ?, size = ?, writes = ? WHERE pk = ? AND sk = ? IF version = ? AND txn = null`,
			blob, ver, size, writes, key.PK, storage.StoredSK(key.SK), prev)
	}
	applied, err := q.WithContext(ctx).MapScanCAS(map[string]any{})
	if err != nil || !applied {
		t.Fatalf("LWT: applied %v, %v", applied, err)
	}
	return old
}

// recoverUntil runs the shared backend's Recover until it repairs some
// writes (the stopped frontend's lease must lapse first) or a deadline
// passes, and returns the total.
func recoverUntil(t *testing.T, ctx context.Context, b *Backend, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		n, err := b.Recover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// listedOwners returns the owner IDs listed in the frontends table.
func listedOwners(t *testing.T, ctx context.Context, b *Backend) []string {
	t.Helper()
	iter := b.s.Query(`SELECT owner FROM ` + b.catalog + `.frontends WHERE k = 0`).WithContext(ctx).Iter()
	var out []string
	var o string
	for iter.Scan(&o) {
		out = append(out, o)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// streamSummary lists a table's records as "EVENT pk g-old>g-new".
func streamSummary(t *testing.T, b *Backend, tb *storage.Table) []string {
	t.Helper()
	var out []string
	for _, r := range allRecords(t, b, tb) {
		out = append(out, fmt.Sprintf("%s %s %s>%s", r.EventName, r.Keys["pk"].S, r.OldImage["g"].S, r.NewImage["g"].S))
	}
	return out
}

// TestRecoverIntents: a frontend commits three writes (an update that
// moves the item in the index, an insert, a delete) and records the intent
// of a fourth that never commits, then stops before any derived rows.
// Once its lease has lapsed, another frontend's Recover writes the index
// rows and stream records of the three and nothing for the fourth.
func TestRecoverIntents(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := intentTable(t, b)
	for _, it := range []item.Item{gItem("a", "x1"), gItem("c", "c1"), gItem("d", "d1")} {
		if err := b.Mutate(ctx, tb, strKey(t, tb, it["pk"].S), put(it)); err != nil {
			t.Fatal(err)
		}
	}
	b2 := openFrontend(t)
	owner2 := b2.fe.id.Load().owner
	commitWithoutEffects(t, ctx, b2, tb, strKey(t, tb, "a"), gItem("a", "x2"))
	commitWithoutEffects(t, ctx, b2, tb, strKey(t, tb, "b"), gItem("b", "y"))
	commitWithoutEffects(t, storage.WithUserIdentity(ctx, storage.TTLService), b2, tb, strKey(t, tb, "c"), nil)
	// d: the intent, then nothing (the frontend stopped before the LWT).
	if err := b2.writeIntent(ctx, tb, strKey(t, tb, "d"), gItem("d", "d1"), gItem("d", "d2"), b2.nextVersion(0), rand.Uint64()); err != nil {
		t.Fatal(err)
	}
	images := []item.Item{gItem("a", "x1"), gItem("a", "x2"), gItem("b", "y"), gItem("c", "c1"), gItem("d", "d1"), gItem("d", "d2")}
	check := func(pk string) []string {
		d, err := divergences(ctx, b, tb, strKey(t, tb, pk), images...)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, pk := range []string{"a", "b", "c"} {
		if len(check(pk)) == 0 {
			t.Fatalf("item %s: the index agrees before recovery: the crash was not simulated", pk)
		}
	}
	// The frontend is alive: its writes are left alone.
	if n, err := b.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover with the frontend alive: %d, %v", n, err)
	}
	b2.Close()
	if n := recoverUntil(t, ctx, b, 10*testLease); n != 3 {
		t.Fatalf("Recover repaired %d writes, want 3", n)
	}
	for _, pk := range []string{"a", "b", "c", "d"} {
		if d := check(pk); len(d) != 0 {
			t.Errorf("item %s after recovery: %v", pk, d)
		}
	}
	if got, err := b.GetItem(ctx, tb, strKey(t, tb, "d"), true); err != nil || got["g"].S != "d1" {
		t.Errorf("item d: %v, %v", got, err)
	}
	got := streamSummary(t, b, tb)
	want := []string{"INSERT a >x1", "INSERT c >c1", "INSERT d >d1", "MODIFY a x1>x2", "INSERT b >y", "REMOVE c c1>"}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
	for _, r := range allRecords(t, b, tb) {
		if r.EventName == "REMOVE" && (r.Identity == nil || *r.Identity != *storage.TTLService) {
			t.Errorf("REMOVE record's identity %+v, want the TTL service's", r.Identity)
		}
	}
	// The frontend is unlisted: the next pass has nothing to do.
	if slices.Contains(listedOwners(t, ctx, b), owner2) {
		t.Error("the recovered frontend is still listed")
	}
	if n, err := b.Recover(ctx); err != nil || n != 0 {
		t.Errorf("second Recover: %d, %v", n, err)
	}
}

// TestRecoverIgnoresLiveFrontends: the intents of a frontend that keeps
// renewing its lease are not replayed, however long ago they were
// written; once it stops, they are.
func TestRecoverIgnoresLiveFrontends(t *testing.T) {
	ctx, b, b2, tb, _ := twoFrontends(t, nil)
	commitWithoutEffects(t, ctx, b2, tb, strKey(t, tb, "a"), gItem("a", "x"))
	time.Sleep(2 * testLease) // several renewals
	for range 3 {
		if n, err := b.Recover(ctx); err != nil || n != 0 {
			t.Fatalf("Recover with the frontend alive: %d, %v", n, err)
		}
	}
	if got := streamSummary(t, b, tb); len(got) != 0 {
		t.Fatalf("records of a live frontend's write: %q", got)
	}
	b2.Close()
	if n := recoverUntil(t, ctx, b, 10*testLease); n != 1 {
		t.Fatalf("Recover after the frontend stopped repaired %d writes, want 1", n)
	}
	if got := streamSummary(t, b, tb); !slices.Equal(got, []string{"INSERT a >x"}) {
		t.Errorf("records %q", got)
	}
	if d, err := divergences(ctx, b, tb, strKey(t, tb, "a"), gItem("a", "x")); err != nil || len(d) != 0 {
		t.Errorf("index after recovery: %v, %v", d, err)
	}
}

// TestIntentOwnerRotates: a frontend whose lease another process took (a
// recovery pass, after a pause longer than the lease) takes a new owner ID
// and lists its old one again, so that the intents it wrote under the old
// ID after the pass replayed it are recovered too.
func TestIntentOwnerRotates(t *testing.T) {
	ctx, b, b2, tb, _ := twoFrontends(t, nil)
	old := b2.fe.id.Load().owner
	me := b.fe.id.Load().owner
	// What a recovery pass does: take the (here: forcibly freed) lease and
	// unlist the frontend.
	if err := b.s.Query(`DELETE FROM `+b.catalog+`.leases WHERE name = ?`, frontendLease(old)).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.AcquireLease(ctx, frontendLease(old), me, time.Minute); err != nil || !ok {
		t.Fatalf("taking the lease: %v, %v", ok, err)
	}
	if err := b.s.Query(`DELETE FROM `+b.catalog+`.frontends WHERE k = 0 AND owner = ?`, old).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	// Meanwhile the frontend, unaware, commits a write under its old ID.
	commitWithoutEffects(t, ctx, b2, tb, strKey(t, tb, "a"), gItem("a", "x"))
	deadline := time.Now().Add(5 * testLease)
	for b2.fe.id.Load().owner == old {
		if time.Now().After(deadline) {
			t.Fatal("the frontend kept its owner ID after losing its lease")
		}
		time.Sleep(100 * time.Millisecond)
	}
	nw := b2.fe.id.Load().owner
	for deadline := time.Now().Add(5 * testLease); ; time.Sleep(100 * time.Millisecond) {
		owners := listedOwners(t, ctx, b)
		if slices.Contains(owners, old) && slices.Contains(owners, nw) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("listed owners %v, want %s (old) and %s (new)", owners, old, nw)
		}
	}
	// The old ID's lease is the recoverer's: its intents are replayed at
	// once, while the frontend (under its new ID) is left alone.
	if n := recoverUntil(t, ctx, b, 5*testLease); n != 1 {
		t.Fatalf("Recover repaired %d writes, want 1", n)
	}
	owners := listedOwners(t, ctx, b)
	if slices.Contains(owners, old) || !slices.Contains(owners, nw) {
		t.Errorf("listed owners after recovery %v: want %s and not %s", owners, nw, old)
	}
	if got := streamSummary(t, b, tb); !slices.Equal(got, []string{"INSERT a >x"}) {
		t.Errorf("records %q", got)
	}
	// Stopped, the frontend's new ID is recovered (with nothing to repair).
	settle(t, ctx, b, b2)
}

// TestRecoverMutateCrash: Mutate's own intent covers a frontend that stops
// right after the LWT (the hook closes its session before the index
// batch, so the write fails with its item committed).
func TestRecoverMutateCrash(t *testing.T) {
	ctx, b, b2, tb, k := twoFrontends(t, gItem("a", "x1"))
	crash := func() { b2.Close() }
	b2.beforeIndexes.Store(&crash)
	if err := b2.Mutate(ctx, tb, k, put(gItem("a", "x2"))); err == nil {
		t.Fatal("Mutate succeeded on a frontend closed before its index batch")
	}
	if got, err := b.GetItem(ctx, tb, k, true); err != nil || got["g"].S != "x2" {
		t.Fatalf("item %v, %v: the write did not commit", got, err)
	}
	if n := recoverUntil(t, ctx, b, 10*testLease); n != 1 {
		t.Fatalf("Recover repaired %d writes, want 1", n)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) != 0 {
		t.Errorf("index after recovery: %v, %v", d, err)
	}
	if got := streamSummary(t, b, tb); !slices.Equal(got, []string{"INSERT a >x1", "MODIFY a x1>x2"}) {
		t.Errorf("records %q", got)
	}
}
