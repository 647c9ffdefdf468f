// Package importer carries out DynamoDB's ImportTable as a job of
// internal/jobs: it creates the table (CREATING until the import ends),
// reads the source files (DYNAMODB_JSON, ION or CSV; uncompressed, GZIP or
// ZSTD; internal/dataformat) from a directory standing for the S3 bucket,
// writes their items in batches, counts what it processed, imported and
// refused, and logs each refused record to a file in the place of
// CloudWatch Logs. See docs/backups.md and
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.HowItWorks.html
package importer

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// Kind is the job kind of an import.
const Kind = "import"

// Errors of Start.
var (
	// ErrConflict: the client token was used by an import with other
	// parameters (ImportConflictException).
	ErrConflict = errors.New("importer: client token used with other parameters")
	ErrNotFound = errors.New("importer: import not found")
)

// Source is ImportTable's S3BucketSource.
type Source struct {
	S3Bucket      string
	S3KeyPrefix   string `json:",omitempty"`
	S3BucketOwner string `json:",omitempty"`
}

// Params are an import's parameters: what ImportTable asked for.
type Params struct {
	ImportArn   string
	ClientToken string `json:",omitempty"`
	TableArn    string
	Source      Source
	InputFormat string
	// Compression is InputCompressionType (NONE when not given).
	Compression string
	// Csv is InputFormatOptions.Csv as given (nil without it).
	Csv *dataformat.CSVOptions `json:",omitempty"`
	// FormatOptions and Creation are the request's InputFormatOptions and
	// TableCreationParameters as given, reported back by DescribeImport.
	FormatOptions json.RawMessage `json:",omitempty"`
	Creation      json.RawMessage `json:",omitempty"`
	// Table is the table to create.
	Table       storage.Table
	LogGroupArn string
	StartTime   time.Time
}

// Counts are an import's counters, as DescribeImport reports them.
type Counts struct {
	ProcessedItems int64 // records read, imported or not
	ImportedItems  int64
	Errors         int64
	ProcessedBytes int64 // bytes of the source files read, as stored
}

// Import is one import as the operations report it.
type Import struct {
	ID     string
	Params Params
	// State is the job's: PENDING and RUNNING are IN_PROGRESS.
	State          string
	Counts         Counts
	EndTime        time.Time
	FailureMessage string
	CancelAsked    bool
}

// Service starts, describes and lists imports.
type Service struct {
	store   storage.Backend
	jobs    *jobs.Store
	root    string // the export root: <root>/<bucket>/<key>
	logs    string // where the log files of refused records go
	batched bool
	log     *slog.Logger
	kick    func()
	// starting serialises the starts of this process, so that requests
	// with one client token arriving together make one import.
	starting sync.Mutex
}

// Config configures a Service.
type Config struct {
	// Root is the directory standing for S3: bucket B is <Root>/B.
	Root string
	// Logs is the directory of the per-import log files of refused
	// records; default <Root>/.import-logs.
	Logs string
	// Batched writes a batch of items in one TransactWrite (SQLite and
	// PostgreSQL, where one transaction of many rows is cheapest); false
	// writes them as concurrent single-item writes (Cassandra).
	Batched bool
	Log     *slog.Logger
}

// New returns the service over store.
func New(store storage.Backend, js *jobs.Store, cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Logs == "" {
		cfg.Logs = filepath.Join(cfg.Root, ".import-logs")
	}
	return &Service{store: store, jobs: js, root: cfg.Root, logs: cfg.Logs, batched: cfg.Batched, log: cfg.Log, kick: func() {}}
}

// Register adds the import handler to r, which the service then wakes for
// new imports.
func (s *Service) Register(r *jobs.Runner) {
	r.Register(Kind, s.run)
	s.kick = r.Kick
}

// LogPath is the log file of the records import id of account refused.
func (s *Service) LogPath(account, id string) string {
	return filepath.Join(s.logs, safePath(account), id+".log")
}

// Start creates the import job and then p.Table (CREATING), which the job
// fills (jobs.CreateFilling). With a client token already used in the
// last eight hours it returns that import when the parameters are the same
// and ErrConflict otherwise. Errors: ErrConflict, storage.ErrTableExists,
// backend errors.
func (s *Service) Start(ctx context.Context, account, id string, p Params) (*Import, error) {
	s.starting.Lock()
	defer s.starting.Unlock()
	if p.ClientToken != "" {
		if prev, err := s.byToken(ctx, account, &p); prev != nil || err != nil {
			return prev, err
		}
	}
	p.Table.Account = account
	t := p.Table
	j, err := s.jobs.CreateFilling(ctx, s.store, Kind, id, p, &t)
	if err != nil {
		if errors.Is(err, storage.ErrTableExists) && p.ClientToken != "" {
			// Another process may have started the same request.
			if prev, perr := s.byToken(ctx, account, &p); prev != nil || perr != nil {
				return prev, perr
			}
		}
		return nil, err
	}
	s.kick()
	return importOf(j)
}

// byToken returns the import started in the eight hours before p's
// StartTime with p's client token, or ErrConflict if its parameters
// differ.
func (s *Service) byToken(ctx context.Context, account string, p *Params) (*Import, error) {
	all, err := s.List(ctx, account)
	if err != nil {
		return nil, err
	}
	for _, im := range all {
		if im.Params.ClientToken != p.ClientToken || p.StartTime.Sub(im.Params.StartTime) > jobs.ClientTokenLifetime {
			continue
		}
		if !sameRequest(&im.Params, p) {
			return nil, ErrConflict
		}
		return im, nil
	}
	return nil, nil
}

func sameRequest(a, b *Params) bool {
	return a.Source == b.Source && a.InputFormat == b.InputFormat && a.Compression == b.Compression &&
		string(a.FormatOptions) == string(b.FormatOptions) && string(a.Creation) == string(b.Creation)
}

// Get returns an import of account by ID. Errors: ErrNotFound.
func (s *Service) Get(ctx context.Context, account, id string) (*Import, error) {
	return jobs.GetAs(ctx, s.jobs, Kind, id, account, importOf, ErrNotFound)
}

// List returns account's imports, oldest first.
func (s *Service) List(ctx context.Context, account string) ([]*Import, error) {
	out, err := jobs.ListAs(ctx, s.jobs, Kind, account, importOf)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *Import) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func importOf(j *jobs.Job) (*Import, error) {
	im := &Import{ID: j.ID, State: j.State, EndTime: j.EndedAt, FailureMessage: j.Error, CancelAsked: j.CancelRequested}
	var c cursor
	if err := j.Decode(&im.Params, &c); err != nil {
		return nil, err
	}
	im.Counts = c.Counts
	return im, nil
}

// safePath maps an account namespace to a relative path of safe segments.
func safePath(account string) string {
	var segs []string
	for _, seg := range strings.Split(account, "/") {
		ok := seg != "" && seg != "." && seg != ".."
		for _, c := range seg {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				ok = false
			}
		}
		if !ok {
			seg = "x" + hex.EncodeToString([]byte(seg))
		}
		segs = append(segs, seg)
	}
	return filepath.Join(segs...)
}
