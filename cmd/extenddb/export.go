package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/cobra"
)

// exportFlags are `extenddb export`'s settings.
type exportFlags struct {
	table, bucket, prefix, format, exportTime string
}

// exportCmd is `extenddb export --table T --s3-bucket B`: it calls
// ExportTableToPointInTime and follows DescribeExport with a progress bar
// until the export ends. See docs/backups.md.
func exportCmd() *cobra.Command {
	var o exportFlags
	c := &apiClient{}
	cmd := &cobra.Command{
		Use:   "export --table T --s3-bucket B",
		Short: "Export a table of a running server into its export directory, as DynamoDB exports to S3",
		Args:  cobra.NoArgs,
		RunE:  c.run(func([]string) error { return c.runExport(&o) }),
	}
	f := cmd.Flags()
	c.flags(f)
	f.StringVar(&o.table, "table", "", "table to export (required; its point in time recovery must be on)")
	f.StringVar(&o.bucket, "s3-bucket", "", "bucket: a directory of the server's --export-dir (required)")
	f.StringVar(&o.prefix, "s3-prefix", "", "key prefix of the export's files")
	f.StringVar(&o.format, "format", "dynamodb_json", "dynamodb_json or ion")
	f.StringVar(&o.exportTime, "export-time", "", "time of the table to export, RFC 3339 (default: now)")
	cmd.MarkFlagRequired("table")
	cmd.MarkFlagRequired("s3-bucket")
	return cmd
}

// runExport starts the export and follows it to its end. DynamoDB reports
// no progress of an export before it ends, so the bar spins until then.
func (c *apiClient) runExport(o *exportFlags) error {
	in := &dynamodb.ExportTableToPointInTimeInput{S3Bucket: aws.String(o.bucket), ExportFormat: types.ExportFormat(strings.ToUpper(o.format))}
	if o.prefix != "" {
		in.S3Prefix = aws.String(o.prefix)
	}
	if o.exportTime != "" {
		at, err := time.Parse(time.RFC3339, o.exportTime)
		if err != nil {
			return fmt.Errorf("--export-time %q is not an RFC 3339 time: %v", o.exportTime, err)
		}
		in.ExportTime = aws.Time(at)
	}
	t, err := c.client.DescribeTable(c.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(o.table)})
	if err != nil {
		return err
	}
	in.TableArn = t.Table.TableArn
	started, err := c.client.ExportTableToPointInTime(c.ctx, in)
	if err != nil {
		return err
	}
	arn := aws.ToString(started.ExportDescription.ExportArn)
	fmt.Fprintf(c.resultOut, "export %s\n", arn)
	bar := c.bar(aws.ToInt64(t.Table.ItemCount), "exporting "+o.table)
	var last *types.ExportDescription
	err = follow(c, func() (*dynamodb.DescribeExportOutput, error) {
		return c.client.DescribeExport(c.ctx, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
	}, func(d *dynamodb.DescribeExportOutput) (bool, error) {
		last = d.ExportDescription
		switch last.ExportStatus {
		case types.ExportStatusInProgress:
			bar.Add(0) // the spinner turns
			return false, nil
		case types.ExportStatusCompleted:
			bar.Set64(aws.ToInt64(last.ItemCount))
			return true, bar.Finish()
		}
		fmt.Fprintln(c.progressOut)
		return true, fmt.Errorf("export %s: %s %s", last.ExportStatus, aws.ToString(last.FailureCode), aws.ToString(last.FailureMessage))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.resultOut, "table %s: %d items exported, manifest %s/%s\n", o.table, aws.ToInt64(last.ItemCount), o.bucket, aws.ToString(last.ExportManifest))
	return nil
}
