// Package metrics holds extenddb's Prometheus metrics: what the server does,
// per DynamoDB operation and per table, what its background workers do, and
// what its storage engine does underneath. The exposition format, the Go
// runtime and process collectors are the Prometheus Go client's
// (github.com/prometheus/client_golang).
//
// Every metric name starts with "extenddb_". A nil *Metrics is valid and
// records nothing, so callers need no checks when metrics are off. The
// metric names and labels are listed in docs/operations.md.
package metrics

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Outcomes of a request, the "outcome" label of extenddb_requests_total.
const (
	OutcomeSuccess     = "success"      // HTTP 200
	OutcomeClientError = "client_error" // HTTP 4xx: the request was refused (validation, condition, throttling)
	OutcomeServerError = "server_error" // HTTP 5xx: extenddb failed
)

// UnknownOperation is the "operation" label of requests that named no known
// operation (or were refused before their operation was read).
const UnknownOperation = "Unknown"

// Metrics is one registry of extenddb's metrics. Create it with New.
type Metrics struct {
	registry *prometheus.Registry
	ops      sync.Map // operation -> *opCounters

	tablesRead, tablesWritten sync.Map // table name -> *tableCounters

	requests *prometheus.CounterVec   // operation, outcome
	latency  *prometheus.HistogramVec // operation
	errors   *prometheus.CounterVec   // type (short __type name)

	capacity *prometheus.CounterVec // table, kind (read|write): consumed capacity units
	items    *prometheus.CounterVec // table, kind (read|write): items read or written
	bytes    *prometheus.CounterVec // table, kind (read|write): item bytes read or written

	ttlDeleted     prometheus.Counter     // items deleted by TTL expiry
	ttlLag         prometheus.Gauge       // seconds between expiry time and deletion of the latest item
	backfillPages  *prometheus.CounterVec // kind (index, ttl_enable, ttl_disable): pages processed by background backfills
	jobs           *prometheus.CounterVec // kind, state: long-running jobs (backup, import, export, index)
	jobUnits       *prometheus.CounterVec // kind: units processed by jobs
	jobBytes       *prometheus.CounterVec // kind: bytes processed by jobs
	streamWritten  prometheus.Counter     // stream records written
	streamTrimmed  prometheus.Counter     // stream records trimmed after 24 h
	storageBatch   prometheus.Histogram   // SQLite group-commit batch sizes
	storageFsync   prometheus.Histogram   // SQLite fsync latency, seconds
	storageRetries *prometheus.CounterVec // reason: Cassandra retries (LWT contention, timeouts)
	storageRepairs *prometheus.CounterVec // event (stored, applied): Cassandra repairs of failed effects
}

// New makes a registry holding extenddb's metrics, the Go runtime's and the
// process's (CPU, memory, open files).
func New() *Metrics {
	// 100 µs to 10 s: a cached GetItem up to a large transaction on a remote store.
	seconds := prometheus.ExponentialBuckets(0.0001, 2.5, 12)
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: counterVec("extenddb_requests_total",
			"API requests by operation (e.g. GetItem) and outcome (success, client_error, server_error).", "operation", "outcome"),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "extenddb_request_duration_seconds",
			Help: "Time to serve an API request, from its arrival to its response, by operation.", Buckets: seconds}, []string{"operation"}),
		errors: counterVec("extenddb_errors_total",
			"Error responses by DynamoDB error type (the part of __type after '#').", "type"),
		capacity: counterVec("extenddb_consumed_capacity_units_total",
			"Capacity units consumed, as DynamoDB would count them, by table and kind (read, write).", "table", "kind"),
		items: counterVec("extenddb_items_total",
			"Items returned (read) or written (write) by table.", "table", "kind"),
		bytes: counterVec("extenddb_item_bytes_total",
			"Item bytes returned (read) or written (write), in DynamoDB's item size, by table.", "table", "kind"),
		ttlDeleted: counter("extenddb_ttl_expired_items_total",
			"Items deleted by Time to Live expiry."),
		ttlLag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "extenddb_ttl_expiry_lag_seconds",
			Help: "Seconds between the expiry time of the last item deleted by TTL and its deletion."}),
		backfillPages: counterVec("extenddb_backfill_pages_total",
			"Pages (of up to the worker's page size, 256 items by default) processed by background backfills, by kind (index, ttl_enable, ttl_disable).", "kind"),
		jobs: counterVec("extenddb_jobs_total",
			"Long-running jobs (index, backup, restore, import, export) by kind and final state.", "kind", "state"),
		jobUnits: counterVec("extenddb_job_progress_units_total",
			"Units processed by long-running jobs, by kind: items read or written by backups, restores and exports, records read by imports.", "kind"),
		jobBytes: counterVec("extenddb_job_progress_bytes_total",
			"Bytes processed by long-running jobs, by kind: the billed size of the items of backups, restores and exports, the bytes of source files read by imports.", "kind"),
		streamWritten: counter("extenddb_stream_records_written_total",
			"DynamoDB Streams records written."),
		streamTrimmed: counter("extenddb_stream_records_trimmed_total",
			"DynamoDB Streams records removed after their 24-hour retention."),
		storageBatch: histogram("extenddb_sqlite_commit_batch_size",
			"Writes committed together by one SQLite group commit.", prometheus.ExponentialBuckets(1, 2, 10)),
		storageFsync: histogram("extenddb_sqlite_commit_seconds",
			"Time of the COMMIT of one SQLite group commit (the WAL fsync with synchronous=FULL).", seconds),
		storageRetries: counterVec("extenddb_cassandra_retries_total",
			"Cassandra requests sent again, by reason: contention (a lightweight transaction lost its race), timeout (uncertain outcome), unavailable.", "reason"),
		storageRepairs: counterVec("extenddb_cassandra_repairs_total",
			"Cassandra writes whose index rows, stream record or expiry rows failed after their commit, by event: stored (as a repair), applied (by a recovery pass), overdue (a recovery pass failed to apply a repair more than 20 h old, 4 h before it expires unapplied; counted at each such pass).", "event"),
	}
	m.registry.MustRegister(m.requests, m.latency, m.errors, m.capacity, m.items, m.bytes,
		m.ttlDeleted, m.ttlLag, m.backfillPages, m.jobs, m.jobUnits, m.jobBytes, m.streamWritten, m.streamTrimmed,
		m.storageBatch, m.storageFsync, m.storageRetries, m.storageRepairs,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// counterVec, counter and histogram make the metrics of New.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func histogram(name, help string, buckets []float64) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
}

// Handler serves the registry in the Prometheus text exposition format (or
// OpenMetrics when the scraper asks for it), for GET /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Register adds a collector of another part of the server (e.g. a storage
// backend's connection pool) to the registry.
func (m *Metrics) Register(c prometheus.Collector) error {
	if m == nil {
		return nil
	}
	return m.registry.Register(c)
}

// ObserveRequest records one API request: its operation ("" or
// UnknownOperation when none was recognized), its HTTP status, the short
// name of its error type ("" on success) and the time it took.
func (m *Metrics) ObserveRequest(operation string, status int, errType string, elapsed time.Duration) {
	if m == nil {
		return
	}
	if operation == "" {
		operation = UnknownOperation
	}
	c := m.opCounters(operation)
	switch {
	case status >= 500:
		c.serverError.Inc()
	case status >= 400:
		c.clientError.Inc()
	default:
		c.success.Inc()
	}
	c.latency.Observe(elapsed.Seconds())
	if errType != "" {
		m.errors.WithLabelValues(errType).Inc()
	}
}

// opCounters are one operation's series, looked up once: a label lookup
// hashes its values on every call, a sync.Map load of a string does not
// allocate and is faster.
type opCounters struct {
	success, clientError, serverError prometheus.Counter
	latency                           prometheus.Observer
}

func (m *Metrics) opCounters(op string) *opCounters {
	if c, ok := m.ops.Load(op); ok {
		return c.(*opCounters)
	}
	c := &opCounters{
		success:     m.requests.WithLabelValues(op, OutcomeSuccess),
		clientError: m.requests.WithLabelValues(op, OutcomeClientError),
		serverError: m.requests.WithLabelValues(op, OutcomeServerError),
		latency:     m.latency.WithLabelValues(op),
	}
	actual, _ := m.ops.LoadOrStore(op, c)
	return actual.(*opCounters)
}

// Kinds of table traffic, the "kind" label of the per-table counters.
const (
	KindRead  = "read"
	KindWrite = "write"
)

// ObserveTable records the capacity units, items and item bytes one request
// consumed on a table; kind is KindRead or KindWrite. It fits
// api.Config.OnTableUse.
func (m *Metrics) ObserveTable(table, kind string, capacityUnits float64, items int, bytes int64) {
	if m == nil {
		return
	}
	c := m.tableCounters(table, kind)
	if capacityUnits > 0 {
		c.capacity.Add(capacityUnits)
	}
	if items > 0 {
		c.items.Add(float64(items))
	}
	if bytes > 0 {
		c.bytes.Add(float64(bytes))
	}
}

// tableCounters are one table's series of one kind, looked up once (as
// opCounters).
type tableCounters struct{ capacity, items, bytes prometheus.Counter }

func (m *Metrics) tableCounters(table, kind string) *tableCounters {
	cache := m.tableCache(kind)
	if c, ok := cache.Load(table); ok {
		return c.(*tableCounters)
	}
	c := &tableCounters{
		capacity: m.capacity.WithLabelValues(table, kind),
		items:    m.items.WithLabelValues(table, kind),
		bytes:    m.bytes.WithLabelValues(table, kind),
	}
	actual, _ := cache.LoadOrStore(table, c)
	return actual.(*tableCounters)
}

// tableCache is the cache of the tableCounters of kind.
func (m *Metrics) tableCache(kind string) *sync.Map {
	if kind == KindWrite {
		return &m.tablesWritten
	}
	return &m.tablesRead
}

// ForgetTable removes the per-table series of table, for a deleted table:
// without it every table ever created (test suites create thousands under
// unique names) would keep its series until the server restarts. A table
// created again under the name starts again from zero, which Prometheus'
// rate() reads as a counter reset.
func (m *Metrics) ForgetTable(table string) {
	if m == nil {
		return
	}
	for _, kind := range []string{KindRead, KindWrite} {
		m.tableCache(kind).Delete(table)
		m.capacity.DeleteLabelValues(table, kind)
		m.items.DeleteLabelValues(table, kind)
		m.bytes.DeleteLabelValues(table, kind)
	}
}

// TTLExpired records n items deleted by TTL expiry; lag is the time between
// the newest deleted item's expiry time and its deletion.
func (m *Metrics) TTLExpired(n int, lag time.Duration) {
	if m == nil || n <= 0 {
		return
	}
	m.ttlDeleted.Add(float64(n))
	m.ttlLag.Set(lag.Seconds())
}

// BackfillPage records one page of a background backfill of kind job
// ("index" for a new global secondary index, "ttl_enable" and "ttl_disable"
// for Time to Live's transitions).
func (m *Metrics) BackfillPage(job string) {
	if m == nil {
		return
	}
	m.backfillPages.WithLabelValues(job).Inc()
}

// JobFinished records a long-running job (kind "index", "backup", "restore",
// "import" or "export") ending in state (e.g. "COMPLETED", "FAILED").
func (m *Metrics) JobFinished(kind, state string) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(kind, state).Inc()
}

// JobProgress records units (items or records) and bytes processed by a
// long-running job of kind ("backup", "restore", "import", "export", ...)
// since its previous checkpoint.
func (m *Metrics) JobProgress(kind string, units, bytes int64) {
	if m == nil {
		return
	}
	if units > 0 {
		m.jobUnits.WithLabelValues(kind).Add(float64(units))
	}
	if bytes > 0 {
		m.jobBytes.WithLabelValues(kind).Add(float64(bytes))
	}
}

// StreamRecordsWritten records n stream records written.
func (m *Metrics) StreamRecordsWritten(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.streamWritten.Add(float64(n))
}

// StreamRecordsTrimmed records n stream records removed after retention.
func (m *Metrics) StreamRecordsTrimmed(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.streamTrimmed.Add(float64(n))
}

// SQLiteCommit records one SQLite group commit of size writes whose COMMIT
// took elapsed; it fits sqlite.Options.OnCommit.
func (m *Metrics) SQLiteCommit(size int, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.storageBatch.Observe(float64(size))
	m.storageFsync.Observe(elapsed.Seconds())
}

// CassandraRetry records one Cassandra request sent again; reason is
// "contention" (a lightweight transaction lost its race), "timeout" or
// "unavailable". It fits cassandra.Options.OnRetry.
func (m *Metrics) CassandraRetry(reason string) {
	if m == nil {
		return
	}
	m.storageRetries.WithLabelValues(reason).Inc()
}

// CassandraRepair records one event of a repair of a committed write's
// failed effects: "stored", "applied" or "overdue". It fits
// cassandra.Options.OnRepair.
func (m *Metrics) CassandraRepair(event string) {
	if m == nil {
		return
	}
	m.storageRepairs.WithLabelValues(event).Inc()
}

// PoolStats is a snapshot of a connection pool, as PostgreSQL's pool
// reports it.
type PoolStats struct {
	Total, Idle, Acquired, Max int32         // connections
	Acquires, EmptyAcquires    int64         // acquisitions so far; those that had to wait
	AcquireWait                time.Duration // total time spent waiting to acquire
}

// RegisterPool exports a connection pool's statistics, read by stat at
// every scrape, as extenddb_postgres_pool_*.
func (m *Metrics) RegisterPool(stat func() PoolStats) {
	if m == nil {
		return
	}
	gauge := func(name, help string, v func(PoolStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "extenddb_postgres_pool_" + name, Help: help},
			func() float64 { return v(stat()) })
	}
	counter := func(name, help string, v func(PoolStats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "extenddb_postgres_pool_" + name, Help: help},
			func() float64 { return v(stat()) })
	}
	m.registry.MustRegister(
		gauge("connections", "PostgreSQL connections open.", func(s PoolStats) float64 { return float64(s.Total) }),
		gauge("idle_connections", "PostgreSQL connections open and idle.", func(s PoolStats) float64 { return float64(s.Idle) }),
		gauge("acquired_connections", "PostgreSQL connections in use.", func(s PoolStats) float64 { return float64(s.Acquired) }),
		gauge("max_connections", "The pool's connection limit (pool_max_conns).", func(s PoolStats) float64 { return float64(s.Max) }),
		counter("acquires_total", "Connections acquired from the pool.", func(s PoolStats) float64 { return float64(s.Acquires) }),
		counter("empty_acquires_total", "Acquisitions that waited because no connection was idle.", func(s PoolStats) float64 { return float64(s.EmptyAcquires) }),
		counter("acquire_wait_seconds_total", "Time spent waiting to acquire connections.", func(s PoolStats) float64 { return s.AcquireWait.Seconds() }),
	)
}
