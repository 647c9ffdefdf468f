package api

import (
	"context"
	"encoding/hex"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/importer"
	"github.com/extenddb/extenddb/internal/storage"
)

// ListImports. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListImports.html

type listImportsInput struct {
	TableArn  *string
	PageSize  *int64
	NextToken *string
	after     string // the ARN NextToken holds
}

type importSummary struct {
	ImportArn             string
	ImportStatus          string
	TableArn              string
	S3BucketSource        importer.Source
	CloudWatchLogGroupArn string
	InputFormat           string
	StartTime             epochSeconds
	EndTime               *epochSeconds `json:"EndTime,omitempty"`
}

type listImportsOutput struct {
	ImportSummaryList []importSummary
	NextToken         string `json:"NextToken,omitempty"`
}

// defaultImportPage is ListImports' page without PageSize.
const defaultImportPage = 25

// A NextToken is the hex of the last listed import's ARN, padded to
// DynamoDB's minimum length of 112 characters with a 0 byte: ([0-9a-f]{16})+.
func importToken(arn string) string {
	b := append([]byte(arn), 0)
	for len(b)%8 != 0 || len(b) < 56 {
		b = append(b, 0)
	}
	return hex.EncodeToString(b)
}

func importTokenArn(tok string) (string, bool) {
	b, err := hex.DecodeString(tok)
	if err != nil {
		return "", false
	}
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), true
		}
	}
	return "", false
}

var listImportsOp = &controlOp[listImportsInput]{
	rules: rules[listImportsInput]{
		lengthRule("tableArn", func(in *listImportsInput) *string { return in.TableArn }, 1, 1024, false),
		rangeRule("pageSize", func(in *listImportsInput) *int64 { return in.PageSize }, 1, 25),
		lengthRule("nextToken", func(in *listImportsInput) *string { return in.NextToken }, 112, 1024, false),
	},
	check:   (*Engine).checkListImports,
	execute: (*Engine).listImports,
}

// checkListImports reads the ARN the request's NextToken holds, then
// refuses the request when imports are not configured.
func (e *Engine) checkListImports(c caller, in *listImportsInput) error {
	if in.NextToken != nil {
		arn, ok := importTokenArn(*in.NextToken)
		if !ok {
			return ddberr.Validation("Invalid NextToken")
		}
		in.after = arn
	}
	return importsConfigured(e, c, in)
}

func (e *Engine) listImports(ctx context.Context, c caller, in *listImportsInput, _ *storage.Table) (any, error) {
	all, err := e.imports.List(ctx, c.account)
	if err != nil {
		return nil, err
	}
	keep := func(im *importer.Import) bool { return in.TableArn == nil || im.Params.TableArn == *in.TableArn }
	from := startAfter(all, in.after, func(im *importer.Import) string { return im.Params.ImportArn })
	page, more := listPage(from, keep, pageSize(in.PageSize, defaultImportPage), summaryOfImport)
	out := listImportsOutput{ImportSummaryList: page}
	if more {
		out.NextToken = importToken(page[len(page)-1].ImportArn)
	}
	return out, nil
}

func summaryOfImport(im *importer.Import) importSummary {
	d := describeImportOf(im)
	return importSummary{ImportArn: d.ImportArn, ImportStatus: d.ImportStatus,
		TableArn: d.TableArn, S3BucketSource: d.S3BucketSource, CloudWatchLogGroupArn: d.CloudWatchLogGroupArn,
		InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime}
}
