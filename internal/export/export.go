// Package export carries out ExportTableToPointInTime as jobs of
// internal/jobs: full exports of a table as it was at a time, and
// incremental exports of its changes between two times, both read from the
// table's items and its point in time recovery change history
// (storage.HistoryLabel), written in DynamoDB's S3 export layout
// (internal/dataformat) under an export root on the filesystem, where an
// S3 bucket is a directory. See docs/backups.md and
// docs/adr/0013b-exports.md.
package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// Job kinds: the exports, and the client tokens that make a start
// idempotent (records that are never run).
const (
	Kind      = "export"
	KindToken = "export-token"
)

// Errors of the service.
var (
	ErrNotFound = errors.New("export: not found")
	// ErrConflict is Start's error for a client token already used by a
	// request with other parameters.
	ErrConflict = errors.New("export: client token used by another request")
)

// Params are what an export was asked to do, as the operation validated
// and completed them.
type Params struct {
	ExportArn string
	TableArn  string
	TableID   string
	TableName string
	// ExportType is FULL_EXPORT or INCREMENTAL_EXPORT; TypeGiven says
	// whether the request named it (DynamoDB describes it only then).
	ExportType string
	TypeGiven  bool
	// ExportTime is the instant a full export reads.
	ExportTime time.Time
	// From (inclusive), To (exclusive) and ViewType of an incremental
	// export.
	From, To time.Time
	ViewType string

	ClientToken    string
	S3Bucket       string
	S3Prefix       *string `json:",omitempty"`
	S3BucketOwner  *string `json:",omitempty"`
	S3SseAlgorithm *string `json:",omitempty"`
	S3SseKmsKeyID  *string `json:",omitempty"`
	ExportFormat   string
	StartTime      time.Time
	// Fingerprint identifies the request's parameters other than its
	// client token: a second request with the same token must match it.
	Fingerprint string
}

// Prefix is the S3 prefix, "" when none was given.
func (p *Params) Prefix() string {
	if p.S3Prefix == nil {
		return ""
	}
	return *p.S3Prefix
}

// Export is one export as the operations report it.
type Export struct {
	ID     string
	Params Params
	// State is the job's: PENDING and RUNNING are IN_PROGRESS, SUCCEEDED is
	// COMPLETED, FAILED and CANCELLED are FAILED.
	State          string
	FailureCode    string
	FailureMessage string
	EndTime        time.Time
	ItemCount      int64
	BilledSize     int64
}

// Status is DynamoDB's ExportStatus.
func (x *Export) Status() string {
	switch x.State {
	case jobs.Pending, jobs.Running:
		return "IN_PROGRESS"
	case jobs.Succeeded:
		return "COMPLETED"
	}
	return "FAILED"
}

// ManifestKey is the S3 key of the export's manifest-summary.json.
func (x *Export) ManifestKey() string {
	return dataformat.ExportKey(x.Params.Prefix(), x.ID) + "/" + dataformat.ManifestSummaryFile
}

// Service starts, runs and describes exports.
type Service struct {
	store storage.Backend
	jobs  *jobs.Store
	root  string
	log   *slog.Logger
	kick  func()
	now   func() time.Time

	// MinIncrementalPeriod is the shortest period of an incremental
	// export: 15 minutes, as in DynamoDB, unless configured otherwise
	// (for tests that cannot wait that long).
	MinIncrementalPeriod time.Duration
	// PageDelay is a pause after every checkpoint of a running export
	// (every 1,000 items), to watch or interrupt one; 0 = none.
	PageDelay time.Duration
}

// DefaultMinIncrementalPeriod is DynamoDB's shortest incremental export
// period.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.HowItWorks.html
const DefaultMinIncrementalPeriod = 15 * time.Minute

// MaxIncrementalPeriod is DynamoDB's longest incremental export period.
const MaxIncrementalPeriod = 24 * time.Hour

// New returns the service over store, writing exports under root: an
// export to bucket B with prefix P goes to root/B/P/AWSDynamoDB/<id>.
func New(store storage.Backend, js *jobs.Store, root string, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: store, jobs: js, root: root, log: log, kick: func() {}, now: time.Now,
		MinIncrementalPeriod: DefaultMinIncrementalPeriod}
}

// Root is the directory S3 buckets map to.
func (s *Service) Root() string { return s.root }

// Register adds the export handler to r, which the service then wakes for
// new exports.
func (s *Service) Register(r *jobs.Runner) {
	r.Register(Kind, s.run)
	s.kick = r.Kick
}

// dir is the directory of an export.
func (s *Service) dir(p *Params, id string) string {
	return filepath.Join(s.root, p.S3Bucket, filepath.FromSlash(dataformat.ExportKey(p.Prefix(), id)))
}

// NewID returns a new export ID: the start time in milliseconds, zero
// padded to 14 digits, and 8 random hex digits, as DynamoDB's look
// ("01234567890123-a1b2c3d4").
func NewID(now time.Time) string { return fmt.Sprintf("%014d-%08x", now.UnixMilli(), rand.Uint32()) }

type tokenParams struct {
	ExportID    string
	Fingerprint string
}

// tokenID names the record of a client token of account.
func tokenID(account, token string) string {
	h := sha256.Sum256([]byte(account + "\x00" + token))
	return hex.EncodeToString(h[:16])
}

// Start records export id with p and starts it, unless p.ClientToken was
// used within the last 8 hours: then it returns that export when its
// request had the same fingerprint, ErrConflict otherwise.
func (s *Service) Start(ctx context.Context, account, id string, p *Params) (*Export, error) {
	tid := tokenID(account, p.ClientToken)
	for {
		_, err := s.jobs.Create(ctx, KindToken, tid, account, tokenParams{ExportID: id, Fingerprint: p.Fingerprint})
		if err == nil {
			break
		}
		if !errors.Is(err, jobs.ErrExists) {
			return nil, err
		}
		x, err := s.byToken(ctx, account, tid, p.Fingerprint)
		if errors.Is(err, errTokenPending) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
			continue
		}
		if x != nil || err != nil {
			return x, err
		}
	}
	j, err := s.jobs.Create(ctx, Kind, id, account, p)
	if err != nil {
		s.jobs.Delete(context.WithoutCancel(ctx), KindToken, tid)
		return nil, err
	}
	s.kick()
	return fromJob(j)
}

// tokenGrace is how long a client token may name an export not recorded
// yet: the request that recorded the token is creating it. A token older
// than that without its export was left by a crash between the two.
const tokenGrace = 10 * time.Second

// errTokenPending is byToken's error for a token whose export is being
// created: Start asks again shortly.
var errTokenPending = errors.New("export: client token's export being created")

// byToken returns the export of a used client token, ErrConflict when its
// request differed, errTokenPending while its export is being created, or
// nil, nil after removing a token record that is expired or names no
// export past tokenGrace (Start then records the token again).
func (s *Service) byToken(ctx context.Context, account, tid, fingerprint string) (*Export, error) {
	tj, err := s.jobs.Get(ctx, KindToken, tid)
	if errors.Is(err, jobs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var tp tokenParams
	if err := tj.DecodeParams(&tp); err != nil {
		return nil, err
	}
	if s.now().Sub(tj.CreatedAt) < jobs.ClientTokenLifetime {
		x, err := s.Get(ctx, account, tp.ExportID)
		switch {
		case err == nil && tp.Fingerprint == fingerprint:
			return x, nil
		case err == nil:
			return nil, ErrConflict
		case !errors.Is(err, ErrNotFound):
			return nil, err
		case time.Since(tj.CreatedAt) < tokenGrace:
			return nil, errTokenPending
		}
	}
	return nil, s.jobs.Delete(ctx, KindToken, tid)
}

// cursor is an export's durable state between checkpoints: the phase it
// reached and, once done, its results.
type cursor struct {
	Phase      string    `json:",omitempty"`
	EndTime    time.Time `json:",omitempty"`
	ItemCount  int64     `json:",omitempty"`
	BilledSize int64     `json:",omitempty"`
}

func fromJob(j *jobs.Job) (*Export, error) {
	x := &Export{ID: j.ID, State: j.State, ItemCount: j.Progress.Done, BilledSize: j.Progress.Bytes}
	var c cursor
	if err := j.Decode(&x.Params, &c); err != nil {
		return nil, err
	}
	if !c.EndTime.IsZero() {
		x.EndTime, x.ItemCount, x.BilledSize = c.EndTime, c.ItemCount, c.BilledSize
	} else if j.Ended() {
		x.EndTime = j.EndedAt
	}
	if j.State == jobs.Failed || j.State == jobs.Cancelled {
		x.FailureCode, x.FailureMessage = parseFailure(j.Error)
	}
	return x, nil
}

// Get returns export id of account; ErrNotFound if there is none.
func (s *Service) Get(ctx context.Context, account, id string) (*Export, error) {
	return jobs.GetAs(ctx, s.jobs, Kind, id, account, fromJob, ErrNotFound)
}

// List returns the exports of account, of the table tableArn unless it is
// "", newest first (by ExportArn, descending).
func (s *Service) List(ctx context.Context, account, tableArn string) ([]*Export, error) {
	all, err := jobs.ListAs(ctx, s.jobs, Kind, account, fromJob)
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(x *Export) bool { return tableArn != "" && x.Params.TableArn != tableArn })
	slices.SortFunc(out, func(a, b *Export) int { return strings.Compare(b.Params.ExportArn, a.Params.ExportArn) })
	return out, nil
}
