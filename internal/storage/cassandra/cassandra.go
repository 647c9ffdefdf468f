// Package cassandra is a storage.Backend on Apache Cassandra (5.0), through
// the gocql v2 driver.
//
// Layout (docs/adr/0003-cassandra-backend.md has the reasons):
//
//   - <prefix>_catalog: the migrations table and the tables table (one row
//     per DynamoDB table, partitioned by account, clustered by name).
//   - <prefix>_a<account>: one keyspace per account with, per DynamoDB
//     table (named from its UUID): items (partition pk, clustering sk), one
//     table per secondary index (partition index pk, clustering index sk,
//     base pk, base sk) and a hash directory that gives Scan its
//     partition-hash order.
//
// Every item write is a lightweight transaction fenced on the row's version
// (IF NOT EXISTS / IF version = ?), version = max(previous+1, now in µs);
// the write's index mutations follow in one batch stamped USING TIMESTAMP
// <version>, so a later version's index rows win whatever order batches
// arrive in.
package cassandra

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"golang.org/x/time/rate"

	"github.com/extenddb/extenddb/internal/storage"
)

// Options configure Open.
type Options struct {
	// Hosts are contact points ("127.0.0.1" or "127.0.0.1:9042").
	Hosts []string
	// Port is the CQL port of hosts given without one (default 9042).
	Port int
	// KeyspacePrefix names every keyspace of this backend: <prefix>_catalog
	// and <prefix>_a<account> (default "extenddb"). Letters, digits and
	// underscores, starting with a letter, at most 24 characters.
	KeyspacePrefix string
	// ReplicationFactor of the keyspaces this backend creates (default 1).
	ReplicationFactor int
	// Datacenter, when set, makes keyspaces use NetworkTopologyStrategy
	// with ReplicationFactor replicas in it; otherwise SimpleStrategy.
	Datacenter string
	// Timeout of one request (default 30s).
	Timeout time.Duration
	// EventualReadsAtOne reads at ONE where DynamoDB allows an eventually
	// consistent read (GetItem, Query and Scan without ConsistentRead, and
	// every index read). Off, every read is at QUORUM and sees every write
	// acknowledged before it, as the contract suite expects; with a
	// replication factor of 1 the two are the same.
	EventualReadsAtOne bool
	// MaxAttempts bounds the tries of one conditional write that keeps
	// losing races (default 100).
	MaxAttempts int
	// OnRetry, when set, is called before every request sent again: reason
	// "contention" when a conditional write (lightweight transaction) lost
	// its race, "timeout" when a request's outcome was uncertain,
	// "unavailable" when too few replicas (or no connection) answered. It
	// must not block.
	OnRetry func(reason string)
	// OnRepair, when set, is called with "stored" when a committed write's
	// effects failed and were stored as a repair, with "applied" when a
	// recovery pass applied one, and with "overdue" each time a pass fails
	// to apply one more than 20 h old, 4 h before it expires unapplied
	// (repairs.go). It must not block.
	OnRepair func(event string)
	// Log, when set, receives a warning with the reason whenever a
	// committed write's effects fail (whether a repair could be stored or
	// not), and an error when a repair is overdue (repairs.go); the
	// warning at most every 10 s, the error at most every minute, each
	// with a count of what it stands for; default slog.Default().
	Log *slog.Logger
	// TxTimeout is how old a transaction (TransactWrite) may get before a
	// writer waiting for one of its items, or Recover, finishes it on its
	// behalf: a PREPARE is aborted, a COMMITTING one committed (default
	// 5s). A single write waits up to twice as long for a transaction
	// before failing with storage.ErrTransactionConflict.
	TxTimeout time.Duration
	// FrontendLease is how long this process's liveness lease lasts
	// (default 15s); it is renewed every third of it. Another process
	// recovers this one's unfinished writes (Recover) only after the lease
	// has lapsed. A lower bound of 2s applies.
	FrontendLease time.Duration

	// observer, when set (by this package's tests), sees every statement
	// and batch the backend sends.
	observer statementObserver
}

// statementObserver observes statements and batches (gocql's observers).
type statementObserver interface {
	gocql.QueryObserver
	gocql.BatchObserver
}

var (
	_ storage.Backend   = (*Backend)(nil)
	_ storage.Leaser    = (*Backend)(nil) // several frontends share a cluster
	_ storage.Recoverer = (*Backend)(nil) // items commit before their derived rows
	// a resumed fill waits for the replay of stopped writers
	_ storage.WriterSettler = (*Backend)(nil)
)

// Backend is a storage.Backend on Cassandra. It is safe for concurrent use.
type Backend struct {
	s           *gocql.Session
	opts        Options
	catalog     string // catalog keyspace
	maxAttempts int
	txTimeout   time.Duration
	// effectsTimeout bounds the effects of a committed write once its
	// caller is gone (committed); tests shorten it.
	effectsTimeout time.Duration

	lastVersion atomic.Int64 // highest version this process issued

	// recoverMu runs one Recover pass at a time in this process (the
	// recovery worker's and those of resumed fills, SettleWriters): they
	// share this process's hold of the recovery lease.
	recoverMu sync.Mutex

	mu        sync.Mutex
	keyspaces map[string]bool // data keyspaces known to exist

	// beforeIndexes, when set (by tests), runs between a write's fenced
	// commit and its index batch, to widen the window in which index
	// batches of racing writes overtake each other.
	beforeIndexes atomic.Pointer[func()]
	// onRetry is Options.OnRetry (tests replace it).
	onRetry atomic.Pointer[func(reason string)]
	// onRepair is Options.OnRepair (tests replace it).
	onRepair atomic.Pointer[func(event string)]
	// effectsWarn and effectsFailed rate-limit the warning of effects
	// that fail after a commit (warnEffects, blind.go).
	effectsWarn   rate.Sometimes
	effectsFailed atomic.Int64
	// overdueLog and overdueFailed rate-limit the error of overdue
	// repairs (reportOverdue, repairs.go).
	overdueLog    rate.Sometimes
	overdueFailed atomic.Int64
	// repairsDrained holds the partitions of settled minutes whose
	// repairs a pass of this process found all applied, repairsListed the
	// minute this process has listed in repair_minutes (repairs.go).
	repairsDrained *minuteSet[repairPart]
	repairsListed  *minuteSet[int64]
	// txStopAt, when set (by tests), is asked at each stage of a
	// transaction ("prepared", "committing") whether to stop there as if
	// the process had died (tx.go).
	txStopAt atomic.Pointer[func(stage string) bool]
	closed   atomic.Bool

	fe frontend // intents.go: this process's write intents and liveness lease

	absent absence // blind.go: which tables' writes skip their first read
	// blindAlways, when set (by tests), makes every write whose function
	// yields an image for an absent item try a blind insert first.
	blindAlways atomic.Bool
}

var prefixRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,23}$`)

// Open connects to the cluster, creates the catalog keyspace when it is
// missing and runs the catalog migrations that have not run yet.
func Open(ctx context.Context, o Options) (*Backend, error) {
	if len(o.Hosts) == 0 {
		return nil, errors.New("cassandra: no hosts")
	}
	if o.KeyspacePrefix == "" {
		o.KeyspacePrefix = "extenddb"
	}
	if !prefixRE.MatchString(o.KeyspacePrefix) {
		return nil, fmt.Errorf("cassandra: keyspace prefix %q: want a letter, then up to 23 letters, digits or underscores", o.KeyspacePrefix)
	}
	if o.ReplicationFactor <= 0 {
		o.ReplicationFactor = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 100
	}
	if o.TxTimeout <= 0 {
		o.TxTimeout = 5 * time.Second
	}
	if o.FrontendLease <= 0 {
		o.FrontendLease = 15 * time.Second
	}
	o.FrontendLease = max(o.FrontendLease, 2*time.Second)
	c := gocql.NewCluster(o.Hosts...)
	if o.Port > 0 {
		c.Port = o.Port
	}
	c.Timeout = o.Timeout
	c.ConnectTimeout = o.Timeout
	c.WriteTimeout = o.Timeout
	c.Consistency = gocql.Quorum
	c.SerialConsistency = gocql.Serial
	c.MaxWaitSchemaAgreement = 2 * time.Minute
	c.NumConns = 2
	c.ReconnectInterval = time.Second
	if o.observer != nil {
		c.QueryObserver, c.BatchObserver = o.observer, o.observer
	}
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cassandra: connect to %v: %w", o.Hosts, err)
	}
	b := &Backend{
		s:           s,
		opts:        o,
		catalog:     o.KeyspacePrefix + "_catalog",
		maxAttempts: o.MaxAttempts,
		txTimeout:   o.TxTimeout,
		keyspaces:   map[string]bool{},

		effectsTimeout: effectsTimeout,
		effectsWarn:    rate.Sometimes{First: 1, Interval: 10 * time.Second},
		overdueLog:     rate.Sometimes{First: 1, Interval: overdueLogEvery},
		repairsDrained: newMinuteSet(func(p repairPart) int64 { return p.minute }),
		repairsListed:  newMinuteSet(func(m int64) int64 { return m }),
	}
	if o.OnRetry != nil {
		b.onRetry.Store(&o.OnRetry)
	}
	if o.OnRepair != nil {
		b.onRepair.Store(&o.OnRepair)
	}
	if b.opts.Log == nil {
		b.opts.Log = slog.Default()
	}
	if err := b.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	// intents.go: register this process as a frontend whose write intents
	// others recover once its lease lapses.
	if err := b.startFrontend(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return b, nil
}

// Close stops renewing this frontend's lease and releases the session.
// Writes still running fail; those that committed their item without
// their derived rows are completed by another frontend's Recover once the
// lease has lapsed.
func (b *Backend) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	b.stopFrontend()
	b.s.Close()
	return nil
}

// replication returns the replication map of new keyspaces.
func (b *Backend) replication() string {
	if b.opts.Datacenter != "" {
		return fmt.Sprintf("{'class': 'NetworkTopologyStrategy', '%s': %d}", b.opts.Datacenter, b.opts.ReplicationFactor)
	}
	return fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", b.opts.ReplicationFactor)
}

var accountRE = regexp.MustCompile(`^[a-z0-9]{1,20}$`)

// dataKeyspace returns the keyspace of an account's tables: the account ID
// itself when it is short lowercase alphanumerics (12-digit IDs are), a
// hash of it otherwise.
func (b *Backend) dataKeyspace(account string) string {
	if accountRE.MatchString(account) {
		return b.opts.KeyspacePrefix + "_a" + account
	}
	return b.opts.KeyspacePrefix + "_h" + hashedName(account, 10)
}

// hashedName stands for a name that is not a CQL identifier (or too long
// for one) in one: the hexadecimal digits of the first n bytes of the
// name's SHA-256.
func hashedName(name string, n int) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:n])
}

// ensureKeyspace creates an account's keyspace once per process.
func (b *Backend) ensureKeyspace(ctx context.Context, ks string) error {
	b.mu.Lock()
	known := b.keyspaces[ks]
	b.mu.Unlock()
	if known {
		return nil
	}
	if err := b.ddl(ctx, fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", ks, b.replication())); err != nil {
		return err
	}
	b.mu.Lock()
	b.keyspaces[ks] = true
	b.mu.Unlock()
	return nil
}

// ddl runs a schema statement; the driver waits for schema agreement.
func (b *Backend) ddl(ctx context.Context, stmt string) error {
	err := b.s.Query(stmt).WithContext(ctx).Idempotent(true).Exec()
	if err != nil {
		var exists *gocql.RequestErrAlreadyExists
		if errors.As(err, &exists) {
			return nil
		}
		// ALTER TABLE ... ADD of a column another process added first
		// (migrations may run in several processes at once).
		if strings.HasPrefix(stmt, "ALTER TABLE") && strings.Contains(err.Error(), "already exists") {
			return nil
		}
		return fmt.Errorf("cassandra: %s: %w", firstWords(stmt), err)
	}
	return nil
}

func firstWords(stmt string) string {
	f := strings.Fields(stmt)
	if len(f) > 6 {
		f = f[:6]
	}
	return strings.Join(f, " ")
}

// nextVersion returns the version of a write replacing version prev (0 for
// an absent item): max(prev+1, now in µs), and above every version this
// process issued before, so one frontend's versions increase even when its
// clock steps back.
func (b *Backend) nextVersion(prev int64) int64 {
	for {
		last := b.lastVersion.Load()
		v := max(prev+1, time.Now().UnixMicro(), last+1)
		if b.lastVersion.CompareAndSwap(last, v) {
			return v
		}
	}
}

// backoff sleeps before retry attempt n (from 1): jittered, growing to
// about 50ms.
func backoff(ctx context.Context, n int) error {
	ceil := time.Duration(min(n, 10)) * 5 * time.Millisecond
	return sleepCtx(ctx, time.Duration(rand.Int64N(int64(ceil)))+time.Millisecond)
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// isUnconfigured reports whether err says a table or keyspace does not
// exist (it was dropped, or never created).
func isUnconfigured(err error) bool {
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid {
		return false
	}
	m := re.Message()
	return strings.Contains(m, "unconfigured table") || strings.Contains(m, "does not exist") ||
		strings.Contains(m, "Keyspace") && strings.Contains(m, "not exist")
}

// isUncertain reports whether a conditional write may or may not have been
// applied: a timeout or unknown outcome after the request was sent.
func isUncertain(err error) bool {
	var wt *gocql.RequestErrWriteTimeout
	var wu *gocql.RequestErrCASWriteUnknown
	var rt *gocql.RequestErrReadTimeout
	return errors.As(err, &wt) || errors.As(err, &wu) || errors.As(err, &rt) ||
		errors.Is(err, gocql.ErrTimeoutNoResponse)
}

// retryReason names the kind of a retryable error for Options.OnRetry.
func retryReason(err error) string {
	if isUncertain(err) {
		return "timeout"
	}
	return "unavailable"
}

// noteRetry reports a retry to Options.OnRetry.
func (b *Backend) noteRetry(reason string) {
	if f := b.onRetry.Load(); f != nil {
		(*f)(reason)
	}
}

// retryable reports whether a failed request can simply be sent again.
func retryable(err error) bool {
	var un *gocql.RequestErrUnavailable
	var ov *gocql.RequestErrOverloaded
	return isUncertain(err) || errors.As(err, &un) || errors.As(err, &ov) || errors.Is(err, gocql.ErrNoConnections)
}
