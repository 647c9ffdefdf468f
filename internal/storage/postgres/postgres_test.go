package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
	"github.com/extenddb/extenddb/internal/storage/storagetest"
)

// The tests need a PostgreSQL server: EXTENDDB_POSTGRES_DSN names a
// database (scripts/postgres.sh start prints one). Each test works in a
// fresh schema of its own, dropped afterwards.

const dsnEnv = "EXTENDDB_POSTGRES_DSN"

// testDSN returns the server's DSN; without one the test is skipped, or
// fails under CI=true, where a missing server is a broken setup.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		msg := dsnEnv + " is not set: the PostgreSQL backend is untested; run `export " + dsnEnv + "=$(scripts/postgres.sh start)`"
		if os.Getenv("CI") == "true" || os.Getenv("EXTENDDB_REQUIRE_BACKENDS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dsn
}

// freshSchema returns the name of a new schema (created by Open) and
// drops it, with everything in it, when the test ends.
func freshSchema(t testing.TB) (dsn, schema string) {
	t.Helper()
	dsn = testDSN(t)
	schema = fmt.Sprintf("extenddb_test_%d_%08x", time.Now().UnixNano(), rand.Uint32())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return dsn, schema
}

// openSchema opens a Backend on schema and closes it when the test ends
// (before the schema is dropped).
func openSchema(t testing.TB, dsn, schema string, opts Options) *Backend {
	t.Helper()
	opts.Schema = schema
	opts.DSN = dsn
	b, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func openFresh(t testing.TB, opts Options) *Backend {
	t.Helper()
	dsn, schema := freshSchema(t)
	return openSchema(t, dsn, schema, opts)
}

func TestContract(t *testing.T) {
	b := openFresh(t, Options{MaxConns: 32})
	storagetest.Run(t, func(t *testing.T) storage.Backend { return b })
}

// TestContractSchemaPerSubtest runs the suite again with a Backend (pool,
// schema, migrations) of its own for every subtest.
func TestContractSchemaPerSubtest(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	testDSN(t)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return openFresh(t, Options{MaxConns: 6}) })
}

func testTable(name, skType string) *storage.Table {
	tb := &storage.Table{
		Account:              "000000000001",
		Name:                 name,
		KeySchema:            []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}},
		Status:               storage.StatusActive,
	}
	if skType != "" {
		tb.KeySchema = append(tb.KeySchema, storage.KeyElement{AttributeName: "sk", KeyType: "RANGE"})
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "sk", AttributeType: skType})
	}
	return tb
}

func put(t testing.TB, b storage.Backend, tb *storage.Table, it item.Item) {
	t.Helper()
	k, err := storage.ItemKey(tb, it)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Mutate(context.Background(), tb, k, func(item.Item) (item.Item, error) { return it, nil }); err != nil {
		t.Fatal(err)
	}
}

func collect(t *testing.T, read func(storage.VisitFunc) error) []storage.Row {
	t.Helper()
	var rows []storage.Row
	if err := read(func(r storage.Row) bool { rows = append(rows, r); return true }); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestByteOrder checks that keys compare as unsigned bytes (memcmp, then
// length) with no collation: 0x00 and 0xFF bytes, prefixes, and
// BEGINS_WITH on prefixes ending in 0xFF.
func TestByteOrder(t *testing.T) {
	b := openFresh(t, Options{})
	ctx := context.Background()
	tb := testTable("bytes", "B")
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	keys := [][]byte{{0x00}, {0x00, 0x00}, {0x00, 0xFF}, {0x01}, {0x7F}, {0x7F, 0xFF, 0xFF}, {0x80},
		{0x80, 0x00}, {0xC3, 0xA9}, {0xFE, 0xFF}, {0xFF}, {0xFF, 0x00}, {0xFF, 0xFF}, {0xFF, 0xFF, 0x00}, []byte("a"), []byte("B")}
	for _, i := range rand.Perm(len(keys)) {
		put(t, b, tb, item.Item{"pk": item.S("p"), "sk": item.B(keys[i])})
	}
	want := slices.Clone(keys)
	slices.SortFunc(want, bytes.Compare)
	for _, fwd := range []bool{true, false} {
		rows := collect(t, func(v storage.VisitFunc) error {
			return b.Query(ctx, tb, &storage.QueryRequest{PK: item.EncodeKey(item.S("p")), Forward: fwd}, v)
		})
		var got [][]byte
		for _, r := range rows {
			got = append(got, r.Pos.Key.SK)
		}
		w := slices.Clone(want)
		if !fwd {
			slices.Reverse(w)
		}
		if !slices.EqualFunc(got, w, bytes.Equal) {
			t.Fatalf("forward=%v order\n got %x\nwant %x", fwd, got, w)
		}
	}
	for _, prefix := range [][]byte{{0xFF}, {0x00}, {0x7F, 0xFF}, {0xFF, 0xFF}} {
		var w [][]byte
		for _, k := range want {
			if bytes.HasPrefix(k, prefix) {
				w = append(w, k)
			}
		}
		rows := collect(t, func(v storage.VisitFunc) error {
			return b.Query(ctx, tb, &storage.QueryRequest{PK: item.EncodeKey(item.S("p")), Forward: true,
				SK: storage.KeyCondition{Op: "BEGINS_WITH", Values: [][]byte{prefix}}}, v)
		})
		var got [][]byte
		for _, r := range rows {
			got = append(got, r.Pos.Key.SK)
		}
		if !slices.EqualFunc(got, w, bytes.Equal) {
			t.Fatalf("BEGINS_WITH %x: got %x, want %x", prefix, got, w)
		}
	}
	// No key column carries a collation, and the server agrees on bytea order.
	var collated int
	err := b.pool.QueryRow(ctx, `SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relnamespace = current_schema()::regnamespace AND (c.relname LIKE 't\_%' OR c.relname LIKE 'i\_%')
AND a.attnum > 0 AND a.attcollation <> 0`).Scan(&collated)
	if err != nil || collated != 0 {
		t.Fatalf("collated columns in item tables: %d, %v", collated, err)
	}
	var ok bool
	if err := b.pool.QueryRow(ctx, `SELECT '\x7f'::bytea < '\x80'::bytea AND '\x00'::bytea > ''::bytea
AND '\xff'::bytea < '\xff00'::bytea AND '\x00ff'::bytea < '\x01'::bytea`).Scan(&ok); err != nil || !ok {
		t.Fatalf("server bytea order: %v, %v", ok, err)
	}
}

// TestLongReads crosses many read chunks: Query forward and backward with
// a condition and a start position, and Scan by segments, against the
// expected rows.
func TestLongReads(t *testing.T) {
	b := openFresh(t, Options{})
	ctx := context.Background()
	tb := testTable("long", "S")
	tb.Indexes = []storage.Index{{IndexName: "g", Global: true, KeySchema: []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}}}
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	const n = 3000
	var ms []storage.Mutation
	for i := range n {
		it := item.Item{"pk": item.S("p"), "sk": item.S(fmt.Sprintf("k%05d", i)), "g": item.S("G")}
		if i%3 == 0 {
			it["pk"] = item.S(fmt.Sprint("other", i))
		}
		k, _ := storage.ItemKey(tb, it)
		ms = append(ms, storage.Mutation{Table: tb, Key: k, Fn: func(item.Item) (item.Item, error) { return it, nil }})
		if len(ms) == 100 {
			if err := b.TransactWrite(ctx, ms); err != nil {
				t.Fatal(err)
			}
			ms = nil
		}
	}
	q := storage.QueryRequest{PK: item.EncodeKey(item.S("p")), Forward: true, SK: storage.KeyCondition{Op: "GE", Values: [][]byte{[]byte("k00100")}}}
	fwd := collect(t, func(v storage.VisitFunc) error { return b.Query(ctx, tb, &q, v) })
	if len(fwd) != 1934 {
		t.Fatalf("forward query: %d rows, want 1934", len(fwd))
	}
	for i := 1; i < len(fwd); i++ {
		if bytes.Compare(fwd[i-1].Pos.Key.SK, fwd[i].Pos.Key.SK) >= 0 {
			t.Fatalf("forward query out of order at %d", i)
		}
	}
	q.Forward, q.ExclusiveStart = false, &fwd[1500].Pos
	back := collect(t, func(v storage.VisitFunc) error { return b.Query(ctx, tb, &q, v) })
	if len(back) != 1500 || !bytes.Equal(back[0].Pos.Key.SK, fwd[1499].Pos.Key.SK) || !bytes.Equal(back[1499].Pos.Key.SK, fwd[0].Pos.Key.SK) {
		t.Fatalf("backward query from row 1500: %d rows", len(back))
	}
	seen := map[string]bool{}
	for seg := range 3 {
		rows := collect(t, func(v storage.VisitFunc) error {
			return b.Scan(ctx, tb, &storage.ScanRequest{Segment: seg, TotalSegments: 3}, v)
		})
		for i, r := range rows {
			seen[string(r.Pos.Key.PK)+"|"+string(r.Pos.Key.SK)] = true
			if i > 0 && item.PartitionHash(rows[i-1].Pos.Key.PK) > item.PartitionHash(r.Pos.Key.PK) {
				t.Fatalf("segment %d out of hash order at %d", seg, i)
			}
		}
	}
	if len(seen) != n {
		t.Fatalf("segments scanned %d distinct items, want %d", len(seen), n)
	}
	ix := collect(t, func(v storage.VisitFunc) error {
		return b.Query(ctx, tb, &storage.QueryRequest{Index: "g", PK: item.EncodeKey(item.S("G")), Forward: true}, v)
	})
	if len(ix) != n {
		t.Fatalf("index query: %d rows, want %d", len(ix), n)
	}
	// A visitor that stops early reads no further.
	count := 0
	if err := b.Scan(ctx, tb, &storage.ScanRequest{}, func(storage.Row) bool { count++; return count < 5 }); err != nil || count != 5 {
		t.Fatalf("stopped scan visited %d rows, %v", count, err)
	}
}

// TestMigrations races several Opens on one fresh schema, then checks that
// each migration was applied once and that a database newer than this
// build is refused.
func TestMigrations(t *testing.T) {
	dsn, schema := freshSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := Open(context.Background(), Options{DSN: dsn, Schema: schema, MaxConns: 2})
			if err == nil {
				b.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Open %d: %v", i, err)
		}
	}
	b := openSchema(t, dsn, schema, Options{})
	ctx := context.Background()
	var n, newest int
	if err := b.pool.QueryRow(ctx, "SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &newest); err != nil {
		t.Fatal(err)
	}
	if n != len(migrations)-1 || newest != len(migrations)-1 {
		t.Fatalf("schema_migrations has %d rows up to %d, want %d", n, newest, len(migrations)-1)
	}
	if _, err := b.pool.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", len(migrations)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{DSN: dsn, Schema: schema}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema: %v", err)
	}
}

func TestClosed(t *testing.T) {
	b := openFresh(t, Options{})
	tb := testTable("t", "")
	if err := b.CreateTable(context.Background(), tb); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := b.GetTable(context.Background(), tb.Account, tb.Name); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("GetTable after Close: %v", err)
	}
	err := b.Mutate(context.Background(), tb, storage.Key{PK: []byte("x")}, func(item.Item) (item.Item, error) { return nil, nil })
	if !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("Mutate after Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestBadIDs(t *testing.T) {
	if _, err := storage.ItemsTableName("not-a-uuid!"); err == nil {
		t.Fatal("itemsName accepted a non-hex ID")
	}
	if n, err := storage.IndexTableName(strings.ToUpper(uuid.NewString())); err != nil || strings.ContainsAny(n, "-ABCDEF") {
		t.Fatalf("indexName = %q, %v", n, err)
	}
	if s := storage.Successor([]byte{0x01, 0xFF}); !bytes.Equal(s, []byte{0x02}) {
		t.Fatalf("Successor = %x", s)
	}
	if storage.Successor([]byte{0xFF, 0xFF}) != nil || storage.Successor(nil) != nil {
		t.Fatal("Successor of all-0xFF must be nil")
	}
}

// TestLargeKeys pins the B-tree entry limit: incompressible keys of 1,024 +
// 1,024 bytes are stored; 2,048 + 1,024 bytes fail with ErrKeyTooLarge and
// write nothing.
func TestLargeKeys(t *testing.T) {
	b := openFresh(t, Options{})
	ctx := context.Background()
	tb := testTable("large", "B")
	tb.AttributeDefinitions[0].AttributeType = "B"
	if err := b.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	random := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(rand.Uint32())
		}
		return p
	}
	put(t, b, tb, item.Item{"pk": item.B(random(1024)), "sk": item.B(random(1024))})
	big := item.Item{"pk": item.B(random(2048)), "sk": item.B(random(1024))}
	k, _ := storage.ItemKey(tb, big)
	err := b.Mutate(ctx, tb, k, func(item.Item) (item.Item, error) { return big, nil })
	if !errors.Is(err, ErrKeyTooLarge) {
		t.Fatalf("2048+1024-byte key: %v, want ErrKeyTooLarge", err)
	}
	if st, err := b.Stats(ctx, tb); err != nil || st.ItemCount != 1 {
		t.Fatalf("after a failed write: %+v, %v", st, err)
	}
}
