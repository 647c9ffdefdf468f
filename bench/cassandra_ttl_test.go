package bench

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/extenddb/extenddb/internal/loadgen"
	"github.com/extenddb/extenddb/internal/server"
)

// Environment of BenchmarkCassandraBulk:
//
//	EXTENDDB_CASSANDRA_HOSTS    contact points of the Cassandra cluster to
//	                            measure (required; the benchmark skips without)
//	EXTENDDB_BENCH_TTL_ITEMS    items loaded (default 50,000), half of them
//	                            already expired
//	EXTENDDB_BENCH_LOAD_CLIENTS BatchWriteItem calls in flight while loading
//	                            (default 4)
//	EXTENDDB_BENCH_STORAGE_PID  process id of the (single) Cassandra node:
//	                            also report its CPU time per item of each
//	                            phase (Linux; none without)
const (
	envCassandraHosts = "EXTENDDB_CASSANDRA_HOSTS"
	envTTLItems       = "EXTENDDB_BENCH_TTL_ITEMS"
	envLoadClients    = "EXTENDDB_BENCH_LOAD_CLIENTS"
	envStoragePID     = "EXTENDDB_BENCH_STORAGE_PID"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkCassandraBulk measures the background work of a table on
// Cassandra (docs/cassandra.md, "Bulk work"), once per iteration, on an
// in-process extenddb with --storage cassandra and a one-second TTL pass:
//
//   - load-items/s: loading N items with BatchWriteItem (25 per call,
//     EXTENDDB_BENCH_LOAD_CLIENTS calls in flight), every second item
//     holding an expiry time an hour in the past, the others a day ahead;
//   - backfill-items/s: N over the time from UpdateTimeToLive (enable)
//     until DescribeTimeToLive reports ENABLED;
//   - expiry-items/min: N/2 over the time from ENABLED until the expired
//     items are gone: the last of them by expiry time is polled, then the
//     last expiryTail of them are read back (BatchGetItem), and a count
//     (a Scan) confirms all are gone; the count's own time is not counted
//     when it confirms at once (it reads every item and tombstone of the
//     table, and took longer than the expiry itself, docs/adr/0018h),
//     and is counted when it does not (the phase then ends when a count
//     confirms); expiry starts during the backfill already, so
//     ttl-total-s, from UpdateTimeToLive until the expired items are gone,
//     is reported too;
//   - load-, backfill- and expiry-bench-cpu-us/item: this process's CPU
//     time per item of each phase (the in-process extenddb and the SDK
//     client driving it), and with EXTENDDB_BENCH_STORAGE_PID the node's
//     (*-node-cpu-us/item).
//
// Run with -benchtime=1x -count=N and take medians:
//
//	EXTENDDB_CASSANDRA_HOSTS=127.0.0.1 go test -run '^$' -bench CassandraBulk -benchtime=1x -count=3 -timeout 2h ./bench/
func BenchmarkCassandraBulk(b *testing.B) {
	hosts := os.Getenv(envCassandraHosts)
	if hosts == "" {
		b.Skip(envCassandraHosts + " not set")
	}
	srv, err := server.Start(server.Config{
		Listen:      "127.0.0.1:0",
		Storage:     "cassandra",
		Cassandra:   server.CassandraConfig{Hosts: hosts, KeyspacePrefix: fmt.Sprintf("bench%d", time.Now().UnixNano())},
		TTLInterval: time.Second,
	})
	if err != nil {
		b.Fatalf("start extenddb: %v", err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			b.Errorf("shutdown extenddb: %v", err)
		}
	})
	c := newClient(srv.Endpoint())
	n := envInt(envTTLItems, 50000)
	node, self := nodeCPU(envInt(envStoragePID, 0)), selfCPU()
	var total bulkPhases
	for range b.N {
		r := bulkRound(b, c, n, node, self)
		for i := range total {
			total[i].wall += r[i].wall
			total[i].cpu += r[i].cpu
			total[i].self += r[i].self
		}
	}
	per := float64(b.N)
	load, backfill, expiry := total[phaseLoad], total[phaseBackfill], total[phaseExpiry]
	b.ReportMetric(float64(n)*per/load.wall.Seconds(), "load-items/s")
	b.ReportMetric(float64(n)*per/backfill.wall.Seconds(), "backfill-items/s")
	b.ReportMetric(float64((n+1)/2)*per/expiry.wall.Minutes(), "expiry-items/min")
	b.ReportMetric((backfill.wall+expiry.wall).Seconds()/per, "ttl-total-s")
	us := func(d time.Duration, items int) float64 { return float64(d.Microseconds()) / (float64(items) * per) }
	// This process: the in-process extenddb and the SDK client driving it.
	if self != nil {
		b.ReportMetric(us(load.self, n), "load-bench-cpu-us/item")
		b.ReportMetric(us(backfill.self, n), "backfill-bench-cpu-us/item")
		b.ReportMetric(us(expiry.self, (n+1)/2), "expiry-bench-cpu-us/item")
	} else {
		b.Log("this process's CPU time is unavailable (no /proc): the bench-cpu-us/item figures are not reported")
	}
	if node != nil {
		b.ReportMetric(us(load.cpu, n), "load-node-cpu-us/item")
		b.ReportMetric(us(backfill.cpu, n), "backfill-node-cpu-us/item")
		b.ReportMetric(us(expiry.cpu, (n+1)/2), "expiry-node-cpu-us/item")
	}
}

// The phases of one round, and the wall time and node CPU time of each.
const (
	phaseLoad = iota
	phaseBackfill
	phaseExpiry
)

type bulkPhases [3]struct{ wall, cpu, self time.Duration }

// nodeCPU returns a function reading the CPU time (user + system) the
// process pid has used, or nil for pid 0.
func nodeCPU(pid int) func() time.Duration {
	if pid <= 0 {
		return nil
	}
	return func() time.Duration {
		d, ok := loadgen.ProcessCPU(pid)
		if !ok {
			panic(fmt.Sprintf("%s=%d: cannot read the process's CPU time", envStoragePID, pid))
		}
		return d
	}
}

// selfCPU returns a function reading the CPU time this process has used,
// or nil where it cannot be read (no /proc).
func selfCPU() func() time.Duration {
	if _, ok := loadgen.ProcessCPU(os.Getpid()); !ok {
		return nil
	}
	return func() time.Duration {
		d, _ := loadgen.ProcessCPU(os.Getpid())
		return d
	}
}

// phaseTimer times the phases of a round: mark(i) ends phase i, which
// started at the previous mark (or at the timer's creation); marking a
// phase again adds the time since the previous mark to it. node and self
// read the CPU time of the node and of this process (nil: not measured).
type phaseTimer struct {
	node, self     func() time.Duration
	at             time.Time
	nodeAt, selfAt time.Duration // their readings at the last mark
	times          bulkPhases
}

func newPhaseTimer(node, self func() time.Duration) *phaseTimer {
	t := &phaseTimer{node: node, self: self, at: time.Now()}
	lap(node, &t.nodeAt)
	lap(self, &t.selfAt)
	return t
}

func (t *phaseTimer) mark(phase int) {
	now := time.Now()
	t.times[phase].wall += now.Sub(t.at)
	t.at = now
	t.times[phase].cpu += lap(t.node, &t.nodeAt)
	t.times[phase].self += lap(t.self, &t.selfAt)
}

// lap returns how far clock has moved since its reading *at, which it
// moves to now; 0 for a nil clock.
func lap(clock func() time.Duration, at *time.Duration) time.Duration {
	if clock == nil {
		return 0
	}
	now := clock()
	d := now - *at
	*at = now
	return d
}

// bulkRound runs one measurement on a fresh table and returns the time of
// each phase (and the CPU time of the node and of this process in it, with
// node and self).
func bulkRound(b *testing.B, c *dynamodb.Client, n int, node, self func() time.Duration) bulkPhases {
	ctx := context.Background()
	table := createTable(b, c, "bulk")
	now := time.Now().Unix()
	// Expired items expire one second apart, in key order: the last one is
	// among the last the expiry pass reaches.
	expireAt := func(i int) int64 {
		if i%2 == 0 {
			return now - 3600 + int64(i/2)%1800
		}
		return now + 86400
	}
	lastExpired := n - 2 + n%2
	for i := n - 1; i >= 0; i-- {
		if i%2 == 0 && expireAt(i) > expireAt(lastExpired) {
			lastExpired = i
		}
	}
	timer := newPhaseTimer(node, self)
	loadExpiring(b, c, table, n, expireAt)
	timer.mark(phaseLoad)

	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)},
	}); err != nil {
		b.Fatalf("UpdateTimeToLive: %v", err)
	}
	for {
		out, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
		if err != nil {
			b.Fatalf("DescribeTimeToLive: %v", err)
		}
		if out.TimeToLiveDescription.TimeToLiveStatus == types.TimeToLiveStatusEnabled {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	timer.mark(phaseBackfill)

	last := key(bulkPK(lastExpired), "s")
	for {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: last})
		if err != nil {
			b.Fatalf("GetItem: %v", err)
		}
		if out.Item == nil && countPresent(b, c, table, lastExpiring(n, expireAt)) == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	timer.mark(phaseExpiry)
	if countItems(b, c, table) != n-(n+1)/2 {
		// Expired items are left besides the last ones: the phase lasts
		// until a count finds them gone.
		for countItems(b, c, table) != n-(n+1)/2 {
			time.Sleep(200 * time.Millisecond)
		}
		timer.mark(phaseExpiry)
	}
	return timer.times
}

// expiryTail is how many of the expired items, the last by expiry time,
// BenchmarkCassandraBulk reads back before its count: more than an expiry
// batch (256) of them.
const expiryTail = 1024

// lastExpiring returns the indexes of the expiryTail expired items (even
// indexes) with the latest expiry times, by expireAt.
func lastExpiring(n int, expireAt func(int) int64) []int {
	var expired []int
	for i := 0; i < n; i += 2 {
		expired = append(expired, i)
	}
	slices.SortStableFunc(expired, func(a, c int) int { return cmp.Compare(expireAt(c), expireAt(a)) })
	return expired[:min(len(expired), expiryTail)]
}

// countPresent returns how many of the items bulkPK(i) (sort key "s") of
// table exist, read with BatchGetItem (consistent reads).
func countPresent(b *testing.B, c *dynamodb.Client, table string, idx []int) int {
	found := 0
	for start := 0; start < len(idx); start += 100 {
		var keys []map[string]types.AttributeValue
		for _, i := range idx[start:min(start+100, len(idx))] {
			keys = append(keys, key(bulkPK(i), "s"))
		}
		pending := map[string]types.KeysAndAttributes{table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
		for len(pending) > 0 {
			out, err := c.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				b.Fatalf("BatchGetItem: %v", err)
			}
			found += len(out.Responses[table])
			pending = out.UnprocessedKeys
		}
	}
	return found
}

func bulkPK(i int) string { return fmt.Sprintf("p%07d", i) }

// loadExpiring writes items 0..n-1 (pk bulkPK(i), sk "s", attribute exp
// = expireAt(i)) with BatchWriteItem, envLoadClients calls at a time.
func loadExpiring(b *testing.B, c *dynamodb.Client, table string, n int, expireAt func(int) int64) {
	calls := make(chan []types.WriteRequest)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for range envInt(envLoadClients, 4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for reqs := range calls {
				if err := batchWriteAll(c, table, reqs); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		}()
	}
	var reqs []types.WriteRequest
	for i := range n {
		it := item(bulkPK(i), "s")
		it["exp"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(expireAt(i), 10)}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		if len(reqs) == 25 || i == n-1 {
			calls <- reqs
			reqs = nil
		}
	}
	close(calls)
	wg.Wait()
	if failed != nil {
		b.Fatalf("BatchWriteItem: %v", failed)
	}
}

// batchWriteAll writes reqs, again with the unprocessed ones until none
// remain.
func batchWriteAll(c *dynamodb.Client, table string, reqs []types.WriteRequest) error {
	pending := map[string][]types.WriteRequest{table: reqs}
	for attempt := 0; len(pending[table]) > 0; attempt++ {
		if attempt > 20 {
			return fmt.Errorf("%d items still unprocessed", len(pending[table]))
		}
		out, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: pending})
		if err != nil {
			return err
		}
		pending = out.UnprocessedItems
		if len(pending[table]) > 0 {
			time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
		}
	}
	return nil
}

// countItems counts the items of table with a Scan of Select COUNT.
func countItems(b *testing.B, c *dynamodb.Client, table string) int {
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	total := 0
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			b.Fatalf("Scan: %v", err)
		}
		total += int(out.Count)
	}
	return total
}
