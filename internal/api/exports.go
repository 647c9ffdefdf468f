package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/storage"
)

// ExportTableToPointInTime (this file), DescribeExport and ListExports
// (exports_list.go), served by internal/export. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html
// and docs/backups.md (where S3 buckets are on this server).

type incrementalExportSpecification struct {
	ExportFromTime *float64 `json:"ExportFromTime,omitempty"`
	ExportToTime   *float64 `json:"ExportToTime,omitempty"`
	ExportViewType *string  `json:"ExportViewType,omitempty"`
}

// exportTableInput is the request. Its JSON form without ClientToken is
// the fingerprint a repeated client token is checked against.
type exportTableInput struct {
	TableArn                       *string                         `json:"TableArn,omitempty"`
	ExportTime                     *float64                        `json:"ExportTime,omitempty"`
	ClientToken                    *string                         `json:"ClientToken,omitempty"`
	S3Bucket                       *string                         `json:"S3Bucket,omitempty"`
	S3BucketOwner                  *string                         `json:"S3BucketOwner,omitempty"`
	S3Prefix                       *string                         `json:"S3Prefix,omitempty"`
	S3SseAlgorithm                 *string                         `json:"S3SseAlgorithm,omitempty"`
	S3SseKmsKeyId                  *string                         `json:"S3SseKmsKeyId,omitempty"`
	ExportFormat                   *string                         `json:"ExportFormat,omitempty"`
	ExportType                     *string                         `json:"ExportType,omitempty"`
	IncrementalExportSpecification *incrementalExportSpecification `json:"IncrementalExportSpecification,omitempty"`
	tableName                      string                          // the table TableArn names
}

// The member patterns of ExportTableToPointInTime's request (ClientToken's
// is clientTokenPattern, imports.go).
var (
	s3BucketPattern      = regexp.MustCompile(`^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`)
	s3BucketOwnerPattern = regexp.MustCompile(`^[0-9]{12}$`)
)

func pattern(c *constraints, s *string, path string, re *regexp.Regexp, shown string) {
	if s != nil && !re.MatchString(*s) {
		c.add("Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: %s", *s, path, shown)
	}
}

// constraints checks the members' constraints, as DynamoDB reports them
// ("Value 'QWERTY' at 'exportFormat' failed to satisfy constraint: Member
// must satisfy enum value set: [ION, DYNAMODB_JSON]", as
// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_export.py
// quotes from DynamoDB).
func (in *exportTableInput) constraints(c *constraints) {
	if c.notNull(in.TableArn != nil, "tableArn") {
		c.lenRange(in.TableArn, "tableArn", 1, 1024)
	}
	if c.notNull(in.S3Bucket != nil, "s3Bucket") {
		pattern(c, in.S3Bucket, "s3Bucket", s3BucketPattern, `^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`)
		c.lenRange(in.S3Bucket, "s3Bucket", 0, 255)
	}
	pattern(c, in.ClientToken, "clientToken", clientTokenPattern, `^[^\$]+$`)
	pattern(c, in.S3BucketOwner, "s3BucketOwner", s3BucketOwnerPattern, `[0-9]{12}`)
	c.lenRange(in.S3Prefix, "s3Prefix", 1, 1024)
	c.enum(in.S3SseAlgorithm, "s3SseAlgorithm", "AES256", "KMS")
	c.lenRange(in.S3SseKmsKeyId, "s3SseKmsKeyId", 1, 2048)
	c.enum(in.ExportFormat, "exportFormat", "ION", "DYNAMODB_JSON")
	c.enum(in.ExportType, "exportType", dataformat.IncrementalExport, dataformat.FullExport)
	if s := in.IncrementalExportSpecification; s != nil {
		c.enum(s.ExportViewType, "incrementalExportSpecification.exportViewType", dataformat.NewImage, dataformat.NewAndOldImages)
	}
}

type exportDescriptionOutput struct {
	ExportDescription exportDescription
}

var exportTableToPointInTimeOp = &controlOp[exportTableInput]{
	rules:   rules[exportTableInput]{(*exportTableInput).constraints},
	check:   (*Engine).checkExport,
	table:   byBackupTable(func(in *exportTableInput) *string { return &in.tableName }),
	execute: (*Engine).exportTableToPointInTime,
}

// checkExport refuses the request when exports are not configured, then
// checks its S3Prefix and its TableArn, keeping the table's name.
func (e *Engine) checkExport(c caller, in *exportTableInput) error {
	if err := exportsConfigured(e, c, in); err != nil {
		return err
	}
	if err := checkS3Prefix(in.S3Prefix); err != nil {
		return err
	}
	name, ok := tableNameOfArn(*in.TableArn)
	if !ok {
		return ddberr.Validation("Invalid TableArn: Invalid ResourceArn provided as input %s", *in.TableArn)
	}
	in.tableName = name
	return nil
}

func (e *Engine) exportTableToPointInTime(ctx context.Context, c caller, in *exportTableInput, t *storage.Table) (any, error) {
	if t.PointInTimeRecovery == nil {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html#API_ExportTableToPointInTime_Errors
		return nil, ddberr.PointInTimeRecoveryUnavailable("Point in time recovery is not enabled for table '%s'", t.Name)
	}
	now := e.now()
	p, err := in.params(e.exports, earliestRestorable(t.PointInTimeRecovery, now), now)
	if err != nil {
		return nil, err
	}
	id := export.NewID(now)
	p.TableArn, p.TableID, p.TableName = e.tableArn(c.region, t), t.ID, t.Name
	p.ExportArn = p.TableArn + "/export/" + id
	x, err := e.exports.Start(ctx, c.account, id, p)
	if errors.Is(err, export.ErrConflict) {
		// "ExportConflictException: Duplicate request detected", as
		// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_export.py
		// asserts against DynamoDB.
		return nil, ddberr.ExportConflict("Duplicate request detected: an export with client token %s and other parameters exists", p.ClientToken)
	}
	if err != nil {
		return nil, err
	}
	return exportDescriptionOutput{describeExportOf(x)}, nil
}

// checkS3Prefix refuses a prefix with a "." or ".." segment: the prefix
// names directories under the export root and must stay inside its
// bucket's.
func checkS3Prefix(prefix *string) error {
	if prefix == nil {
		return nil
	}
	for _, seg := range strings.Split(*prefix, "/") {
		if seg == "." || seg == ".." || strings.ContainsRune(seg, 0) || strings.ContainsRune(seg, '\\') {
			return ddberr.Validation("Invalid S3Prefix: %s: a prefix segment may not be '.' or '..' or hold '\\' or NUL on this server", *prefix)
		}
	}
	return nil
}

// params completes the request's parameters with their defaults and checks
// its times against the recovery window [earliest, now]. Errors:
// InvalidExportTimeException "Export Time is invalid" (DynamoDB's text, as
// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_export.py
// quotes it), ValidationException for an incremental export without its
// specification.
func (in *exportTableInput) params(svc *export.Service, earliest, now time.Time) (*export.Params, error) {
	p := &export.Params{ExportType: dataformat.FullExport, ExportFormat: "DYNAMODB_JSON", StartTime: now,
		S3Bucket: *in.S3Bucket, S3Prefix: in.S3Prefix, S3BucketOwner: in.S3BucketOwner,
		S3SseAlgorithm: in.S3SseAlgorithm, S3SseKmsKeyID: in.S3SseKmsKeyId}
	if in.ExportType != nil {
		p.ExportType, p.TypeGiven = *in.ExportType, true
	}
	if in.ExportFormat != nil {
		p.ExportFormat = *in.ExportFormat
	}
	p.ClientToken = uuid.NewString()
	if in.ClientToken != nil {
		p.ClientToken = *in.ClientToken
	}
	fp := *in
	fp.ClientToken = nil
	b, _ := json.Marshal(fp)
	p.Fingerprint = string(b)
	if p.ExportType == dataformat.IncrementalExport {
		return p, in.incrementalPeriod(p, svc, earliest, now)
	}
	p.ExportTime = now
	if in.ExportTime != nil {
		p.ExportTime = exportTimeOf(*in.ExportTime)
	}
	if p.ExportTime.Before(earliest.Truncate(time.Second)) || p.ExportTime.After(now) {
		return nil, ddberr.InvalidExportTime("Export Time is invalid")
	}
	return p, nil
}

// incrementalPeriod sets the period and view type of an incremental
// export: ExportFromTime is required, ExportToTime defaults to now, and the
// period must lie in the recovery window and last 15 minutes to 24 hours
// (svc.MinIncrementalPeriod to export.MaxIncrementalPeriod).
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_IncrementalExportSpecification.html
func (in *exportTableInput) incrementalPeriod(p *export.Params, svc *export.Service, earliest, now time.Time) error {
	spec := in.IncrementalExportSpecification
	if spec == nil || spec.ExportFromTime == nil {
		return ddberr.Validation("IncrementalExportSpecification.ExportFromTime must be specified for an INCREMENTAL_EXPORT")
	}
	p.From, p.To, p.ViewType = exportTimeOf(*spec.ExportFromTime), now, dataformat.NewAndOldImages
	if spec.ExportToTime != nil {
		p.To = exportTimeOf(*spec.ExportToTime)
	}
	if spec.ExportViewType != nil {
		p.ViewType = *spec.ExportViewType
	}
	switch d := p.To.Sub(p.From); {
	case p.From.Before(earliest.Truncate(time.Second)) || p.To.After(now) || d <= 0:
		return ddberr.InvalidExportTime("Export Time is invalid")
	case d < svc.MinIncrementalPeriod:
		return ddberr.InvalidExportTime("Difference between export period's start and end times must be at least %s", minutes(svc.MinIncrementalPeriod))
	case d > export.MaxIncrementalPeriod:
		return ddberr.InvalidExportTime("Difference between export period's start and end times must be at most 24 hours")
	}
	return nil
}

func minutes(d time.Duration) string {
	if m := int64(d / time.Minute); d%time.Minute == 0 && m > 1 {
		return fmt.Sprintf("%d minutes", m)
	}
	return d.String()
}

// exportTimeOf converts a request's epoch-seconds number to a time rounded
// to the microsecond, so that a time sent with milliseconds is described
// back with the same milliseconds (1796149476.517 is not exact in binary).
func exportTimeOf(s float64) time.Time {
	return time.UnixMicro(int64(math.Round(s * 1e6)))
}
