package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/extenddb/extenddb/internal/dataformat"
)

// importFlags are `extenddb import`'s settings.
type importFlags struct {
	table, key, format, compression, exportDir, bucket, delimiter string
}

// importCmd is `extenddb import FILE|DIR --table T --key pk:S[,sk:N]`: it
// copies the file (or the files of the directory) into a bucket of the
// server's export directory, calls ImportTable and follows DescribeImport
// with a progress bar. See docs/backups.md.
func importCmd() *cobra.Command {
	var o importFlags
	c := &apiClient{}
	cmd := &cobra.Command{
		Use:   "import FILE|DIR --table T --key pk:S[,sk:N]",
		Short: "Import a file or directory of DYNAMODB_JSON, ION or CSV into a new table of a running server",
		Args:  cobra.ExactArgs(1),
		RunE:  c.run(func(args []string) error { return c.runImport(args[0], &o) }),
	}
	f := cmd.Flags()
	c.flags(f)
	f.StringVar(&o.table, "table", "", "name of the table to create (required)")
	f.StringVar(&o.key, "key", "", "key schema: partition key and optional sort key as name:TYPE (S, N or B), e.g. pk:S,sk:N (required)")
	f.StringVar(&o.format, "format", "", "dynamodb_json, ion or csv (default: from the file name: .csv, .ion, otherwise dynamodb_json)")
	f.StringVar(&o.compression, "compression", "", "none, gzip or zstd (default: from the file name: .gz, .zst, otherwise none)")
	f.StringVar(&o.delimiter, "csv-delimiter", "", "CSV delimiter: one of , ; : | tab or space (default ,)")
	f.StringVar(&o.exportDir, "export-dir", "./extenddb-data/exports", "the server's --export-dir, where the files are copied")
	f.StringVar(&o.bucket, "bucket", "extenddb-import", "bucket (directory of --export-dir) the files are copied into")
	cmd.MarkFlagRequired("table")
	cmd.MarkFlagRequired("key")
	return cmd
}

// runImport copies src into the export directory, starts the import and
// follows it to its end.
func (c *apiClient) runImport(src string, o *importFlags) error {
	defs, schema, err := parseKeySpec(o.key)
	if err != nil {
		return err
	}
	prefix := "import-" + uuid.NewString()[:8] + "/"
	total, first, err := copyIntoBucket(src, filepath.Join(o.exportDir, o.bucket, prefix))
	if err != nil {
		return err
	}
	format, compression := guessFormat(first, o.format, o.compression)
	in := &dynamodb.ImportTableInput{
		S3BucketSource:       &types.S3BucketSource{S3Bucket: aws.String(o.bucket), S3KeyPrefix: aws.String(prefix)},
		InputFormat:          types.InputFormat(format),
		InputCompressionType: types.InputCompressionType(compression),
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(o.table),
			AttributeDefinitions: defs, KeySchema: schema, BillingMode: types.BillingModePayPerRequest},
	}
	if o.delimiter != "" {
		d := o.delimiter
		if d == "tab" {
			d = "\t"
		}
		in.InputFormatOptions = &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String(d)}}
	}
	started, err := c.client.ImportTable(c.ctx, in)
	if err != nil {
		return err
	}
	arn := aws.ToString(started.ImportTableDescription.ImportArn)
	fmt.Fprintf(c.resultOut, "import %s\n", arn)
	bar := c.byteBar(total, "importing "+o.table)
	var last *types.ImportTableDescription
	err = follow(c, func() (*dynamodb.DescribeImportOutput, error) {
		return c.client.DescribeImport(c.ctx, &dynamodb.DescribeImportInput{ImportArn: aws.String(arn)})
	}, func(d *dynamodb.DescribeImportOutput) (bool, error) {
		last = d.ImportTableDescription
		bar.Set64(aws.ToInt64(last.ProcessedSizeBytes))
		switch last.ImportStatus {
		case types.ImportStatusInProgress:
			return false, nil
		case types.ImportStatusCompleted:
			return true, bar.Finish()
		}
		fmt.Fprintln(c.progressOut)
		return true, importFailure(last, o.exportDir)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.resultOut, "table %s: %d items imported, %d processed, %d errors\n", o.table, last.ImportedItemCount, last.ProcessedItemCount, last.ErrorCount)
	return nil
}

// parseKeySpec parses --key: "pk:S" or "pk:S,sk:N".
func parseKeySpec(spec string) ([]types.AttributeDefinition, []types.KeySchemaElement, error) {
	parts := strings.Split(spec, ",")
	if len(parts) > 2 || spec == "" {
		return nil, nil, fmt.Errorf("--key %q: want pk:TYPE or pk:TYPE,sk:TYPE", spec)
	}
	var defs []types.AttributeDefinition
	var schema []types.KeySchemaElement
	for i, p := range parts {
		name, typ, ok := strings.Cut(p, ":")
		typ = strings.ToUpper(typ)
		if !ok || name == "" || (typ != "S" && typ != "N" && typ != "B") {
			return nil, nil, fmt.Errorf("--key %q: %q is not name:S, name:N or name:B", spec, p)
		}
		kt := types.KeyTypeHash
		if i == 1 {
			kt = types.KeyTypeRange
		}
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeType(typ)})
		schema = append(schema, types.KeySchemaElement{AttributeName: aws.String(name), KeyType: kt})
	}
	return defs, schema, nil
}

// importFailure is the error of an import that ended unsuccessfully. A
// missing bucket means that the server reads another export directory than
// exportDir, where the files were copied.
func importFailure(d *types.ImportTableDescription, exportDir string) error {
	err := fmt.Errorf("import %s: %s %s", d.ImportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
	if aws.ToString(d.FailureCode) == "S3NoSuchBucket" {
		err = fmt.Errorf("%w (the files were copied under --export-dir %s, which is not the server's export directory: "+
			"pass the server's --export-dir; an --in-memory server without one keeps its buckets in a temporary directory "+
			"of its own, so start it with --export-dir)", err, exportDir)
	}
	return err
}

// guessFormat returns the input format and compression: the flags', or
// those the file name tells.
func guessFormat(name, format, compression string) (string, string) {
	base := strings.ToLower(filepath.Base(name))
	if compression == "" {
		compression = "none"
		switch {
		case strings.HasSuffix(base, ".gz"):
			compression, base = "gzip", strings.TrimSuffix(base, ".gz")
		case strings.HasSuffix(base, ".zst"):
			compression, base = "zstd", strings.TrimSuffix(base, ".zst")
		}
	}
	if format == "" {
		format = "dynamodb_json"
		switch {
		case strings.HasSuffix(base, ".csv"):
			format = "csv"
		case strings.HasSuffix(base, ".ion"):
			format = "ion"
		}
	}
	return strings.ToUpper(format), strings.ToUpper(compression)
}

// copyIntoBucket copies src (a file, or every file under a directory, at
// the same relative paths, so that the server skips an export's manifests
// and _started as it does in S3) into dir, and returns the bytes copied
// and the first data file's name (dataformat.HoldsNoItems skips the rest).
func copyIntoBucket(src, dir string) (int64, string, error) {
	st, err := os.Stat(src)
	if err != nil {
		return 0, "", err
	}
	root, files := filepath.Dir(src), []string{src}
	if st.IsDir() {
		root, files = src, nil
		if err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return err
		}); err != nil {
			return 0, "", err
		}
	}
	if len(files) == 0 {
		return 0, "", fmt.Errorf("%s holds no files", src)
	}
	var total int64
	first := ""
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return 0, "", err
		}
		to := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return 0, "", err
		}
		n, err := copyFile(f, to)
		if err != nil {
			return 0, "", err
		}
		total += n
		if first == "" && !dataformat.HoldsNoItems(filepath.Base(f)) {
			first = f
		}
	}
	if first == "" {
		return 0, "", fmt.Errorf("%s holds only an export's manifests, no data files", src)
	}
	return total, first, nil
}

func copyFile(from, to string) (int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
