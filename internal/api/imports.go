package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/importer"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// ImportTable, DescribeImport (this file) and ListImports
// (imports_list.go), served by internal/importer. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html

type s3BucketSource struct {
	S3Bucket      *string `json:"S3Bucket,omitempty"`
	S3BucketOwner *string `json:"S3BucketOwner,omitempty"`
	S3KeyPrefix   *string `json:"S3KeyPrefix,omitempty"`
}

type csvOptions struct {
	Delimiter  *string  `json:"Delimiter,omitempty"`
	HeaderList []string `json:"HeaderList,omitempty"`
}

type inputFormatOptions struct {
	Csv *csvOptions `json:"Csv,omitempty"`
}

// tableCreationParameters is ImportTable's TableCreationParameters.
type tableCreationParameters struct {
	TableName              *string                  `json:"TableName,omitempty"`
	AttributeDefinitions   []attributeDefinition    `json:"AttributeDefinitions,omitempty"`
	KeySchema              []keySchemaElement       `json:"KeySchema,omitempty"`
	BillingMode            *string                  `json:"BillingMode,omitempty"`
	ProvisionedThroughput  *provisionedThroughput   `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput     *onDemandThroughput      `json:"OnDemandThroughput,omitempty"`
	GlobalSecondaryIndexes []secondaryIndexInput    `json:"GlobalSecondaryIndexes,omitempty"`
	SSESpecification       *struct{ Enabled *bool } `json:"SSESpecification,omitempty"`
}

type importTableInput struct {
	ClientToken             *string
	S3BucketSource          *s3BucketSource
	InputFormat             *string
	InputFormatOptions      *inputFormatOptions
	InputCompressionType    *string
	TableCreationParameters *tableCreationParameters
}

// importTableDescription is DynamoDB's ImportTableDescription.
type importTableDescription struct {
	ImportArn               string
	ImportStatus            string
	TableArn                string
	TableId                 string
	ClientToken             string `json:"ClientToken,omitempty"`
	S3BucketSource          importer.Source
	ErrorCount              int64
	CloudWatchLogGroupArn   string
	InputFormat             string
	InputFormatOptions      json.RawMessage `json:"InputFormatOptions,omitempty"`
	InputCompressionType    string
	TableCreationParameters json.RawMessage
	StartTime               epochSeconds
	EndTime                 *epochSeconds `json:"EndTime,omitempty"`
	ProcessedSizeBytes      int64
	ProcessedItemCount      int64
	ImportedItemCount       int64
	FailureCode             string `json:"FailureCode,omitempty"`
	FailureMessage          string `json:"FailureMessage,omitempty"`
}

type importTableOutput struct {
	ImportTableDescription importTableDescription
}

// importStatus maps an import job's state to DynamoDB's ImportStatus.
func importStatus(im *importer.Import) string {
	switch im.State {
	case jobs.Pending, jobs.Running:
		if im.CancelAsked {
			return "CANCELLING"
		}
		return "IN_PROGRESS"
	case jobs.Succeeded:
		return "COMPLETED"
	case jobs.Cancelled:
		return "CANCELLED"
	}
	return "FAILED"
}

func describeImportOf(im *importer.Import) importTableDescription {
	p := &im.Params
	d := importTableDescription{
		ImportArn: p.ImportArn, ImportStatus: importStatus(im), TableArn: p.TableArn, TableId: p.Table.ID,
		ClientToken: p.ClientToken, S3BucketSource: p.Source, ErrorCount: im.Counts.Errors,
		CloudWatchLogGroupArn: p.LogGroupArn, InputFormat: p.InputFormat, InputFormatOptions: p.FormatOptions,
		InputCompressionType: p.Compression, TableCreationParameters: p.Creation, StartTime: epochSeconds(p.StartTime),
		ProcessedSizeBytes: im.Counts.ProcessedBytes, ProcessedItemCount: im.Counts.ProcessedItems,
		ImportedItemCount: im.Counts.ImportedItems,
	}
	if !im.EndTime.IsZero() {
		end := epochSeconds(im.EndTime)
		d.EndTime = &end
	}
	if d.ImportStatus == "FAILED" {
		d.FailureCode, d.FailureMessage = importer.FailureCode(im.FailureMessage)
	}
	return d
}

// clientTokenPattern is ClientToken's pattern, ^[^\$]+$.
var clientTokenPattern = regexp.MustCompile(`^[^$]+$`)

// constraints checks ImportTable's member constraints, reported together.
func (in *importTableInput) constraints(c *constraints) {
	if in.ClientToken != nil && !clientTokenPattern.MatchString(*in.ClientToken) {
		c.add("Value '%s' at 'clientToken' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[^\\$]+$", *in.ClientToken)
	}
	if c.notNull(in.S3BucketSource != nil, "s3BucketSource") {
		src := in.S3BucketSource
		if c.notNull(src.S3Bucket != nil, "s3BucketSource.s3Bucket") {
			c.lenRange(src.S3Bucket, "s3BucketSource.s3Bucket", 0, 255)
			if !bucketPattern.MatchString(*src.S3Bucket) {
				c.add("Value '%s' at 's3BucketSource.s3Bucket' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$", *src.S3Bucket)
			}
		}
		c.lenRange(src.S3KeyPrefix, "s3BucketSource.s3KeyPrefix", 0, 1024)
	}
	if c.notNull(in.InputFormat != nil, "inputFormat") {
		c.enum(in.InputFormat, "inputFormat", dataformat.DynamoDBJSON, dataformat.ION, dataformat.CSV)
	}
	c.enum(in.InputCompressionType, "inputCompressionType", dataformat.CompressionGzip, dataformat.CompressionZstd, dataformat.CompressionNone)
	if o := in.InputFormatOptions; o != nil && o.Csv != nil {
		if d := o.Csv.Delimiter; d != nil && !delimiterPattern.MatchString(*d) {
			c.add("Value '%s' at 'inputFormatOptions.csv.delimiter' failed to satisfy constraint: Member must satisfy regular expression pattern: [,;:|\\t ]", *d)
		}
		c.listLen(len(o.Csv.HeaderList), o.Csv.HeaderList != nil, "inputFormatOptions.csv.headerList", 1, 255,
			func() string { return "[" + strings.Join(o.Csv.HeaderList, ", ") + "]" })
	}
	c.notNull(in.TableCreationParameters != nil, "tableCreationParameters")
}

// The patterns of S3BucketSource.S3Bucket and CsvOptions.Delimiter. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_S3BucketSource.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CsvOptions.html
var (
	bucketPattern    = regexp.MustCompile(`^[a-z0-9A-Z]+[.\-\w]*[a-z0-9A-Z]+$`)
	delimiterPattern = regexp.MustCompile(`^[,;:|\t ]$`)
)

var importTableOp = &controlOp[importTableInput]{
	rules:   rules[importTableInput]{(*importTableInput).constraints},
	check:   importsConfigured[importTableInput],
	execute: (*Engine).importTable,
}

func (e *Engine) importTable(ctx context.Context, c caller, in *importTableInput, _ *storage.Table) (any, error) {
	p, err := e.importParams(c, in)
	if err != nil {
		return nil, err
	}
	account := c.account
	if err := e.checkTableLimit(ctx, account); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%014d-%08x", e.now().UnixMilli(), rand.Uint32())
	p.ImportArn = p.TableArn + "/import/" + id
	im, err := e.imports.Start(ctx, account, id, *p)
	switch {
	case errors.Is(err, importer.ErrConflict):
		// DynamoDB's text, as an acceptance run of Terraform's provider
		// quotes it: https://github.com/hashicorp/terraform-provider-aws/pull/34335
		return nil, ddberr.ImportConflict("Import conflict: Duplicate request detected with conflicting parameters")
	case errors.Is(err, storage.ErrTableExists):
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html#API_ImportTable_Errors
		return nil, ddberr.ResourceInUse("Table already exists: %s", p.Table.Name)
	case err != nil:
		return nil, err
	}
	e.forget(account, p.Table.Name)
	return importTableOutput{describeImportOf(im)}, nil
}

// importParams checks the table to create as CreateTable does and returns
// the import's parameters (without its ARN).
func (e *Engine) importParams(c caller, in *importTableInput) (*importer.Params, error) {
	tp := in.TableCreationParameters
	ct := createTableInput{
		TableName: tp.TableName, AttributeDefinitions: tp.AttributeDefinitions, KeySchema: tp.KeySchema,
		BillingMode: tp.BillingMode, ProvisionedThroughput: tp.ProvisionedThroughput, OnDemandThroughput: tp.OnDemandThroughput,
		GlobalSecondaryIndexes: tp.GlobalSecondaryIndexes, SSESpecification: tp.SSESpecification,
	}
	t, err := e.validateCreateTable(&ct)
	if err != nil {
		return nil, err
	}
	if err := tableThroughputSettings(t, &ct); err != nil {
		return nil, err
	}
	creation, _ := json.Marshal(tp)
	p := &importer.Params{
		ClientToken: valueOrZero(in.ClientToken),
		TableArn:    e.tableArn(c.region, t),
		Source: importer.Source{S3Bucket: *in.S3BucketSource.S3Bucket, S3KeyPrefix: valueOrZero(in.S3BucketSource.S3KeyPrefix),
			S3BucketOwner: valueOrZero(in.S3BucketSource.S3BucketOwner)},
		InputFormat: *in.InputFormat,
		Compression: dataformat.CompressionNone,
		Creation:    creation,
		Table:       *t,
		StartTime:   e.now(),
	}
	if in.InputCompressionType != nil {
		p.Compression = *in.InputCompressionType
	}
	if o := in.InputFormatOptions; o != nil {
		p.FormatOptions, _ = json.Marshal(o)
		if o.Csv != nil {
			p.Csv = &dataformat.CSVOptions{Delimiter: valueOrZero(o.Csv.Delimiter), HeaderList: o.Csv.HeaderList}
		}
	}
	account := storage.NamespaceAccount(c.account)
	if account == "" {
		account = e.cfg.AccountID
	}
	// The log group DynamoDB writes an import's refused records to; here
	// they go to a file of the import (docs/backups.md).
	p.LogGroupArn = fmt.Sprintf("arn:aws:logs:%s:%s:log-group:/aws-dynamodb/imports:*", c.region, account)
	return p, nil
}

type describeImportInput struct {
	ImportArn *string
}

type describeImportOutput struct {
	ImportTableDescription importTableDescription
}

var describeImportOp = &controlOp[describeImportInput]{
	rules:   rules[describeImportInput]{lengthRule("importArn", func(in *describeImportInput) *string { return in.ImportArn }, 37, 1024, true)},
	check:   importsConfigured[describeImportInput],
	execute: (*Engine).describeImport,
}

func (e *Engine) describeImport(ctx context.Context, c caller, in *describeImportInput, _ *storage.Table) (any, error) {
	arn := *in.ImportArn
	_, id, ok := strings.Cut(arn, "/import/")
	var im *importer.Import
	var err error
	if ok {
		im, err = e.imports.Get(ctx, c.account, id)
	}
	if !ok || errors.Is(err, importer.ErrNotFound) || (err == nil && im.Params.ImportArn != arn) {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeImport.html#API_DescribeImport_Errors
		return nil, ddberr.ImportNotFound("Import not found: %s", arn)
	}
	if err != nil {
		return nil, err
	}
	return describeImportOutput{describeImportOf(im)}, nil
}
