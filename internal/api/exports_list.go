package api

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/protocol"
)

// DescribeExport and ListExports. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeExport.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListExports.html

type incrementalExportSpecOut struct {
	ExportFromTime epochSeconds
	ExportToTime   epochSeconds
	ExportViewType string
}

type exportDescription struct {
	ExportArn                      string
	ExportStatus                   string
	StartTime                      epochSeconds
	EndTime                        *epochSeconds `json:"EndTime,omitempty"`
	ExportManifest                 string        `json:"ExportManifest,omitempty"`
	TableArn                       string
	TableId                        string
	ExportTime                     *epochSeconds `json:"ExportTime,omitempty"`
	ClientToken                    string
	S3Bucket                       string
	S3BucketOwner                  *string `json:"S3BucketOwner,omitempty"`
	S3Prefix                       *string `json:"S3Prefix,omitempty"`
	S3SseAlgorithm                 *string `json:"S3SseAlgorithm,omitempty"`
	S3SseKmsKeyId                  *string `json:"S3SseKmsKeyId,omitempty"`
	FailureCode                    string  `json:"FailureCode,omitempty"`
	FailureMessage                 string  `json:"FailureMessage,omitempty"`
	ExportFormat                   string
	BilledSizeBytes                *int64                    `json:"BilledSizeBytes,omitempty"`
	ItemCount                      *int64                    `json:"ItemCount,omitempty"`
	ExportType                     string                    `json:"ExportType,omitempty"`
	IncrementalExportSpecification *incrementalExportSpecOut `json:"IncrementalExportSpecification,omitempty"`
}

// describeExportOf is an export's ExportDescription. ExportType is given
// only when the request named it (DynamoDB leaves a default FULL_EXPORT
// out); EndTime once the export ended; ExportManifest, ItemCount and
// BilledSizeBytes once it completed.
func describeExportOf(x *export.Export) exportDescription {
	p := &x.Params
	d := exportDescription{ExportArn: p.ExportArn, ExportStatus: x.Status(), StartTime: epochSeconds(p.StartTime),
		TableArn: p.TableArn, TableId: p.TableID, ClientToken: p.ClientToken, S3Bucket: p.S3Bucket,
		S3BucketOwner: p.S3BucketOwner, S3Prefix: p.S3Prefix, S3SseAlgorithm: p.S3SseAlgorithm, S3SseKmsKeyId: p.S3SseKmsKeyID,
		FailureCode: x.FailureCode, FailureMessage: x.FailureMessage, ExportFormat: p.ExportFormat}
	if p.TypeGiven {
		d.ExportType = p.ExportType
	}
	if p.ExportType == dataformat.IncrementalExport {
		d.IncrementalExportSpecification = &incrementalExportSpecOut{ExportFromTime: epochSeconds(p.From),
			ExportToTime: epochSeconds(p.To), ExportViewType: p.ViewType}
	} else {
		at := epochSeconds(p.ExportTime)
		d.ExportTime = &at
	}
	if !x.EndTime.IsZero() {
		end := epochSeconds(x.EndTime)
		d.EndTime = &end
	}
	if d.ExportStatus == "COMPLETED" {
		n, size := x.ItemCount, x.BilledSize
		d.ExportManifest, d.ItemCount, d.BilledSizeBytes = x.ManifestKey(), &n, &size
	}
	return d
}

type describeExportInput struct {
	ExportArn *string
}

func (e *Engine) describeExport(ctx context.Context, r *protocol.Request) (any, error) {
	var in describeExportInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if c.notNull(in.ExportArn != nil, "exportArn") {
		c.lenRange(in.ExportArn, "exportArn", 37, 1024)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	svc, err := e.exportService()
	if err != nil {
		return nil, err
	}
	arn := *in.ExportArn
	_, id, ok := strings.Cut(arn, "/export/")
	if !ok || !strings.HasPrefix(arn, "arn:") {
		// "ValidationException: Invalid Export ARN", as
		// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_export.py
		// asserts against DynamoDB.
		return nil, ddberr.Validation("Invalid Export ARN: %s", arn)
	}
	x, err := svc.Get(ctx, e.account(r), id)
	if errors.Is(err, export.ErrNotFound) || (err == nil && x.Params.ExportArn != arn) {
		return nil, ddberr.ExportNotFound("Export not found: %s", arn)
	}
	if err != nil {
		return nil, err
	}
	return exportDescriptionOutput{describeExportOf(x)}, nil
}

type listExportsInput struct {
	TableArn   *string
	MaxResults *int64
	NextToken  *string
}

type exportSummary struct {
	ExportArn    string
	ExportStatus string
	ExportType   string
}

type listExportsOutput struct {
	ExportSummaries []exportSummary
	NextToken       string `json:"NextToken,omitempty"`
}

// defaultListExports is how many exports a page lists without MaxResults.
const defaultListExports = 25

func (e *Engine) listExports(ctx context.Context, r *protocol.Request) (any, error) {
	var in listExportsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	c.lenRange(in.TableArn, "tableArn", 1, 1024)
	c.intRange(in.MaxResults, "maxResults", 1, 25)
	if err := c.err(); err != nil {
		return nil, err
	}
	svc, err := e.exportService()
	if err != nil {
		return nil, err
	}
	after := ""
	if in.NextToken != nil {
		b, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || !strings.Contains(string(b), "/export/") {
			return nil, ddberr.Validation("Invalid NextToken provided for ListExports")
		}
		after = string(b)
	}
	filter := ""
	if in.TableArn != nil {
		filter = *in.TableArn
	}
	all, err := svc.List(ctx, e.account(r), filter)
	if err != nil {
		return nil, err
	}
	limit := defaultListExports
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	out := listExportsOutput{ExportSummaries: []exportSummary{}}
	for _, x := range all {
		if after != "" && x.Params.ExportArn >= after { // newest first: later pages hold smaller ARNs
			continue
		}
		if len(out.ExportSummaries) == limit {
			out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(out.ExportSummaries[limit-1].ExportArn))
			break
		}
		out.ExportSummaries = append(out.ExportSummaries, exportSummary{ExportArn: x.Params.ExportArn,
			ExportStatus: x.Status(), ExportType: x.Params.ExportType})
	}
	return out, nil
}
