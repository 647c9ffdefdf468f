package metrics

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(w.Body)
	return string(body)
}

func TestObserve(t *testing.T) {
	m := New()
	m.ObserveRequest("PutItem", 200, "", time.Millisecond)
	m.ObserveRequest("PutItem", 400, "ConditionalCheckFailedException", time.Millisecond)
	m.ObserveRequest("", 400, "UnknownOperationException", time.Millisecond)
	m.ObserveRequest("Scan", 500, "InternalServerError", time.Millisecond)
	m.ObserveTable("Music", KindRead, 0.5, 2, 300)
	m.TTLExpired(3, 2*time.Second)
	m.BackfillPage("index")
	m.JobFinished("backup", "COMPLETED")
	m.StreamRecordsWritten(4)
	m.StreamRecordsTrimmed(2)
	m.SQLiteCommit(8, time.Millisecond)
	m.CassandraRetry("contention")
	m.CassandraRepair("stored")
	text := scrape(t, m)
	for _, want := range []string{
		`extenddb_requests_total{operation="PutItem",outcome="success"} 1`,
		`extenddb_requests_total{operation="PutItem",outcome="client_error"} 1`,
		`extenddb_requests_total{operation="Unknown",outcome="client_error"} 1`,
		`extenddb_requests_total{operation="Scan",outcome="server_error"} 1`,
		`extenddb_errors_total{type="ConditionalCheckFailedException"} 1`,
		`extenddb_request_duration_seconds_count{operation="PutItem"} 2`,
		`extenddb_consumed_capacity_units_total{kind="read",table="Music"} 0.5`,
		`extenddb_items_total{kind="read",table="Music"} 2`,
		`extenddb_item_bytes_total{kind="read",table="Music"} 300`,
		`extenddb_ttl_expired_items_total 3`,
		`extenddb_ttl_expiry_lag_seconds 2`,
		`extenddb_backfill_pages_total{kind="index"} 1`,
		`extenddb_jobs_total{kind="backup",state="COMPLETED"} 1`,
		`extenddb_stream_records_written_total 4`,
		`extenddb_stream_records_trimmed_total 2`,
		`extenddb_sqlite_commit_batch_size_count 1`,
		`extenddb_cassandra_retries_total{reason="contention"} 1`,
		`extenddb_cassandra_repairs_total{event="stored"} 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

// A nil *Metrics records nothing and does not panic.
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.ObserveRequest("GetItem", 200, "", time.Millisecond)
	m.ObserveTable("t", KindWrite, 1, 1, 1)
	m.TTLExpired(1, time.Second)
	m.StreamRecordsWritten(1)
	if err := m.Register(nil); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkObserveRequest is the cost metrics add to a request (its
// request series and its table series):
//
//	go test -run '^$' -bench BenchmarkObserveRequest ./internal/metrics/
func BenchmarkObserveRequest(b *testing.B) {
	m := New()
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveRequest("GetItem", 200, "", 30*time.Microsecond)
		m.ObserveTable("Music", KindRead, 0.5, 1, 300)
	}
}

// Every extenddb metric the Grafana dashboard in docs/ queries exists.
func TestDashboardMetricsExist(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana/extenddb-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct{ Targets []struct{ Expr string } }
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	m := New()
	m.RegisterPool(func() PoolStats { return PoolStats{Max: 4} }) // registered on PostgreSQL only
	families, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, f := range families {
		known[f.GetName()] = true
	}
	// Vectors without a sample yet are not gathered; Describe lists them all.
	ch := make(chan *prometheus.Desc, 64)
	go func() { m.registry.Describe(ch); close(ch) }()
	descName := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range ch {
		if s := descName.FindStringSubmatch(d.String()); s != nil {
			known[s[1]] = true
		}
	}
	name := regexp.MustCompile(`\b(extenddb|go|process)_[a-z_]+`)
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, metric := range name.FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(metric, "_bucket"), "_sum"), "_count")
				if !known[metric] && !known[base] {
					t.Errorf("dashboard queries %s, which extenddb does not export", metric)
				}
				n++
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d metric references found in the dashboard", n)
	}
}

// No metric has a label Prometheus attaches to every scraped series (job,
// instance): on a clash Prometheus renames the metric's own label to
// exported_job, and dashboards filtering on job see the scrape job instead.
// https://prometheus.io/docs/concepts/jobs_instances/
// https://prometheus.io/docs/prometheus/latest/configuration/configuration/#scrape_config (honor_labels)
func TestNoTargetLabels(t *testing.T) {
	m := New()
	m.RegisterPool(func() PoolStats { return PoolStats{Max: 4} })
	ch := make(chan *prometheus.Desc, 64)
	go func() { m.registry.Describe(ch); close(ch) }()
	labels := regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
	n := 0
	for d := range ch {
		s := labels.FindStringSubmatch(d.String())
		if s == nil {
			t.Fatalf("no variable labels in %s", d)
		}
		for _, l := range strings.Split(s[1], ",") {
			if l = strings.TrimSpace(l); l == "job" || l == "instance" {
				t.Errorf("%s has the label %q", d, l)
			}
		}
		n++
	}
	if n < 10 {
		t.Errorf("only %d metrics described", n)
	}
}
