package api

import (
	"context"
	"encoding/hex"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/importer"
	"github.com/extenddb/extenddb/internal/protocol"
)

// ListImports. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListImports.html

type listImportsInput struct {
	TableArn  *string
	PageSize  *int64
	NextToken *string
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

func (e *Engine) listImports(ctx context.Context, r *protocol.Request) (any, error) {
	var in listImportsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	c.lenRange(in.TableArn, "tableArn", 1, 1024)
	c.intRange(in.PageSize, "pageSize", 1, 25)
	c.lenRange(in.NextToken, "nextToken", 112, 1024)
	if err := c.err(); err != nil {
		return nil, err
	}
	after := ""
	if in.NextToken != nil {
		arn, ok := importTokenArn(*in.NextToken)
		if !ok {
			return nil, ddberr.Validation("Invalid NextToken")
		}
		after = arn
	}
	svc, err := e.importService()
	if err != nil {
		return nil, err
	}
	all, err := svc.List(ctx, e.account(r))
	if err != nil {
		return nil, err
	}
	page := defaultImportPage
	if in.PageSize != nil {
		page = int(*in.PageSize)
	}
	out := listImportsOutput{ImportSummaryList: []importSummary{}}
	started := after == ""
	for _, im := range all {
		if !started {
			started = im.Params.ImportArn == after
			continue
		}
		if in.TableArn != nil && im.Params.TableArn != *in.TableArn {
			continue
		}
		if len(out.ImportSummaryList) == page {
			out.NextToken = importToken(out.ImportSummaryList[page-1].ImportArn)
			break
		}
		d := describeImportOf(im)
		out.ImportSummaryList = append(out.ImportSummaryList, importSummary{ImportArn: d.ImportArn, ImportStatus: d.ImportStatus,
			TableArn: d.TableArn, S3BucketSource: d.S3BucketSource, CloudWatchLogGroupArn: d.CloudWatchLogGroupArn,
			InputFormat: d.InputFormat, StartTime: d.StartTime, EndTime: d.EndTime})
	}
	return out, nil
}
