package cassandra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// statementLog records the statements a backend sends, as "kind table"
// lines (statementLog.kind), leaving out the background lease renewals.
type statementLog struct {
	mu    sync.Mutex
	names map[string]string // keyspace-qualified table -> short name
	lines []string
}

var cqlTarget = regexp.MustCompile(`(?i)\b(?:FROM|INTO|UPDATE)\s+([A-Za-z0-9_.]+)`)

// kind names a statement: "read(QUORUM) items", "write intents",
// "lwt items" (a conditional statement: one Paxos round)...
func (l *statementLog) kind(stmt string, cl gocql.Consistency) string {
	table := ""
	if m := cqlTarget.FindStringSubmatch(stmt); m != nil {
		table = m[1]
		if n, ok := l.names[table]; ok {
			table = n
		} else if i := strings.LastIndexByte(table, '.'); i >= 0 {
			table = table[i+1:]
		}
	}
	upper := strings.ToUpper(strings.Join(strings.Fields(stmt), " "))
	switch {
	case strings.HasPrefix(upper, "SELECT"):
		return fmt.Sprintf("read(%v) %s", cl, table)
	case strings.Contains(upper, " IF "):
		return "lwt " + table
	}
	return "write " + table
}

func (l *statementLog) background(table string) bool {
	return strings.HasSuffix(table, " leases") || strings.HasSuffix(table, " frontends")
}

func (l *statementLog) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cl := gocql.Any
	if q.Query != nil {
		cl = q.Query.GetConsistency()
	}
	if k := l.kind(q.Statement, cl); !l.background(k) {
		l.lines = append(l.lines, k)
	}
}

func (l *statementLog) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for _, s := range b.Statements {
		parts = append(parts, l.kind(s, gocql.Any))
	}
	l.lines = append(l.lines, fmt.Sprintf("batch(%d: %s)", len(parts), strings.Join(slices.Compact(parts), ", ")))
}

// take returns the lines recorded since the last take and starts afresh.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// name registers the short name of a keyspace-qualified table.
func (l *statementLog) name(table, short string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names[table] = short
}

// openObserved opens a backend of its own keyspaces (so that the
// recovery tests never meet it as a stopped frontend) whose statements
// log records.
func openObserved(t *testing.T) (*Backend, *statementLog) {
	t.Helper()
	backend(t)
	log := &statementLog{names: map[string]string{}}
	own := fmt.Sprintf("xo%08x", rand.Uint32())
	b2, err := Open(ctxT(t, time.Minute), Options{Hosts: strings.Split(os.Getenv(hostsEnv), ","), KeyspacePrefix: own,
		ReplicationFactor: shared.opts.ReplicationFactor, observer: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := dropKeyspaces(ctx, b2, own); err != nil {
			t.Logf("drop the keyspaces of %s: %v", own, err)
		}
		b2.Close()
	})
	return b2, log
}

// observedTable creates a bulk table (bulkTable) on b, registers the short
// names of its tables in log and returns its entry as a request would use
// it (freshly loaded).
func observedTable(t *testing.T, b *Backend, log *statementLog) *storage.Table {
	t.Helper()
	tb := bulkTable(t, b)
	p := b.phys(tb)
	log.name(p.items, "items")
	log.name(p.dir, "dir")
	cur, err := b.GetTable(ctxT(t, time.Minute), tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// TestStatementsPerItem lists every statement one item costs in the bulk
// paths (docs/adr/0018f): a BatchWriteItem put of a new item (after a
// read, and blind), a TTL backfill page, and the expiry of one item. The
// lists are the ADR's cost table: a change to them is a change of the
// per-item cost and must be deliberate.
func TestStatementsPerItem(t *testing.T) {
	b, log := openObserved(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := observedTable(t, b, log)
	keyOf := func(i int) storage.Key {
		return storage.Key{PK: []byte(fmt.Sprintf("p%04d", i)), SK: []byte("s")}
	}
	putItem := func(i int, exp int64) storage.MutateFunc {
		return func(item.Item) (item.Item, error) {
			return item.Item{"pk": item.S(fmt.Sprintf("p%04d", i)), "sk": item.S("s"), "exp": item.N(fmt.Sprint(exp))}, nil
		}
	}
	check := func(what string, want []string) {
		t.Helper()
		got := log.take()
		t.Logf("%s: %d statements:\n  %s", what, len(got), strings.Join(got, "\n  "))
		if !slices.Equal(got, want) {
			t.Errorf("%s: statements\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	log.take()
	if err := b.Mutate(ctx, tb, keyOf(0), putItem(0, 100)); err != nil {
		t.Fatal(err)
	}
	check("put of a new item after a read", wantPutRead)
	b.blindAlways.Store(true)
	if err := b.Mutate(ctx, tb, keyOf(1), putItem(1, 100)); err != nil {
		t.Fatal(err)
	}
	check("blind put of a new item", wantPutBlind)
	b.blindAlways.Store(false)

	// The backfill: a page of 100 items (the two above and 98 more), every
	// one with its own partition.
	for i := 2; i < 100; i++ {
		if err := b.Mutate(ctx, tb, keyOf(i), putItem(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	setTTL(t, ctx, b, tb, storage.TimeToLive{AttributeName: "exp", Status: storage.TTLEnabling, Generation: 1})
	log.take()
	if done, err := b.BackfillTTL(ctx, tb.Account, tb.Name, 1, 1000); err != nil || !done {
		t.Fatalf("BackfillTTL = %v, %v", done, err)
	}
	page := log.take()
	t.Logf("backfill page of 100 items: %d statements:\n  %s", len(page), strings.Join(page, "\n  "))
	if n := countPrefix(page, "read(QUORUM) items"); n != backfillItemReads {
		t.Errorf("backfill page of 100 items: %d reads of the items table, want %d", n, backfillItemReads)
	}
	if n := countPrefix(page, "read(QUORUM) dir"); n != 0 {
		t.Errorf("backfill page of 100 items: %d reads of the directory, want none", n)
	}

	// The expiry of one item, as the expiry pass makes it (internal/workers
	// TTL.ExpireTable) with an entry it has just read.
	cur, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil || cur.TTL.Status != storage.TTLEnabled {
		t.Fatalf("GetTable = %+v, %v", cur.TTL, err)
	}
	now := time.Unix(1000, 0)
	log.take()
	err = b.Mutate(ctx, cur, keyOf(5), func(old item.Item) (item.Item, error) {
		if old == nil || !storage.StillExpired(cur, old, now) {
			return old, nil
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("expiry of one item", wantExpiry)
}

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// The statements of one item, in the order they are sent
// (docs/adr/0018f). A put of a new item into a table with no index, stream
// or TTL: the first read (at QUORUM; none when blind), the directory
// entry, the intent, the Paxos round. The expiry of an item: the read, the
// intent, the Paxos round fenced on the version read, the delete of its
// expiry row (a batch of one statement, one mutation). A backfill page of
// 100 items, one a partition: the catalog entry (read again after the
// grace on a backfill's first page), one range read of the items table in
// token order (docs/adr/0018g; no read of the directory),
// then the expiry rows in unlogged batches per shard, and the cursor's
// update (a read and a Paxos round).
var (
	wantPutRead       = []string{"read(QUORUM) items", "write dir", "write intents", "lwt items"}
	wantPutBlind      = []string{"write dir", "write intents", "lwt items"}
	wantExpiry        = []string{"read(QUORUM) items", "write intents", "lwt items", "batch(1: write ttl_rows)"}
	backfillItemReads = 1
)
