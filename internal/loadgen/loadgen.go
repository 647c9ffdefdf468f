// Package loadgen is a lean closed-loop HTTP load generator for DynamoDB API
// endpoints. It measures the server rather than the client: requests are
// pre-built JSON bodies in which only fixed-width key digits change, sent over
// a fixed pool of keep-alive connections with a static, unverified signature
// (AWS SigV4 in shape only), so the client spends its CPU on little more than
// loopback HTTP instead of the SDK's signing, middleware and
// (de)serialization.
//
// Servers that verify signatures (DynamoDB itself) reject these requests; the
// tool is for local implementations such as extenddb and dynalite.
package loadgen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Operations the generator can run, and the mixed workloads (see
// workload.go).
const (
	OpPutItem            = "PutItem"
	OpGetItem            = "GetItem"
	OpQuery              = "Query"
	OpUpdateItem         = "UpdateItem"
	OpScan               = "Scan"
	OpBatchWriteItem     = "BatchWriteItem"
	OpBatchGetItem       = "BatchGetItem"
	OpTransactWriteItems = "TransactWriteItems"
	WorkloadYCSBA        = "YCSB-A"
	WorkloadYCSBB        = "YCSB-B"
)

// Ops lists the supported operations and workloads.
var Ops = []string{OpPutItem, OpGetItem, OpQuery, OpUpdateItem, OpScan,
	OpBatchWriteItem, OpBatchGetItem, OpTransactWriteItems, WorkloadYCSBA, WorkloadYCSBB}

// ItemsPerPartition is how many preloaded items share a partition key; Query
// reads one whole partition.
const ItemsPerPartition = 10

// maxErrorRate aborts a run when more than this fraction of requests failed.
const maxErrorRate = 0.01

// minForAbort is how many requests must have completed before the error rate
// is judged during a run.
const minForAbort = 100

// Config describes one run.
type Config struct {
	Endpoint    string        // e.g. http://127.0.0.1:8000
	Op          string        // one of Ops
	Table       string        // table name
	Duration    time.Duration // measured period
	Warmup      time.Duration // unmeasured period before it (0: none)
	Concurrency int           // workers, one connection each
	// Rate, when > 0, runs open-loop: requests are due at this many per
	// second in all, spread evenly over the workers, and each latency is
	// measured from when its request was due, not from when it was sent,
	// so a stalled server is charged for the requests it held up
	// (coordinated omission). 0 runs closed-loop.
	Rate      float64
	Items     int // preloaded items that reads and updates address
	ServerPID int // if > 0: report this process's CPU time per op (Linux)
	// StoragePIDs, when set, are the processes of the storage the server
	// uses (PostgreSQL's backends, Cassandra's JVM): their CPU time per op
	// is reported as well.
	StoragePIDs []int
	// AccessKeyID and SecretAccessKey, when set, sign every request with
	// SigV4 (region us-east-1) for servers that verify signatures.
	AccessKeyID, SecretAccessKey string
}

// Result is the outcome of a run.
type Result struct {
	Op          string
	Concurrency int
	Elapsed     time.Duration // measured wall-clock time
	Ops         int64         // successful requests in the measured period
	Errors      int64         // failed requests (non-200 or transport error)
	Rate        float64       // Config.Rate (0: closed loop)
	P50, P99    time.Duration // latency of successful requests
	P999, Max   time.Duration
	Late        int64         // open loop: requests sent more than 1 ms after they were due
	ServerCPU   time.Duration // server CPU time in the measured period; -1 if unknown
	ClientCPU   time.Duration // this process's CPU time in the measured period; -1 if unknown
	StorageCPU  time.Duration // the StoragePIDs' CPU time in the measured period; -1 if unknown
	FirstError  string        // description of the first failure, if any
}

// OpsPerSec is successful requests per second of the measured period.
func (r Result) OpsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// ServerCPUPerOp is the server's CPU time per request, or -1 if unknown.
func (r Result) ServerCPUPerOp() time.Duration {
	total := r.Ops + r.Errors
	if r.ServerCPU < 0 || total == 0 {
		return -1
	}
	return r.ServerCPU / time.Duration(total)
}

// StorageCPUPerOp is the storage processes' CPU time per request, or -1 if
// unknown.
func (r Result) StorageCPUPerOp() time.Duration {
	total := r.Ops + r.Errors
	if r.StorageCPU < 0 || total == 0 {
		return -1
	}
	return r.StorageCPU / time.Duration(total)
}

// ClientCPUPerOp is the generator's own CPU time per request, or -1 if
// unknown. It includes an in-process server's, if any.
func (r Result) ClientCPUPerOp() time.Duration {
	total := r.Ops + r.Errors
	if r.ClientCPU < 0 || total == 0 {
		return -1
	}
	return r.ClientCPU / time.Duration(total)
}

// String is one line of key=value pairs, easy to read and to parse.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "op=%s concurrency=%d duration=%.2fs ops=%d ops/s=%.1f p50=%s p99=%s max=%s errors=%d",
		r.Op, r.Concurrency, r.Elapsed.Seconds(), r.Ops, r.OpsPerSec(),
		fmtDur(r.P50), fmtDur(r.P99), fmtDur(r.Max), r.Errors)
	fmt.Fprintf(&b, " p99.9=%s", fmtDur(r.P999))
	if r.Rate > 0 {
		fmt.Fprintf(&b, " rate=%.0f late=%d", r.Rate, r.Late)
	}
	if c := r.ServerCPUPerOp(); c >= 0 {
		fmt.Fprintf(&b, " server-cpu-us/op=%.1f", float64(c)/float64(time.Microsecond))
	}
	if c := r.StorageCPUPerOp(); c >= 0 {
		fmt.Fprintf(&b, " storage-cpu-us/op=%.1f", float64(c)/float64(time.Microsecond))
	}
	if c := r.ClientCPUPerOp(); c >= 0 {
		fmt.Fprintf(&b, " client-cpu-us/op=%.1f", float64(c)/float64(time.Microsecond))
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64) + "ms"
}

// Client sends raw DynamoDB API requests to one endpoint.
type Client struct {
	endpoint string
	http     *http.Client
	date     string
	auth     string
	creds    *aws.Credentials // sign each request when set
	signer   *v4.Signer
}

// SignWith makes c sign every request with SigV4 for key and secret
// (region us-east-1), instead of the static unverifiable header.
func (c *Client) SignWith(key, secret string) {
	c.creds = &aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}
	c.signer = v4.NewSigner()
}

// NewClient returns a client with up to conns keep-alive connections.
func NewClient(endpoint string, conns int) *Client {
	if conns < 1 {
		conns = 1
	}
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	now := time.Now().UTC()
	return &Client{
		endpoint: strings.TrimRight(endpoint, "/") + "/",
		http:     &http.Client{Transport: tr, Timeout: 60 * time.Second},
		date:     now.Format("20060102T150405Z"),
		auth: "AWS4-HMAC-SHA256 Credential=load/" + now.Format("20060102") +
			"/us-east-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" +
			strings.Repeat("0", 64),
	}
}

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

func (c *Client) header(op string) http.Header {
	return http.Header{
		"Content-Type":  {"application/x-amz-json-1.0"},
		"X-Amz-Target":  {"DynamoDB_20120810." + op},
		"X-Amz-Date":    {c.date},
		"Authorization": {c.auth},
	}
}

// StatusError is a non-200 answer.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body) }

// do sends one request and returns the response body of a 200 answer.
func (c *Client) do(ctx context.Context, hdr http.Header, body []byte, keep bool) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = hdr
	if c.creds != nil {
		sum := sha256.Sum256(body)
		hdr.Del("Authorization")
		if err := c.signer.SignHTTP(ctx, *c.creds, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
			return nil, err
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, &StatusError{Status: resp.StatusCode, Body: strings.TrimSpace(string(msg))}
	}
	if keep {
		return io.ReadAll(resp.Body)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return nil, err
}

// Call sends one operation with a JSON body and returns the answer's body.
func (c *Client) Call(ctx context.Context, op, body string) ([]byte, error) {
	return c.do(ctx, c.header(op), []byte(body), true)
}

// Setup creates the table (string hash key "pk", string range key "sk",
// on-demand) unless it exists, waits until it is ACTIVE and writes items
// items with PutItem, conns at a time. Item i has pk PartitionKey(i/10) and
// sk SortKey(i%10).
func Setup(ctx context.Context, c *Client, table string, items, conns int) error {
	create := `{"TableName":` + strconv.Quote(table) + `,` +
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],` +
		`"BillingMode":"PAY_PER_REQUEST"}`
	if _, err := c.Call(ctx, "CreateTable", create); err != nil {
		var se *StatusError
		if !errors.As(err, &se) || !strings.Contains(se.Body, "ResourceInUseException") {
			return fmt.Errorf("CreateTable %s: %w", table, err)
		}
	}
	if err := WaitActive(ctx, c, table, 60*time.Second); err != nil {
		return err
	}
	if items <= 0 {
		return nil
	}
	if conns < 1 {
		conns = 1
	}
	var next atomic.Int64
	errc := make(chan error, conns)
	for w := 0; w < conns; w++ {
		go func() {
			b := newBodies(table, "")
			body := b.put.clone()
			hdr := c.header(OpPutItem)
			for {
				i := int(next.Add(1) - 1)
				if i >= items {
					errc <- nil
					return
				}
				body.set(0, i/ItemsPerPartition)
				body.set(1, i%ItemsPerPartition)
				if _, err := c.do(ctx, hdr, body.buf, false); err != nil {
					next.Store(int64(items)) // stop the others
					errc <- fmt.Errorf("preload item %d: %w", i, err)
					return
				}
			}
		}()
	}
	var first error
	for w := 0; w < conns; w++ {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	// The last item must be readable.
	last := items - 1
	out, err := c.Call(ctx, OpGetItem, `{"TableName":`+strconv.Quote(table)+`,"ConsistentRead":true,"Key":{"pk":{"S":"`+
		PartitionKey(last/ItemsPerPartition)+`"},"sk":{"S":"`+SortKey(last%ItemsPerPartition)+`"}}}`)
	if err != nil {
		return fmt.Errorf("read back item %d: %w", last, err)
	}
	if !strings.Contains(string(out), `"Item"`) {
		return fmt.Errorf("read back item %d: not found after preload", last)
	}
	return nil
}

// WaitActive polls DescribeTable until the table is ACTIVE.
func WaitActive(ctx context.Context, c *Client, table string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		out, err := c.Call(ctx, "DescribeTable", `{"TableName":`+strconv.Quote(table)+`}`)
		if err != nil {
			return fmt.Errorf("DescribeTable %s: %w", table, err)
		}
		if strings.Contains(string(out), `"TableStatus":"ACTIVE"`) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("table %s not ACTIVE after %s", table, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Run runs cfg.Op closed-loop: each of cfg.Concurrency workers sends a
// request, waits for the answer, and sends the next, for cfg.Warmup
// (unmeasured) and then cfg.Duration. It fails if the table is not there or
// more than 1% of requests fail.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.check(); err != nil {
		return Result{}, err
	}
	c := NewClient(cfg.Endpoint, cfg.Concurrency)
	defer c.Close()
	if cfg.AccessKeyID != "" {
		c.SignWith(cfg.AccessKeyID, cfg.SecretAccessKey)
	}
	if err := WaitActive(ctx, c, cfg.Table, 10*time.Second); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{cfg: cfg, c: c, hists: make([]*hdrhistogram.Histogram, cfg.Concurrency), late: make([]int64, cfg.Concurrency),
		tmpl:       newBodies(cfg.Table, strconv.FormatInt(time.Now().UnixNano()%1e12, 36)),
		partitions: (cfg.Items + ItemsPerPartition - 1) / ItemsPerPartition}
	r.start = time.Now()
	if cfg.Warmup <= 0 {
		r.measuring.Store(true)
	}
	var wg sync.WaitGroup
	for w := range cfg.Concurrency {
		wg.Go(func() { r.hists[w], r.late[w] = r.worker(ctx, w) })
	}
	if cfg.Warmup > 0 {
		r.wait(ctx, cfg.Warmup, false)
		r.measuring.Store(true)
	}
	cpu0, cpuOK := ProcessCPU(cfg.ServerPID)
	self0, selfOK := ProcessCPU(os.Getpid())
	store0, storeOK := processesCPU(cfg.StoragePIDs)
	start := time.Now()
	r.wait(ctx, cfg.Duration, true)
	// Stop counting first, then let in-flight requests finish.
	r.measuring.Store(false)
	elapsed := time.Since(start)
	cpu1, cpuOK1 := ProcessCPU(cfg.ServerPID)
	self1, selfOK1 := ProcessCPU(os.Getpid())
	store1, storeOK1 := processesCPU(cfg.StoragePIDs)
	r.done.Store(true)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		cancel()
		<-finished
	}
	res := r.result(elapsed)
	if cpuOK && cpuOK1 {
		res.ServerCPU = cpu1 - cpu0
	}
	if selfOK && selfOK1 {
		res.ClientCPU = self1 - self0
	}
	if storeOK && storeOK1 {
		res.StorageCPU = store1 - store0
	}
	return r.finish(res)
}

// check refuses a configuration Run cannot run.
func (cfg *Config) check() error {
	switch {
	case !slices.Contains(Ops, cfg.Op):
		return fmt.Errorf("unknown operation %q (want one of %s)", cfg.Op, strings.Join(Ops, ", "))
	case cfg.Concurrency < 1:
		return errors.New("concurrency must be at least 1")
	case cfg.Duration <= 0:
		return errors.New("duration must be positive")
	case cfg.Rate < 0:
		return errors.New("rate must not be negative")
	case cfg.Op == OpBatchGetItem && cfg.Items < BatchSize:
		return fmt.Errorf("%s needs at least %d preloaded items (--items)", cfg.Op, BatchSize)
	case !writesFresh(cfg.Op) && cfg.Items < 1:
		return fmt.Errorf("%s needs preloaded items (--items > 0)", cfg.Op)
	}
	return nil
}

// run is the state one Run shares with its workers.
type run struct {
	cfg        Config
	c          *Client
	tmpl       bodies
	partitions int

	measuring, done   atomic.Bool
	okCount, errCount atomic.Int64
	firstErr          atomic.Pointer[string]
	hists             []*hdrhistogram.Histogram // latencies by worker, set when the worker ends
	late              []int64                   // open loop: late requests by worker
	start             time.Time                 // open loop: when the first requests were due
	abort             error                     // why the run stopped early
}

// worker sends requests until the run is done and returns the latencies
// it measured and, open loop, how many requests it sent late.
func (r *run) worker(ctx context.Context, w int) (*hdrhistogram.Histogram, int64) {
	rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
	next := r.requests(w, rng)
	hist := newHistogram()
	var late int64
	var interval time.Duration
	due := r.start
	if r.cfg.Rate > 0 {
		interval = time.Duration(float64(r.cfg.Concurrency) * float64(time.Second) / r.cfg.Rate)
		due = due.Add(time.Duration(w) * interval / time.Duration(r.cfg.Concurrency))
	}
	for seq := 0; !r.done.Load(); seq++ {
		hdr, body := next(seq)
		start := time.Now()
		if interval > 0 {
			if wait := due.Sub(start); wait > 0 {
				time.Sleep(wait)
			} else if -wait > time.Millisecond && r.measuring.Load() {
				late++
			}
			start = due
			due = due.Add(interval)
		}
		_, err := r.c.do(ctx, hdr, body, false)
		d := time.Since(start)
		if r.done.Load() && err != nil && ctx.Err() != nil {
			break // cut off at the end of the run
		}
		if !r.measuring.Load() {
			continue
		}
		if err != nil {
			r.errCount.Add(1)
			msg := err.Error()
			r.firstErr.CompareAndSwap(nil, &msg)
			continue
		}
		r.okCount.Add(1)
		_ = hist.RecordValue(min(int64(d), maxLatency))
	}
	return hist, late
}

// wait lets the workers run for d, or until ctx ends or (with check) the
// error rate aborts the run.
func (r *run) wait(ctx context.Context, d time.Duration, check bool) {
	end := time.Now().Add(d)
	for r.abort == nil {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		select {
		case <-ctx.Done():
			r.abort = ctx.Err()
			return
		case <-time.After(min(left, 100*time.Millisecond)):
		}
		if check {
			ok, bad := r.okCount.Load(), r.errCount.Load()
			if n := ok + bad; n >= minForAbort && float64(bad) > maxErrorRate*float64(n) {
				r.abort = errorRate(ok, bad, r.firstErr.Load())
			}
		}
	}
}

// result is the run's Result but for its CPU times and latencies.
func (r *run) result(elapsed time.Duration) Result {
	res := Result{
		Op:          r.cfg.Op,
		Concurrency: r.cfg.Concurrency,
		Elapsed:     elapsed,
		Ops:         r.okCount.Load(),
		Errors:      r.errCount.Load(),
		ServerCPU:   -1,
		ClientCPU:   -1,
		StorageCPU:  -1,
	}
	if p := r.firstErr.Load(); p != nil {
		res.FirstError = *p
	}
	return res
}

// finish adds the latencies, once every worker has ended, and judges the
// run.
func (r *run) finish(res Result) (Result, error) {
	all := newHistogram()
	for w, h := range r.hists {
		if h != nil {
			all.Merge(h)
		}
		res.Late += r.late[w]
	}
	res.Rate = r.cfg.Rate
	res.P50 = time.Duration(all.ValueAtQuantile(50))
	res.P99 = time.Duration(all.ValueAtQuantile(99))
	res.P999 = time.Duration(all.ValueAtQuantile(99.9))
	res.Max = time.Duration(all.Max())
	if r.abort != nil {
		return res, r.abort
	}
	if n := res.Ops + res.Errors; n > 0 && float64(res.Errors) > maxErrorRate*float64(n) {
		return res, errorRate(res.Ops, res.Errors, r.firstErr.Load())
	}
	if res.Ops == 0 {
		return res, errors.New("no request completed")
	}
	return res, nil
}

// maxLatency is the largest latency the histograms tell apart; longer ones
// are recorded as this. Latencies are kept to 3 significant digits from 1 µs.
const maxLatency = int64(5 * time.Minute)

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(int64(time.Microsecond), maxLatency, 3)
}

func errorRate(ok, bad int64, first *string) error {
	msg := ""
	if first != nil {
		msg = "; first: " + *first
	}
	return fmt.Errorf("aborted: %d of %d requests failed (more than 1%%)%s", bad, ok+bad, msg)
}

// ProcessCPU returns the user + system CPU time process pid has used, from
// /proc/PID/stat (Linux). ok is false for pid <= 0 or when it cannot be read.
func ProcessCPU(pid int) (d time.Duration, ok bool) {
	if pid <= 0 {
		return 0, false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStatCPU(string(stat))
}

// processesCPU is the CPU time of all of pids, from ProcessCPU; ok is false
// for none or when one cannot be read.
func processesCPU(pids []int) (total time.Duration, ok bool) {
	for _, pid := range pids {
		d, ok := ProcessCPU(pid)
		if !ok {
			return 0, false
		}
		total += d
	}
	return total, len(pids) > 0
}

// parseStatCPU reads utime and stime (fields 14 and 15, in clock ticks of
// USER_HZ = 100 on Linux) from a /proc/PID/stat line. The command name,
// field 2, is parenthesised and may hold spaces and parentheses.
func parseStatCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
