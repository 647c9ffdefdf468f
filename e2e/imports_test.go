package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/zstd"
)

// ImportTable, DescribeImport and ListImports through the AWS SDK, with S3
// buckets as directories of --export-dir. API reference:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html
// Formats: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html

// writeObject stores content as object key of bucket under root,
// compressed as compression (NONE, GZIP or ZSTD).
func writeObject(t testing.TB, root, bucket, key, compression string, content []byte) {
	t.Helper()
	var buf bytes.Buffer
	switch compression {
	case "GZIP":
		zw := gzip.NewWriter(&buf)
		zw.Write(content)
		zw.Close()
	case "ZSTD":
		zw, _ := zstd.NewWriter(&buf)
		zw.Write(content)
		zw.Close()
	default:
		buf.Write(content)
	}
	path := filepath.Join(root, bucket, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// importParams are the TableCreationParameters of the tests: keys (pk S,
// sk N), on demand, a GSI on g.
func importParams(name string) *types.TableCreationParameters {
	return &types.TableCreationParameters{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "sk", "N", "g", "S"),
		KeySchema:            keySchema("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"), KeySchema: keySchema("g"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	}
}

// waitImport polls DescribeImport until the import has ended.
func waitImport(t testing.TB, c *dynamodb.Client, arn string, within time.Duration) *types.ImportTableDescription {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		out, err := c.DescribeImport(ctxT(t), &dynamodb.DescribeImportInput{ImportArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.ImportTableDescription
		if d.ImportStatus != types.ImportStatusInProgress {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("import %s still IN_PROGRESS after %v", arn, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// importSource renders items 0..n-1 in format, followed by three records
// DynamoDB refuses: one that is not an item, one without its sort key,
// one whose partition key has the wrong type.
func importSource(format string, n int) []byte {
	var b strings.Builder
	switch format {
	case "DYNAMODB_JSON":
		for i := range n {
			fmt.Fprintf(&b, `{"Item":{"pk":{"S":"p%d"},"sk":{"N":"%d"},"g":{"S":"g%d"},"v":{"L":[{"N":"1.50"},{"BOOL":true}]}}}`+"\n", i%5, i, i%3)
		}
		b.WriteString("{not json\n")
		b.WriteString(`{"Item":{"pk":{"S":"x"}}}` + "\n")
		b.WriteString(`{"Item":{"pk":{"N":"1"},"sk":{"N":"1"}}}` + "\n")
	case "ION":
		b.WriteString("$ion_1_0\n")
		for i := range n {
			fmt.Fprintf(&b, `{Item:{pk:"p%d",sk:%d.,g:"g%d",v:[1.50,true]}}`+"\n", i%5, i, i%3)
		}
		b.WriteString("{not ion\n")
		b.WriteString(`{Item:{pk:"x"}}` + "\n")
		b.WriteString(`{Item:{pk:1.,sk:1.}}` + "\n")
	case "CSV":
		b.WriteString("pk;sk;g;v\n")
		for i := range n {
			fmt.Fprintf(&b, "p%d;%d;g%d;\"a;b\"\n", i%5, i, i%3)
		}
		b.WriteString("p1;not-a-number;g;v\n")
		b.WriteString("x;;g;v\n")
		b.WriteString("p1;1;g;v;extra\n")
	}
	return []byte(b.String())
}

// Every format and compression imports into a new table with its index;
// bad records are counted and logged, the rest imported. Counts are
// ImportTableDescription's:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTableDescription.html
func TestImportFormatsAndCompressions(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root)
	const n = 120
	for _, format := range []string{"DYNAMODB_JSON", "ION", "CSV"} {
		for _, comp := range []string{"NONE", "GZIP", "ZSTD"} {
			t.Run(format+"/"+comp, func(t *testing.T) {
				name := tableName("imp")
				src := importSource(format, n)
				half := bytes.IndexByte(src[len(src)/2:], '\n') + len(src)/2 + 1
				in := &dynamodb.ImportTableInput{
					S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("bucket-" + strings.ToLower(comp)), S3KeyPrefix: aws.String(name + "/")},
					InputFormat:             types.InputFormat(format),
					InputCompressionType:    types.InputCompressionType(comp),
					TableCreationParameters: importParams(name),
				}
				if format == "CSV" {
					// The second file has no header line of its own: HeaderList names the columns.
					in.InputFormatOptions = &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String(";"), HeaderList: []string{"pk", "sk", "g", "v"}}}
					src = src[bytes.IndexByte(src, '\n')+1:]
					half = bytes.IndexByte(src[len(src)/2:], '\n') + len(src)/2 + 1
				}
				writeObject(t, root, *in.S3BucketSource.S3Bucket, name+"/part-1", comp, src[:half])
				writeObject(t, root, *in.S3BucketSource.S3Bucket, name+"/part-2", comp, src[half:])
				out, err := c.ImportTable(ctxT(t), in)
				if err != nil {
					t.Fatal(err)
				}
				arn := aws.ToString(out.ImportTableDescription.ImportArn)
				if !strings.HasPrefix(arn, tableArn(name)+"/import/") || aws.ToString(out.ImportTableDescription.TableArn) != tableArn(name) {
					t.Fatalf("ImportArn %s, TableArn %s", arn, aws.ToString(out.ImportTableDescription.TableArn))
				}
				d := waitImport(t, c, arn, 60*time.Second)
				if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != n || d.ProcessedItemCount != n+3 ||
					d.ErrorCount != 3 || aws.ToInt64(d.ProcessedSizeBytes) == 0 || d.EndTime == nil ||
					d.InputFormat != types.InputFormat(format) || d.InputCompressionType != types.InputCompressionType(comp) ||
					!strings.HasPrefix(aws.ToString(d.CloudWatchLogGroupArn), "arn:aws:logs:") {
					t.Fatalf("DescribeImport = %s %+v", d.ImportStatus, d)
				}
				waitStatus(t, c, name, types.TableStatusActive, 10*time.Second)
				if got := countItems(t, c, name); got != n {
					t.Fatalf("imported table holds %d items, want %d", got, n)
				}
				got, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(name), Key: item{"pk": avS("p2"), "sk": avN("7")}})
				if err != nil {
					t.Fatal(err)
				}
				want := `{"g":{"S":"g1"},"pk":{"S":"p2"},"sk":{"N":"7"},"v":{"L":[{"N":"1.5"},{"BOOL":true}]}}`
				if format == "CSV" {
					want = `{"g":{"S":"g1"},"pk":{"S":"p2"},"sk":{"N":"7"},"v":{"S":"a;b"}}`
				}
				if itemText(got.Item) != want {
					t.Fatalf("item = %s, want %s", itemText(got.Item), want)
				}
				q, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
					KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("g0")}, Select: types.SelectCount})
				if err != nil || q.Count != n/3 {
					t.Fatalf("GSI query: %v, count %d, want %d", err, q.Count, n/3)
				}
				if got := importLogLines(t, root, name+"/"); got != 3 {
					t.Fatalf("the import's log file holds %d lines, want 3", got)
				}
			})
		}
	}
}

// importLogLines counts the lines of the import log files under root that
// name an object whose key starts with prefix; each must give the line of
// the record it refuses.
func importLogLines(t testing.TB, root, prefix string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(root, ".import-logs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"s3ObjectKey":"`+prefix) {
				n++
				if strings.Contains(l, `"line":0,`) {
					t.Errorf("log line without the record's line: %s", l)
				}
			}
		}
		return nil
	})
	return n
}
