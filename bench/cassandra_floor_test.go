package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/storage"
)

// floorInFlight is how many statements BenchmarkCassandraFloor keeps in
// flight: the number extenddb's bulk paths run at once (WriteParallelism
// on Cassandra, docs/adr/0018e).
const floorInFlight = 64

// floorRowBytes is the size of the blob each row holds, about that of a
// small item with its key and attributes.
const floorRowBytes = 300

// BenchmarkCassandraFloor measures what the Cassandra node costs per
// statement of each kind extenddb's bulk paths send, driven directly with
// gocql at floorInFlight statements in flight, with no extenddb in
// between: the floor under any per-item cost (docs/adr/0018f). Each
// sub-benchmark runs b.N statements on a fresh table shaped like an item
// table (pk, sk, item, version):
//
//   - insert: a plain INSERT of a new row (QUORUM);
//   - insert-if-not-exists: INSERT ... IF NOT EXISTS of a new row (one
//     Paxos round);
//   - update-if-version: UPDATE ... IF version = ? of an existing row,
//     the fence of every item write (one Paxos round with its read);
//   - read: SELECT of one row by its key (QUORUM);
//   - batch25: an unlogged batch of 25 new rows of one partition (b.N
//     batches; per-row figures are reported as well);
//   - new-item: the three statements a blind put of a new item sends in
//     turn (docs/adr/0018f): a directory entry, an intent holding the
//     image, then INSERT ... IF NOT EXISTS of the item.
//
// It reports ops/s and, with EXTENDDB_BENCH_STORAGE_PID, the node's CPU
// time per statement (node-cpu-us/op; /proc/PID/stat, as
// BenchmarkCassandraBulk). Run it on a node of its own:
//
//	EXTENDDB_CASSANDRA_HOSTS=127.0.77.1 EXTENDDB_BENCH_STORAGE_PID=$PID \
//	  go test -run '^$' -bench CassandraFloor -benchtime=20000x -count=3 ./bench/
func BenchmarkCassandraFloor(b *testing.B) {
	hosts := os.Getenv(envCassandraHosts)
	if hosts == "" {
		b.Skip(envCassandraHosts + " not set")
	}
	c := gocql.NewCluster(strings.Split(hosts, ",")...)
	c.Consistency = gocql.Quorum
	c.SerialConsistency = gocql.Serial
	c.Timeout = 30 * time.Second
	c.NumConns = 2
	s, err := c.CreateSession()
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer s.Close()
	ks := fmt.Sprintf("floor%d", time.Now().UnixNano())
	if err := s.Query(`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).Exec(); err != nil {
		b.Fatalf("create keyspace: %v", err)
	}
	defer func() { _ = s.Query(`DROP KEYSPACE IF EXISTS ` + ks).Exec() }()
	f := &floor{s: s, ks: ks, node: nodeCPU(envInt(envStoragePID, 0)), blob: make([]byte, floorRowBytes)}
	for i := range f.blob {
		f.blob[i] = byte(rand.IntN(256))
	}
	b.Run("insert", func(b *testing.B) {
		tbl := f.table(b)
		f.measure(b, 1, func(i int) error {
			return s.Query(`INSERT INTO `+tbl+` (pk, sk, item, version) VALUES (?, ?, ?, ?)`, floorKey(i), []byte("s"), f.blob, int64(1)).Exec()
		})
	})
	b.Run("insert-if-not-exists", func(b *testing.B) {
		tbl := f.table(b)
		f.measure(b, 1, func(i int) error {
			return f.lwt(s.Query(`INSERT INTO `+tbl+` (pk, sk, item, version) VALUES (?, ?, ?, ?) IF NOT EXISTS`, floorKey(i), []byte("s"), f.blob, int64(1)))
		})
	})
	b.Run("update-if-version", func(b *testing.B) {
		tbl := f.populated(b)
		f.measure(b, 1, func(i int) error {
			return f.lwt(s.Query(`UPDATE `+tbl+` SET item = ?, version = ? WHERE pk = ? AND sk = ? IF version = ?`, f.blob, int64(2), floorKey(i), []byte("s"), int64(1)))
		})
	})
	b.Run("read", func(b *testing.B) {
		tbl := f.populated(b)
		f.measure(b, 1, func(i int) error {
			var blob []byte
			var ver int64
			return s.Query(`SELECT item, version FROM `+tbl+` WHERE pk = ? AND sk = ?`, floorKey(i), []byte("s")).Scan(&blob, &ver)
		})
	})
	b.Run("new-item", func(b *testing.B) {
		tbl, dir, intents := f.table(b), f.table(b), f.table(b)
		f.measure(b, 1, func(i int) error {
			k := floorKey(i)
			if err := s.Query(`INSERT INTO `+dir+` (pk, sk, version) VALUES (?, ?, ?)`, []byte{byte(i)}, k, int64(i)).Exec(); err != nil {
				return err
			}
			if err := s.Query(`INSERT INTO `+intents+` (pk, sk, item, version) VALUES (?, ?, ?, ?)`, []byte{byte(i >> 8)}, k, f.blob, int64(i)).Exec(); err != nil {
				return err
			}
			return f.lwt(s.Query(`INSERT INTO `+tbl+` (pk, sk, item, version) VALUES (?, ?, ?, ?) IF NOT EXISTS`, k, []byte("s"), f.blob, int64(1)))
		})
	})
	b.Run("batch25", func(b *testing.B) {
		tbl := f.table(b)
		f.measure(b, 25, func(i int) error {
			batch := s.Batch(gocql.UnloggedBatch)
			for r := range 25 {
				batch.Query(`INSERT INTO `+tbl+` (pk, sk, item, version) VALUES (?, ?, ?, ?)`, floorKey(i), []byte(fmt.Sprintf("s%02d", r)), f.blob, int64(1))
			}
			return batch.Exec()
		})
	})
}

// floor is the state BenchmarkCassandraFloor's sub-benchmarks share.
type floor struct {
	s      *gocql.Session
	ks     string
	node   func() time.Duration
	blob   []byte
	tables atomic.Int32
}

func floorKey(i int) []byte { return []byte(fmt.Sprintf("p%09d", i)) }

// table creates a fresh item-shaped table and returns its name.
func (f *floor) table(b *testing.B) string {
	name := fmt.Sprintf("%s.t%d", f.ks, f.tables.Add(1))
	if err := f.s.Query(`CREATE TABLE ` + name + ` (pk blob, sk blob, item blob, version bigint, PRIMARY KEY ((pk), sk))`).Exec(); err != nil {
		b.Fatalf("create table: %v", err)
	}
	return name
}

// populated creates a table holding rows 0..b.N-1 at version 1, written
// before the timer starts.
func (f *floor) populated(b *testing.B) string {
	tbl := f.table(b)
	err := storage.EachWrite(context.Background(), b.N, floorInFlight, func(i int) error {
		return f.s.Query(`INSERT INTO `+tbl+` (pk, sk, item, version) VALUES (?, ?, ?, ?)`, floorKey(i), []byte("s"), f.blob, int64(1)).Exec()
	})
	if err != nil {
		b.Fatalf("populate: %v", err)
	}
	return tbl
}

// lwt runs a conditional statement and fails when it did not apply (every
// key is fresh, so each one must).
func (f *floor) lwt(q *gocql.Query) error {
	applied, err := q.MapScanCAS(map[string]any{})
	if err == nil && !applied {
		err = fmt.Errorf("conditional statement did not apply")
	}
	return err
}

// measure runs op for 0..b.N-1, floorInFlight at a time, and reports the
// rate and the node's CPU per op, and per row for ops of rows > 1 rows.
func (f *floor) measure(b *testing.B, rows int, op func(i int) error) {
	var cpu0 time.Duration
	if f.node != nil {
		cpu0 = f.node()
	}
	b.ResetTimer()
	start := time.Now()
	err := storage.EachWrite(context.Background(), b.N, floorInFlight, op)
	wall := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/wall.Seconds(), "ops/s")
	if f.node != nil {
		us := float64((f.node() - cpu0).Microseconds()) / float64(b.N)
		b.ReportMetric(us, "node-cpu-us/op")
		if rows > 1 {
			b.ReportMetric(us/float64(rows), "node-cpu-us/row")
			b.ReportMetric(float64(b.N*rows)/wall.Seconds(), "rows/s")
		}
	}
}
