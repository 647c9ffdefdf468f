package cassandra

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/storagetest"
)

// The tests run against the cluster named by EXTENDDB_CASSANDRA_HOSTS
// (comma-separated, e.g. 127.0.0.1; scripts/cassandra.sh start prints it).
// EXTENDDB_CASSANDRA_RF sets the replication factor (default 1). Each test
// run uses its own keyspace prefix and drops its keyspaces at the end.
const (
	hostsEnv = "EXTENDDB_CASSANDRA_HOSTS"
	rfEnv    = "EXTENDDB_CASSANDRA_RF"
)

var (
	sharedOnce sync.Once
	shared     *Backend
	sharedErr  error
	prefix     = fmt.Sprintf("xt%08x", rand.Uint32())
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		if err := dropKeyspaces(ctx, shared, prefix); err != nil {
			fmt.Fprintf(os.Stderr, "dropping test keyspaces: %v\n", err)
		}
		cancel()
		shared.Close()
	}
	os.Exit(code)
}

// backend returns the backend shared by this run's tests, or skips the
// test (fails it in CI) when no cluster is configured.
func backend(t *testing.T) *Backend {
	t.Helper()
	hosts := os.Getenv(hostsEnv)
	if hosts == "" {
		msg := hostsEnv + " is not set: start a node with `scripts/cassandra.sh start` and export " + hostsEnv + "=127.0.0.1"
		if os.Getenv("CI") == "true" || os.Getenv("EXTENDDB_REQUIRE_BACKENDS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	rf, _ := strconv.Atoi(os.Getenv(rfEnv))
	sharedOnce.Do(func() {
		// The node may still be starting (CI starts it in the background):
		// retry for a few minutes.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for {
			shared, sharedErr = Open(ctx, Options{Hosts: strings.Split(hosts, ","), KeyspacePrefix: prefix, ReplicationFactor: rf})
			if sharedErr == nil || ctx.Err() != nil {
				return
			}
			t.Logf("Open: %v (retrying)", sharedErr)
			time.Sleep(3 * time.Second)
		}
	})
	if sharedErr != nil {
		t.Fatalf("Open: %v", sharedErr)
	}
	return shared
}

// dropKeyspaces drops every keyspace whose name starts with prefix.
func dropKeyspaces(ctx context.Context, b *Backend, prefix string) error {
	iter := b.s.Query(`SELECT keyspace_name FROM system_schema.keyspaces`).WithContext(ctx).Iter()
	var names []string
	var name string
	for iter.Scan(&name) {
		if strings.HasPrefix(name, prefix+"_") {
			names = append(names, name)
		}
	}
	if err := iter.Close(); err != nil {
		return err
	}
	for _, ks := range names {
		if err := b.ddl(ctx, "DROP KEYSPACE IF EXISTS "+ks); err != nil {
			return err
		}
	}
	return nil
}

func TestContract(t *testing.T) {
	b := backend(t)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return b })
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestBlobOrder checks that Cassandra orders and compares blob clustering
// values as unsigned bytes, which the encoded keys rely on.
func TestBlobOrder(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 2*time.Minute)
	ks := b.dataKeyspace("blobordertest")
	if err := b.ensureKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	tbl := ks + ".blob_order"
	if err := b.ddl(ctx, `CREATE TABLE IF NOT EXISTS `+tbl+` (p int, c blob, PRIMARY KEY ((p), c))`); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{{}, {0x00}, {0x00, 0x00}, {0x00, 0xFF}, {0x01}, {0x7F}, {0x7F, 0xFF}, {0x80}, {0x80, 0x00}, {0xFE}, {0xFF}, {0xFF, 0x00}, {0xFF, 0xFF}}
	for _, i := range rand.Perm(len(want)) {
		if err := b.s.Query(`INSERT INTO `+tbl+` (p, c) VALUES (1, ?)`, want[i]).WithContext(ctx).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	read := func(where string, args ...any) [][]byte {
		t.Helper()
		iter := b.s.Query(`SELECT c FROM `+tbl+` WHERE p = 1`+where, args...).WithContext(ctx).Iter()
		var out [][]byte
		var c []byte
		for iter.Scan(&c) {
			out = append(out, bytes.Clone(c))
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(what string, got, want [][]byte) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: got %x, want %x", what, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%s: got %x, want %x", what, got, want)
			}
		}
	}
	check("ascending", read(""), want)
	rev := make([][]byte, len(want))
	for i := range want {
		rev[i] = want[len(want)-1-i]
	}
	check("descending", read(" ORDER BY c DESC"), rev)
	check("c > 0x7f", read(" AND c > ?", []byte{0x7F}), want[6:])
	check("0x00 <= c < 0xff", read(" AND c >= ? AND c < ?", []byte{0x00}, []byte{0xFF}), want[1:10])
	check("c >= 0xff", read(" AND c >= ?", []byte{0xFF}), want[10:])
}

// raceTable is a table with two LSIs and two GSIs over the attributes
// l1, l2, g1, g1s and g2.
func raceTable(t *testing.T, b *Backend, account string) *storage.Table {
	t.Helper()
	ks := func(h, r string) []storage.KeyElement {
		out := []storage.KeyElement{{AttributeName: h, KeyType: "HASH"}}
		if r != "" {
			out = append(out, storage.KeyElement{AttributeName: r, KeyType: "RANGE"})
		}
		return out
	}
	tb := &storage.Table{
		Account: account, Name: "race", ID: uuid.NewString(),
		KeySchema: ks("pk", "sk"),
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"},
			{AttributeName: "l1", AttributeType: "S"}, {AttributeName: "l2", AttributeType: "N"}, {AttributeName: "g1", AttributeType: "S"},
			{AttributeName: "g1s", AttributeType: "N"}, {AttributeName: "g2", AttributeType: "S"}},
		Indexes: []storage.Index{
			{IndexName: "lsi1", KeySchema: ks("pk", "l1"), Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}},
			{IndexName: "lsi2", KeySchema: ks("pk", "l2"), Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"a"}}},
			{IndexName: "gsi1", Global: true, KeySchema: ks("g1", "g1s"), Projection: storage.Projection{ProjectionType: storage.ProjectAll}},
			{IndexName: "gsi2", Global: true, KeySchema: ks("g2", ""), Projection: storage.Projection{ProjectionType: storage.ProjectInclude, NonKeyAttributes: []string{"a"}}},
		},
		BillingMode: "PAY_PER_REQUEST", Status: storage.StatusActive, CreatedAt: time.Now().UTC(),
	}
	for i := range tb.Indexes {
		tb.Indexes[i].ID = uuid.NewString()
		tb.Indexes[i].Status = storage.StatusActive
	}
	ctx := ctxT(t, 3*time.Minute)
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	got, err := b.GetTable(ctx, account, "race")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func newAccount() string { return fmt.Sprintf("%012d", rand.Int64N(1e12)) }

// indexRowsOf returns the rows index ix holds for the item with table key k
// in the index partitions ipks.
func indexRowsOf(ctx context.Context, b *Backend, tb *storage.Table, ix *storage.Index, k storage.Key, ipks [][]byte) ([]storage.Row, error) {
	var out []storage.Row
	seen := map[string]bool{}
	for _, ipk := range ipks {
		if seen[string(ipk)] {
			continue
		}
		seen[string(ipk)] = true
		err := b.Query(ctx, tb, &storage.QueryRequest{Index: ix.IndexName, PK: ipk, Forward: true, Consistent: true}, func(r storage.Row) bool {
			if bytes.Equal(r.Pos.Key.PK, k.PK) && bytes.Equal(r.Pos.Key.SK, k.SK) {
				out = append(out, r)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// divergences compares what every index holds for key k (looking in the
// index partitions of the given images) with what the stored item implies.
func divergences(ctx context.Context, b *Backend, tb *storage.Table, k storage.Key, images ...item.Item) ([]string, error) {
	final, err := b.GetItem(ctx, tb, k, true)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range tb.Indexes {
		ix := &tb.Indexes[i]
		var ipks [][]byte
		for _, im := range append(images, final) {
			if r := storage.IndexRowFor(tb, ix, im); r != nil {
				ipks = append(ipks, r.IndexKey.PK)
			}
		}
		rows, err := indexRowsOf(ctx, b, tb, ix, k, ipks)
		if err != nil {
			return nil, err
		}
		want := storage.IndexRowFor(tb, ix, final)
		switch {
		case want == nil && len(rows) != 0:
			out = append(out, fmt.Sprintf("index %s: %d stray rows for an item that is absent from it (final %v)", ix.IndexName, len(rows), final))
		case want != nil && len(rows) != 1:
			out = append(out, fmt.Sprintf("index %s: %d rows, want 1 (final %v)", ix.IndexName, len(rows), final))
		case want != nil && (!bytes.Equal(rows[0].Pos.IndexKey.SK, want.IndexKey.SK) || !bytes.Equal(rows[0].Pos.IndexKey.PK, want.IndexKey.PK) ||
			!equalItems(rows[0].Item, want.Item)):
			out = append(out, fmt.Sprintf("index %s: row %v at %+v, want %v at %+v", ix.IndexName, rows[0].Item, rows[0].Pos.IndexKey, want.Item, want.IndexKey))
		}
	}
	return out, nil
}

func equalItems(a, b item.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !item.Equal(av, bv) {
			return false
		}
	}
	return true
}

func put(it item.Item) storage.MutateFunc {
	return func(item.Item) (item.Item, error) { return it, nil }
}

func del(item.Item) (item.Item, error) { return nil, nil }

// raceImage is an item in every index of raceTable, with index keys drawn
// from variant v.
func raceImage(pk, sk string, v int) item.Item {
	return item.Item{"pk": item.S(pk), "sk": item.S(sk),
		"l1": item.S(fmt.Sprint("l", v)), "l2": item.N(fmt.Sprint(v)), "g1": item.S(fmt.Sprint("g", v%3)),
		"g1s": item.N(fmt.Sprint(v)), "g2": item.S(fmt.Sprint("h", v%2)), "a": item.S(fmt.Sprint("a", v)), "z": item.S("unprojected")}
}

// TestDeletePutRace races a delete against a put that changes every index
// key, round after round, and checks that every index agrees with the
// table after each round.
func TestDeletePutRace(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	rounds := 1000
	if testing.Short() {
		rounds = 100
	}
	const workers = 4
	ctx := ctxT(t, 6*time.Minute)
	// Delay each index batch at random, so that the batches of the two
	// racing writes often arrive in the opposite order of their commits.
	delay := func() { time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond) }
	b.beforeIndexes.Store(&delay)
	defer b.beforeIndexes.Store(nil)
	var mu sync.Mutex
	var diverged []string
	var putWon, deleteWon int
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := w; r < rounds; r += workers {
				pk, sk := fmt.Sprint("p", r%7), fmt.Sprint("s", r)
				first, second := raceImage(pk, sk, r), raceImage(pk, sk, r+1)
				k := storage.Key{PK: item.EncodeKey(item.S(pk)), SK: item.EncodeKey(item.S(sk))}
				if err := b.Mutate(ctx, tb, k, put(first)); err != nil {
					t.Errorf("round %d: put: %v", r, err)
					return
				}
				var race sync.WaitGroup
				errs := make([]error, 2)
				race.Add(2)
				go func() { defer race.Done(); errs[0] = b.Mutate(ctx, tb, k, del) }()
				go func() { defer race.Done(); errs[1] = b.Mutate(ctx, tb, k, put(second)) }()
				race.Wait()
				if errs[0] != nil || errs[1] != nil {
					t.Errorf("round %d: delete %v, put %v", r, errs[0], errs[1])
					return
				}
				d, err := divergences(ctx, b, tb, k, first, second)
				if err != nil {
					t.Errorf("round %d: audit: %v", r, err)
					return
				}
				final, err := b.GetItem(ctx, tb, k, true)
				if err != nil {
					t.Errorf("round %d: get: %v", r, err)
					return
				}
				mu.Lock()
				if final != nil {
					putWon++ // the delete came first, or lost its race
				} else {
					deleteWon++
				}
				if len(d) > 0 {
					diverged = append(diverged, fmt.Sprintf("round %d: %s", r, strings.Join(d, "; ")))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d rounds: the put's image survived %d times, the delete's %d times", rounds, putWon, deleteWon)
	if len(diverged) > 0 {
		t.Fatalf("%d of %d rounds left the indexes diverged from the table:\n%s", len(diverged), rounds, strings.Join(diverged[:min(len(diverged), 20)], "\n"))
	}
}

// TestIndexBatchesOutOfOrder applies the index batches of two consecutive
// writes of one item in the wrong order: the later version still wins.
func TestIndexBatchesOutOfOrder(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	ctx := ctxT(t, 2*time.Minute)
	p := b.phys(tb)
	check := func(what string, k storage.Key, final item.Item, images ...item.Item) {
		t.Helper()
		// The item row itself is not written here: compare with final.
		for i := range tb.Indexes {
			ix := &tb.Indexes[i]
			var ipks [][]byte
			for _, im := range images {
				if r := storage.IndexRowFor(tb, ix, im); r != nil {
					ipks = append(ipks, r.IndexKey.PK)
				}
			}
			rows, err := indexRowsOf(ctx, b, tb, ix, k, ipks)
			if err != nil {
				t.Fatal(err)
			}
			want := storage.IndexRowFor(tb, ix, final)
			if want == nil {
				if len(rows) != 0 {
					t.Fatalf("%s: index %s holds %d rows, want none", what, ix.IndexName, len(rows))
				}
				continue
			}
			if len(rows) != 1 || !bytes.Equal(rows[0].Pos.IndexKey.SK, want.IndexKey.SK) || !equalItems(rows[0].Item, want.Item) {
				t.Fatalf("%s: index %s rows %+v, want %v at %x", what, ix.IndexName, rows, want.Item, want.IndexKey.SK)
			}
		}
	}
	v1 := b.nextVersion(0)
	v2 := b.nextVersion(v1)
	v3 := b.nextVersion(v2)

	// Index keys change between the writes: v2's delete of v1's rows must
	// beat v1's late insert of them.
	a, c := raceImage("p", "moved", 1), raceImage("p", "moved", 2)
	k := storage.Key{PK: item.EncodeKey(item.S("p")), SK: item.EncodeKey(item.S("moved"))}
	if err := b.writeIndexes(ctx, tb, p, a, c, v2); err != nil {
		t.Fatal(err)
	}
	if err := b.writeIndexes(ctx, tb, p, nil, a, v1); err != nil {
		t.Fatal(err)
	}
	check("changed keys, batches reversed", k, c, a, c)

	// Index keys unchanged (the same-row rule: v2 is a lone INSERT): v2's
	// projection must beat v1's late one.
	a = raceImage("p", "same", 3)
	c = raceImage("p", "same", 3)
	c["a"] = item.S("newer")
	k = storage.Key{PK: item.EncodeKey(item.S("p")), SK: item.EncodeKey(item.S("same"))}
	if err := b.writeIndexes(ctx, tb, p, a, c, v2); err != nil {
		t.Fatal(err)
	}
	if err := b.writeIndexes(ctx, tb, p, nil, a, v1); err != nil {
		t.Fatal(err)
	}
	check("same keys, batches reversed", k, c, a, c)

	// A delete (v3) that arrives before the put it follows (v2).
	if err := b.writeIndexes(ctx, tb, p, c, nil, v3); err != nil {
		t.Fatal(err)
	}
	if err := b.writeIndexes(ctx, tb, p, a, c, v2); err != nil {
		t.Fatal(err)
	}
	check("delete before its put", k, nil, a, c)
}

// TestNonKeyUpdateKeepsIndexes updates attributes that are no index key,
// projected or not, again and again: the item stays in every index.
func TestNonKeyUpdateKeepsIndexes(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	ctx := ctxT(t, 2*time.Minute)
	base := raceImage("p", "s", 5)
	k := storage.Key{PK: item.EncodeKey(item.S("p")), SK: item.EncodeKey(item.S("s"))}
	if err := b.Mutate(ctx, tb, k, put(base)); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		err := b.Mutate(ctx, tb, k, func(old item.Item) (item.Item, error) {
			nw := make(item.Item, len(old))
			for name, v := range old {
				nw[name] = v
			}
			if i%2 == 0 {
				nw["a"] = item.S(fmt.Sprint("a-", i)) // projected by lsi2, gsi1, gsi2
			} else {
				nw["z"] = item.S(fmt.Sprint("z-", i)) // projected by gsi1 only
			}
			return nw, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		d, err := divergences(ctx, b, tb, k, base)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) > 0 {
			t.Fatalf("update %d: %s", i, strings.Join(d, "; "))
		}
	}
	for i := range tb.Indexes {
		rows, err := indexRowsOf(ctx, b, tb, &tb.Indexes[i], k, [][]byte{storage.IndexRowFor(tb, &tb.Indexes[i], base).IndexKey.PK})
		if err != nil || len(rows) != 1 {
			t.Fatalf("index %s: %d rows after the updates, %v", tb.Indexes[i].IndexName, len(rows), err)
		}
	}
}

// TestWriteHistory checks the bounded memory of recent write IDs; it needs
// no cluster.
func TestWriteHistory(t *testing.T) {
	var w []byte
	base := time.Now().UnixMicro()
	for i := range 100 {
		w = appendWrite(w, uint64(i+1), base+int64(i))
	}
	if len(w) != 16*maxRecentWrites || hasWrite(w, 36) || !hasWrite(w, 37) || !hasWrite(w, 100) {
		t.Fatalf("history of %d bytes: want the last %d writes", len(w), maxRecentWrites)
	}
	w = appendWrite(w, 7, base+writeMemory+50)
	if len(w) != 16*50 || hasWrite(w, 51) || !hasWrite(w, 52) || !hasWrite(w, 7) {
		t.Fatalf("after a write %ds later: %d entries", writeMemory/1e6, len(w)/16)
	}
}

// Writers racing on one item lose lightweight-transaction races, and each
// lost race is reported to Options.OnRetry as contention (the metrics'
// extenddb_cassandra_retries_total).
func TestOnRetryReportsContention(t *testing.T) {
	b := backend(t)
	tb := raceTable(t, b, newAccount())
	var mu sync.Mutex
	reasons := map[string]int{}
	note := func(reason string) { mu.Lock(); reasons[reason]++; mu.Unlock() }
	b.onRetry.Store(&note)
	defer b.onRetry.Store(nil)
	ctx := ctxT(t, 2*time.Minute)
	k := storage.Key{PK: item.EncodeKey(item.S("hot")), SK: item.EncodeKey(item.S("s"))}
	const workers, writes = 4, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range writes {
				if err := b.Mutate(ctx, tb, k, put(raceImage("hot", "s", w*writes+i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if reasons["contention"] == 0 {
		t.Errorf("no contention reported for %d racing writes: %v", workers*writes, reasons)
	}
}
