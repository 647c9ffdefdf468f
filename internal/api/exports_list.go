package api

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/storage"
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
	id        string // the export's ID, from ExportArn
}

var describeExportOp = &controlOp[describeExportInput]{
	rules:   rules[describeExportInput]{lengthRule("exportArn", func(in *describeExportInput) *string { return in.ExportArn }, 37, 1024, true)},
	check:   (*Engine).checkExportArn,
	execute: (*Engine).describeExport,
}

// checkExportArn refuses the request when exports are not configured, then
// checks the form of its ExportArn, keeping the export's ID.
func (e *Engine) checkExportArn(c caller, in *describeExportInput) error {
	if err := exportsConfigured(e, c, in); err != nil {
		return err
	}
	arn := *in.ExportArn
	_, id, ok := strings.Cut(arn, "/export/")
	if !ok || !strings.HasPrefix(arn, "arn:") {
		// "ValidationException: Invalid Export ARN", as
		// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_export.py
		// asserts against DynamoDB.
		return ddberr.Validation("Invalid Export ARN: %s", arn)
	}
	in.id = id
	return nil
}

func (e *Engine) describeExport(ctx context.Context, c caller, in *describeExportInput, _ *storage.Table) (any, error) {
	arn := *in.ExportArn
	x, err := e.exports.Get(ctx, c.account, in.id)
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
	after      string // the ARN NextToken holds
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

var listExportsOp = &controlOp[listExportsInput]{
	rules: rules[listExportsInput]{
		lengthRule("tableArn", func(in *listExportsInput) *string { return in.TableArn }, 1, 1024, false),
		rangeRule("maxResults", func(in *listExportsInput) *int64 { return in.MaxResults }, 1, 25),
	},
	check:   (*Engine).checkListExports,
	execute: (*Engine).listExports,
}

// checkListExports refuses the request when exports are not configured,
// then reads the ARN its NextToken holds: the base64 of the last export
// listed.
func (e *Engine) checkListExports(c caller, in *listExportsInput) error {
	if err := exportsConfigured(e, c, in); err != nil {
		return err
	}
	if in.NextToken != nil {
		b, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || !strings.Contains(string(b), "/export/") {
			return ddberr.Validation("Invalid NextToken provided for ListExports")
		}
		in.after = string(b)
	}
	return nil
}

func (e *Engine) listExports(ctx context.Context, c caller, in *listExportsInput, _ *storage.Table) (any, error) {
	all, err := e.exports.List(ctx, c.account, valueOrZero(in.TableArn))
	if err != nil {
		return nil, err
	}
	// Newest first: later pages hold smaller ARNs.
	keep := func(x *export.Export) bool { return in.after == "" || x.Params.ExportArn < in.after }
	page, more := listPage(all, keep, pageSize(in.MaxResults, defaultListExports), func(x *export.Export) exportSummary {
		return exportSummary{ExportArn: x.Params.ExportArn, ExportStatus: x.Status(), ExportType: x.Params.ExportType}
	})
	out := listExportsOutput{ExportSummaries: page}
	if more {
		out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].ExportArn))
	}
	return out, nil
}
