package e2e

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Errors of the import operations, as listed in
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html#API_ImportTable_Errors
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeImport.html#API_DescribeImport_Errors
func TestImportErrors(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root)
	name := tableName("imp_err")
	writeObject(t, root, "errs", "a/data.json", "NONE", importSource("DYNAMODB_JSON", 10))
	in := func() *dynamodb.ImportTableInput {
		return &dynamodb.ImportTableInput{
			S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("errs"), S3KeyPrefix: aws.String("a/")},
			InputFormat:             types.InputFormatDynamodbJson,
			TableCreationParameters: importParams(name),
		}
	}

	// Member constraints, reported together as DynamoDB's model defines them.
	bad := in()
	bad.InputFormat = "XML"
	bad.InputCompressionType = "LZ4"
	_, err := c.ImportTable(ctxT(t), bad)
	wantAPIError(t, err, "ValidationException", "2 validation errors detected: "+
		"Value 'XML' at 'inputFormat' failed to satisfy constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION, CSV]; "+
		"Value 'LZ4' at 'inputCompressionType' failed to satisfy constraint: Member must satisfy enum value set: [GZIP, ZSTD, NONE]")
	// The table's definition is checked as CreateTable checks it.
	bad = in()
	bad.TableCreationParameters.KeySchema = keySchema("nope")
	_, err = c.ImportTable(ctxT(t), bad)
	wantAPIErrorMatch(t, err, "ValidationException", regexp.MustCompile(`KeySchema|AttributeDefinitions`))

	// ClientToken: the same request again is the same import; other
	// parameters with the token are ImportConflictException.
	first := in()
	first.ClientToken = aws.String("tok-1")
	out, err := c.ImportTable(ctxT(t), first)
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.ImportTableDescription.ImportArn)
	again, err := c.ImportTable(ctxT(t), first)
	if err != nil || aws.ToString(again.ImportTableDescription.ImportArn) != arn {
		t.Fatalf("retry with the same ClientToken: %v, %v (want %s)", err, again, arn)
	}
	other := in()
	other.ClientToken = aws.String("tok-1")
	other.S3BucketSource.S3KeyPrefix = aws.String("b/")
	_, err = c.ImportTable(ctxT(t), other)
	// DynamoDB's text, as an acceptance run quotes it in
	// https://github.com/hashicorp/terraform-provider-aws/pull/34335
	wantAPIError(t, err, "ImportConflictException", "Import conflict: Duplicate request detected with conflicting parameters")
	if d := waitImport(t, c, arn, 30*time.Second); d.ImportStatus != types.ImportStatusCompleted {
		t.Fatalf("import %s", d.ImportStatus)
	}

	// A table of that name exists: ResourceInUseException.
	_, err = c.ImportTable(ctxT(t), in())
	wantAPIError(t, err, "ResourceInUseException", "Table already exists: "+name)

	// An unknown import ARN.
	missing := tableArn(name) + "/import/01700000000000-00000000"
	_, err = c.DescribeImport(ctxT(t), &dynamodb.DescribeImportInput{ImportArn: aws.String(missing)})
	wantAPIError(t, err, "ImportNotFoundException", "Import not found: "+missing)
	_, err = c.DescribeImport(ctxT(t), &dynamodb.DescribeImportInput{ImportArn: aws.String("short")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'short' at 'importArn' failed to satisfy constraint: Member must have length greater than or equal to 37")

	// A bucket that does not exist fails the import, and its table is gone.
	nb := in()
	nb.TableCreationParameters.TableName = aws.String(name + "-nb")
	nb.S3BucketSource.S3Bucket = aws.String("no-such-bucket")
	out, err = c.ImportTable(ctxT(t), nb)
	if err != nil {
		t.Fatal(err)
	}
	d := waitImport(t, c, aws.ToString(out.ImportTableDescription.ImportArn), 30*time.Second)
	if d.ImportStatus != types.ImportStatusFailed || aws.ToString(d.FailureCode) != "S3NoSuchBucket" {
		t.Fatalf("import from a missing bucket: %s %s %s", d.ImportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
	}
	_, err = c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: nb.TableCreationParameters.TableName})
	wantAPIErrorMatch(t, err, "ResourceNotFoundException", regexp.MustCompile(`.`))
}

// ListImports lists the account's imports, filtered by TableArn and paged
// with PageSize (1 to 25) and NextToken.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListImports.html
func TestListImports(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root)
	writeObject(t, root, "lst", "data.json", "NONE", importSource("DYNAMODB_JSON", 3))
	var names, arns []string
	for i := range 3 {
		name := tableName("imp_lst")
		out, err := c.ImportTable(ctxT(t), &dynamodb.ImportTableInput{
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("lst")}, InputFormat: types.InputFormatDynamodbJson,
			TableCreationParameters: importParams(name)})
		if err != nil {
			t.Fatal(err)
		}
		names, arns = append(names, name), append(arns, aws.ToString(out.ImportTableDescription.ImportArn))
		waitImport(t, c, arns[i], 30*time.Second)
	}
	var listed []string
	in := &dynamodb.ListImportsInput{PageSize: aws.Int32(2)}
	for pages := 0; ; pages++ {
		out, err := c.ListImports(ctxT(t), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range out.ImportSummaryList {
			if s.ImportStatus != types.ImportStatusCompleted || s.InputFormat != types.InputFormatDynamodbJson || s.EndTime == nil {
				t.Fatalf("summary %+v", s)
			}
			listed = append(listed, aws.ToString(s.ImportArn))
		}
		if out.NextToken == nil {
			break
		}
		if len(*out.NextToken) < 112 || pages > 3 {
			t.Fatalf("NextToken %q", *out.NextToken)
		}
		in.NextToken = out.NextToken
	}
	if strings.Join(listed, " ") != strings.Join(arns, " ") {
		t.Fatalf("listed %v, want %v", listed, arns)
	}
	out, err := c.ListImports(ctxT(t), &dynamodb.ListImportsInput{TableArn: aws.String(tableArn(names[1]))})
	if err != nil || len(out.ImportSummaryList) != 1 || aws.ToString(out.ImportSummaryList[0].ImportArn) != arns[1] {
		t.Fatalf("ListImports TableArn: %v %+v", err, out)
	}
	_, err = c.ListImports(ctxT(t), &dynamodb.ListImportsInput{PageSize: aws.Int32(26)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '26' at 'pageSize' failed to satisfy constraint: Member must have value less than or equal to 25")
}

// A backup's data files are DynamoDB's export layout: an import pointed at
// them rebuilds the table, item for item, with its global index.
func TestImportFromExportLayout(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root, "--backup-root", filepath.Join(root, "backups"))
	src := tableName("imp_src")
	createIndexedTable(t, c, src)
	for i := range 60 {
		putItem(t, c, src, backupItem(i))
	}
	b, err := c.CreateBackup(ctxT(t), &dynamodb.CreateBackupInput{TableName: aws.String(src), BackupName: aws.String("forimport")})
	if err != nil {
		t.Fatal(err)
	}
	waitBackup(t, c, aws.ToString(b.BackupDetails.BackupArn))
	data, _ := filepath.Glob(filepath.Join(root, "backups", "*", "*", "data"))
	if len(data) != 1 {
		t.Fatalf("backup data directories %v", data)
	}
	rel, _ := filepath.Rel(filepath.Join(root, "backups"), data[0])
	dst := tableName("imp_dst")
	params := importParams(dst)
	params.AttributeDefinitions = attrDefs("pk", "S", "sk", "N", "g", "S")
	out, err := c.ImportTable(ctxT(t), &dynamodb.ImportTableInput{
		S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("backups"), S3KeyPrefix: aws.String(filepath.ToSlash(rel) + "/")},
		InputFormat:             types.InputFormatDynamodbJson,
		InputCompressionType:    types.InputCompressionTypeGzip,
		TableCreationParameters: params,
	})
	if err != nil {
		t.Fatal(err)
	}
	d := waitImport(t, c, aws.ToString(out.ImportTableDescription.ImportArn), 60*time.Second)
	if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != 60 || d.ErrorCount != 0 {
		t.Fatalf("import %s: %d imported, %d errors", d.ImportStatus, d.ImportedItemCount, d.ErrorCount)
	}
	if got, want := tableStateOf(t, c, dst, "byG"), tableStateOf(t, c, src, "byG"); got != want {
		t.Fatalf("imported table differs from its source:\n%s\nwant\n%s", got, want)
	}
}

// tableStateOf renders a table's items and those of the named indexes as
// sorted text.
func tableStateOf(t testing.TB, c *dynamodb.Client, name string, indexes ...string) string {
	t.Helper()
	items, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	var lines []string
	for _, it := range items {
		lines = append(lines, "table "+itemText(it))
	}
	for _, idx := range indexes {
		rows, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String(idx)})
		for _, it := range rows {
			lines = append(lines, idx+" "+itemText(it))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
