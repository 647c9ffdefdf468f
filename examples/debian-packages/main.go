// Command debian-packages loads this machine's Debian package indexes into a
// DynamoDB table and checks that what comes back matches the source.
//
// It reads every Packages index APT keeps under /var/lib/apt/lists (plain or
// compressed), creates a table keyed by Package (HASH) and Version (RANGE) with
// a global secondary index on Section, writes every distinct
// (Package, Version) record with BatchWriteItem from several goroutines
// (retrying UnprocessedItems), then verifies it with Scan (Select=COUNT,
// paginated, and a parallel scan of every key), Query, GetItem and the index.
//
//	go run ./examples/debian-packages -endpoint http://127.0.0.1:8000
//
// It works against extenddb or any other DynamoDB endpoint.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Config is what one run is told.
type Config struct {
	Endpoint string // DynamoDB endpoint URL
	ListsDir string // where the Packages indexes are
	Table    string // table to create (must not exist)
	Workers  int    // concurrent BatchWriteItem callers
	GSI      bool   // create and check the Section index
	Keep     bool   // leave the table in place afterwards
	Out      io.Writer
}

// Report is what one run measured.
type Report struct {
	Files         int
	Stanzas       int           // stanzas read, duplicates included
	Records       int           // distinct (Package, Version) pairs
	Batches       int           // BatchWriteItem calls, retries included
	Retried       int           // items that came back in UnprocessedItems
	LoadTime      time.Duration // from first to last BatchWriteItem
	RecordsPerSec float64
	ScanCount     int // Scan Select=COUNT total
	ScanPages     int
	Checks        int // individual checks passed
}

func main() {
	cfg := Config{Out: os.Stdout}
	flag.StringVar(&cfg.Endpoint, "endpoint", envOr("EXTENDDB_ENDPOINT", "http://127.0.0.1:8000"), "DynamoDB endpoint URL (default $EXTENDDB_ENDPOINT or http://127.0.0.1:8000)")
	flag.StringVar(&cfg.ListsDir, "lists", "/var/lib/apt/lists", "directory holding APT's Packages indexes")
	flag.StringVar(&cfg.Table, "table", fmt.Sprintf("debian-packages-%d", time.Now().Unix()), "table to create")
	flag.IntVar(&cfg.Workers, "workers", 8, "concurrent BatchWriteItem callers")
	flag.BoolVar(&cfg.GSI, "gsi", true, "create a global secondary index on Section and check it")
	flag.BoolVar(&cfg.Keep, "keep", false, "keep the table afterwards (default: delete it)")
	flag.Parse()
	if _, err := run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "debian-packages:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// run reads the indexes, loads them, verifies the table and prints a summary.
func run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	start := time.Now()
	data, err := readDataset(cfg.ListsDir)
	if err != nil {
		return nil, err
	}
	rep := &Report{Files: len(data.Files), Stanzas: data.Stanzas, Records: len(data.Records)}
	fmt.Fprintf(cfg.Out, "read %d stanzas (%d distinct Package/Version) from %d index files in %s\n",
		rep.Stanzas, rep.Records, rep.Files, time.Since(start).Round(time.Millisecond))

	c := newClient(cfg.Endpoint, cfg.Workers)
	if err := createTable(ctx, c, cfg.Table, cfg.GSI); err != nil {
		return rep, err
	}
	if !cfg.Keep {
		defer func() {
			if err := deleteTable(context.Background(), c, cfg.Table); err != nil {
				fmt.Fprintf(cfg.Out, "warning: delete table %s: %v\n", cfg.Table, err)
			}
		}()
	}

	if err := load(ctx, c, cfg, data, rep); err != nil {
		return rep, err
	}
	fmt.Fprintf(cfg.Out, "loaded %d records in %s with %d workers: %.0f records/s (%d BatchWriteItem calls, %d items retried)\n",
		rep.Records, rep.LoadTime.Round(time.Millisecond), cfg.Workers, rep.RecordsPerSec, rep.Batches, rep.Retried)

	vstart := time.Now()
	if err := verify(ctx, c, cfg, data, rep); err != nil {
		return rep, fmt.Errorf("verify: %w", err)
	}
	fmt.Fprintf(cfg.Out, "verified: %d checks passed in %s (Scan COUNT %d over %d pages)\n",
		rep.Checks, time.Since(vstart).Round(time.Millisecond), rep.ScanCount, rep.ScanPages)
	return rep, nil
}

// newClient returns an SDK client for endpoint. Credentials are static (an
// emulator does not check them; against AWS use the default chain instead).
// The standard retryer retries throttling and transient errors with backoff,
// without a client-side retry quota.
func newClient(endpoint string, workers int) *dynamodb.Client {
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConnsPerHost = workers * 2
	})
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("example", "example", ""),
		HTTPClient:   httpClient,
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 10
			o.RateLimiter = ratelimit.None // no client-side retry quota
		}),
	})
}

var errCheck = errors.New("check failed")

func checkf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errCheck}, args...)...)
}
