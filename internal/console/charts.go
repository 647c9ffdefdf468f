package console

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The charts cover the last chartSpan in chartPoints points.
const (
	chartSpan   = 5 * time.Minute
	chartPoints = 60
	chartStep   = chartSpan / chartPoints
)

// Rates keeps per-second counts of the API's requests for the last
// chartSpan: how many, how many failed, and their total latency.
type Rates struct {
	mu      sync.Mutex
	seconds [int(chartSpan / time.Second)]second
}

type second struct {
	unix     int64
	requests int64
	errors   int64
	latency  time.Duration
}

// NewRates returns an empty Rates.
func NewRates() *Rates { return &Rates{} }

// Observe counts one request answered at now with status after elapsed.
func (r *Rates) Observe(now time.Time, status int, elapsed time.Duration) {
	u := now.Unix()
	r.mu.Lock()
	s := &r.seconds[u%int64(len(r.seconds))]
	if s.unix != u {
		*s = second{unix: u}
	}
	s.requests++
	if status >= 400 {
		s.errors++
	}
	s.latency += elapsed
	r.mu.Unlock()
}

// point is one chartStep of the charts.
type point struct {
	requests, errors int64
	latency          time.Duration
}

// series returns chartPoints points ending at now, oldest first.
func (r *Rates) series(now time.Time) []point {
	out := make([]point, chartPoints)
	end := now.Unix()
	per := int64(chartStep / time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seconds {
		age := end - s.unix
		if s.unix == 0 || age < 0 || age >= int64(len(r.seconds)) {
			continue
		}
		i := chartPoints - 1 - int(age/per)
		out[i].requests += s.requests
		out[i].errors += s.errors
		out[i].latency += s.latency
	}
	return out
}

// chart is one rendered chart.
type chart struct {
	Title string
	Last  string // the latest value, with its unit
	Max   string // the top of the y axis, with its unit
	SVG   template.HTML
}

// metricsView is the metrics page.
type metricsView struct {
	Charts []chart
	Total  int64
}

func (c *Console) serveMetrics(w http.ResponseWriter, r *http.Request, s *session) {
	pts := c.Rates.series(time.Now())
	step := chartStep.Seconds()
	rps, errs, lat := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	var total int64
	for i, p := range pts {
		total += p.requests
		rps[i] = float64(p.requests) / step
		errs[i] = float64(p.errors) / step
		if p.requests > 0 {
			lat[i] = float64(p.latency.Microseconds()) / 1000 / float64(p.requests)
		}
	}
	v := metricsView{Total: total, Charts: []chart{
		newChart("Requests per second", "req/s", rps),
		newChart("Errors per second", "err/s", errs),
		newChart("Average latency", "ms", lat),
	}}
	c.render(w, r, s, http.StatusOK, "metrics", page{Title: "Metrics", Data: v})
}

// Chart geometry, in SVG user units.
const (
	chartWidth  = 600
	chartHeight = 120
)

// newChart draws values (oldest first) as an SVG line over a filled area.
func newChart(title, unit string, values []float64) chart {
	top := 0.0
	for _, v := range values {
		top = max(top, v)
	}
	if top == 0 {
		top = 1
	}
	var pts strings.Builder
	dx := float64(chartWidth) / float64(len(values)-1)
	for i, v := range values {
		fmt.Fprintf(&pts, "%.1f,%.1f ", float64(i)*dx, chartHeight-v/top*(chartHeight-4))
	}
	line := strings.TrimSpace(pts.String())
	svg := fmt.Sprintf(`<svg class="chart" viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="%s">`+
		`<polygon class="area" points="0,%d %s %d,%d"/><polyline class="line" points="%s"/></svg>`,
		chartWidth, chartHeight, template.HTMLEscapeString(title), chartHeight, line, chartWidth, chartHeight, line)
	return chart{
		Title: title,
		Last:  fmt.Sprintf("%.2f %s", values[len(values)-1], unit),
		Max:   fmt.Sprintf("%.2f %s", top, unit),
		SVG:   template.HTML(svg),
	}
}
