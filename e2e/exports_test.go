package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/extenddb/extenddb/internal/dataformat"
	ddbitem "github.com/extenddb/extenddb/internal/item"
)

// enablePITR turns point in time recovery on for a table.
func enablePITR(t testing.TB, c *dynamodb.Client, name string) {
	t.Helper()
	if _, err := c.UpdateContinuousBackups(ctxT(t), &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
}

// waitExport polls DescribeExport until the export is no longer
// IN_PROGRESS.
func waitExport(t testing.TB, c *dynamodb.Client, arn string) *types.ExportDescription {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		out, err := c.DescribeExport(ctxT(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.ExportDescription
		if d.ExportStatus != types.ExportStatusInProgress {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("export %s still IN_PROGRESS", arn)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// canonical is an item's DynamoDB JSON with attributes in name order.
func canonical(t testing.TB, raw []byte) string {
	t.Helper()
	var it ddbitem.Item
	if err := it.UnmarshalJSON(raw); err != nil {
		t.Fatalf("item %s: %v", raw, err)
	}
	return string(ddbitem.AppendItemJSON(nil, it))
}

// scanSet is a table's items, canonical and sorted, read with consistent
// Scans through the wire protocol.
func scanSet(t testing.TB, endpoint, table string) []string {
	t.Helper()
	var out []string
	var start json.RawMessage
	for {
		req := map[string]any{"TableName": table, "ConsistentRead": true}
		if start != nil {
			req["ExclusiveStartKey"] = start
		}
		b, _ := json.Marshal(req)
		r := callRaw(t, endpoint, "Scan", string(b))
		var page struct {
			Items            []json.RawMessage
			LastEvaluatedKey json.RawMessage
		}
		if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 {
			t.Fatalf("Scan: %d %s", r.Status, r.Body)
		}
		for _, it := range page.Items {
			out = append(out, canonical(t, it))
		}
		if page.LastEvaluatedKey == nil {
			sort.Strings(out)
			return out
		}
		start = page.LastEvaluatedKey
	}
}

// exportFiles checks an export's files in the export directory root (the
// layout, the manifests against their .md5 files and the data files
// against their md5Checksum and etag) and returns its manifest summary and
// the decompressed lines of its data files, sorted.
func exportFiles(t testing.TB, root string, d *types.ExportDescription) (*dataformat.ManifestSummary, []string) {
	t.Helper()
	bucket := filepath.Join(root, aws.ToString(d.S3Bucket))
	manifest := aws.ToString(d.ExportManifest)
	dir := filepath.Join(bucket, filepath.FromSlash(strings.TrimSuffix(manifest, "/"+dataformat.ManifestSummaryFile)))
	if _, err := os.Stat(filepath.Join(dir, dataformat.StartedFile)); err != nil {
		t.Fatalf("export has no _started marker: %v", err)
	}
	sum, files, err := dataformat.ReadManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var count int64
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(bucket, filepath.FromSlash(f.DataFileS3Key)))
		if err != nil {
			t.Fatal(err)
		}
		if got := dataformat.MD5Base64(raw); got != f.MD5Checksum {
			t.Fatalf("data file %s: md5 %s, manifest says %s", f.DataFileS3Key, got, f.MD5Checksum)
		}
		gz, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(gz)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
			if l != "" {
				lines, n = append(lines, l), n+1
			}
		}
		if int64(n) != f.ItemCount {
			t.Fatalf("data file %s has %d lines, manifest says %d", f.DataFileS3Key, n, f.ItemCount)
		}
		count += f.ItemCount
	}
	if count != sum.ItemCount || count != aws.ToInt64(d.ItemCount) {
		t.Fatalf("manifest files count %d items, summary %d, DescribeExport %d", count, sum.ItemCount, aws.ToInt64(d.ItemCount))
	}
	sort.Strings(lines)
	return sum, lines
}

// exportedItems is the canonical items of a full export's DYNAMODB_JSON
// lines ({"Item":{...}}), sorted.
func exportedItems(t testing.TB, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var rec struct{ Item json.RawMessage }
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Item == nil {
			t.Fatalf("line %s is not {\"Item\":...}: %v", l, err)
		}
		out = append(out, canonical(t, rec.Item))
	}
	sort.Strings(out)
	return out
}

// A full export at a time between two known sets of writes holds exactly
// the table as it was then, in DynamoDB's S3 layout under the export
// directory: [prefix/]AWSDynamoDB/<id>/ with _started, the manifests and
// their .md5 files, and data/<name>.json.gz.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html
func TestExportFullAtTime(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	src := tableName("exp_full")
	createIndexedTable(t, c, src)
	enablePITR(t, c, src)
	waitNextSecond(time.Now())
	for i := range 20 {
		putItem(t, c, src, backupItem(i))
	}
	want := scanSet(t, s.Endpoint, src)
	at := time.Now()
	waitNextSecond(at)
	for i := range 5 {
		it := backupItem(i)
		it["extra"] = avS("later")
		putItem(t, c, src, it)
	}
	for i := 5; i < 8; i++ {
		k := backupItem(i)
		if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: item{"pk": k["pk"], "sk": k["sk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 200; i < 204; i++ {
		putItem(t, c, src, backupItem(i))
	}
	in := &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)), S3Bucket: aws.String("my-bucket"),
		S3Prefix: aws.String("exports/2026"), ExportTime: aws.Time(at), ClientToken: aws.String("full-token")}
	out, err := c.ExportTableToPointInTime(ctxT(t), in)
	if err != nil {
		t.Fatal(err)
	}
	d := out.ExportDescription
	arn := aws.ToString(d.ExportArn)
	if !strings.HasPrefix(arn, tableArn(src)+"/export/") || aws.ToString(d.ClientToken) != "full-token" ||
		d.ExportFormat != types.ExportFormatDynamodbJson || d.ExportType != "" || aws.ToString(d.S3Prefix) != "exports/2026" ||
		aws.ToString(d.TableId) == "" || !aws.ToTime(d.ExportTime).Equal(at.Truncate(time.Millisecond)) {
		t.Fatalf("ExportDescription = %+v", d)
	}
	// The same token and request: the same export.
	again, err := c.ExportTableToPointInTime(ctxT(t), in)
	if err != nil || aws.ToString(again.ExportDescription.ExportArn) != arn {
		t.Fatalf("repeated request: %v, %v", again, err)
	}
	d = waitExport(t, c, arn)
	if d.ExportStatus != types.ExportStatusCompleted || d.EndTime == nil || aws.ToInt64(d.ItemCount) != int64(len(want)) ||
		aws.ToInt64(d.BilledSizeBytes) <= 0 || aws.ToString(d.ExportManifest) != "exports/2026/AWSDynamoDB/"+arn[strings.LastIndex(arn, "/")+1:]+"/manifest-summary.json" {
		t.Fatalf("completed ExportDescription = %+v", d)
	}
	sum, lines := exportFiles(t, root, d)
	if got := exportedItems(t, lines); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("export at %v differs from the table then:\ngot\n%s\nwant\n%s", at, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sum.Version != "2020-06-30" || sum.ExportArn != arn || sum.OutputFormat != "DYNAMODB_JSON" || sum.S3Bucket != "my-bucket" ||
		sum.ExportTime == nil || sum.ManifestFilesS3Key != strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json")+"manifest-files.json" {
		t.Fatalf("manifest-summary.json = %+v", sum)
	}
	// The same token with another parameter: ExportConflictException.
	in.ExportFormat = types.ExportFormatIon
	_, err = c.ExportTableToPointInTime(ctxT(t), in)
	wantAPIErrorMatch(t, err, "ExportConflictException", regexp.MustCompile(`^Duplicate request detected`))
}

// An ION export of the current table writes .ion.gz files whose text
// starts with the Ion version marker and holds one {Item:...} per item.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
func TestExportIon(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root)
	src := tableName("exp_ion")
	createIndexedTable(t, c, src)
	enablePITR(t, c, src)
	for i := range 3 {
		putItem(t, c, src, backupItem(i))
	}
	out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)),
		S3Bucket: aws.String("ion-bucket"), ExportFormat: types.ExportFormatIon, ExportType: types.ExportTypeFullExport})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExportDescription.ExportType != types.ExportTypeFullExport || aws.ToString(out.ExportDescription.ClientToken) == "" {
		t.Fatalf("ExportDescription = %+v", out.ExportDescription)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if d.ExportStatus != types.ExportStatusCompleted || !strings.HasPrefix(aws.ToString(d.ExportManifest), "AWSDynamoDB/") {
		t.Fatalf("ExportDescription = %+v", d)
	}
	_, lines := exportFiles(t, root, d)
	if len(lines) != 3 {
		t.Fatalf("ION export lines = %q", lines)
	}
	text := strings.Join(lines, "\n")
	if strings.Count(text, "$ion_1_0 ") != 1 || strings.Count(text, "{Item:{") != 3 || !strings.Contains(text, `"sk":0.`) {
		t.Fatalf("ION export = %s", text)
	}
}

// An incremental export of a period holds exactly one record per item
// changed in it: keys, the new image (none when deleted) and the old image
// (none when created); an item created and deleted in the period, and
// writes before and after it, leave nothing.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_IncrementalExportSpecification.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
func TestExportIncremental(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root, "--export-min-incremental-period", "500ms")
	src := tableName("exp_inc")
	createHashTable(t, c, src, "S")
	enablePITR(t, c, src)
	put := func(k, v string) { putItem(t, c, src, item{"pk": avS(k), "v": avS(v)}) }
	del := func(k string) {
		if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: item{"pk": avS(k)}}); err != nil {
			t.Fatal(err)
		}
	}
	put("a0", "before")
	put("a1", "before")
	put("a4", "before")
	waitNextSecond(time.Now())
	from := time.Now()
	put("a0", "mid1")
	put("a0", "mid2")
	del("a1")
	put("a2", "new")
	put("a3", "brief")
	del("a3")
	waitNextSecond(time.Now())
	to := time.Now()
	waitNextSecond(to)
	put("a0", "after") // the new image of a0 must be the one at the end of the period
	put("a4", "after") // a change after the period only
	out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)),
		S3Bucket: aws.String("inc"), ExportType: types.ExportTypeIncrementalExport,
		IncrementalExportSpecification: &types.IncrementalExportSpecification{ExportFromTime: aws.Time(from), ExportToTime: aws.Time(to)}})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	spec := d.IncrementalExportSpecification
	if d.ExportStatus != types.ExportStatusCompleted || d.ExportType != types.ExportTypeIncrementalExport || spec == nil ||
		spec.ExportViewType != types.ExportViewTypeNewAndOldImages || d.ExportTime != nil {
		t.Fatalf("ExportDescription = %+v", d)
	}
	sum, lines := exportFiles(t, root, d)
	if sum.Version != "2023-08-01" || sum.ExportType != "INCREMENTAL_EXPORT" || sum.ExportFromTime == nil || sum.ExportToTime == nil {
		t.Fatalf("manifest-summary.json = %+v", sum)
	}
	var got []string
	for _, l := range lines {
		var rec struct {
			Metadata struct{ WriteTimestampMicros struct{ N string } }
			Keys     json.RawMessage
			NewImage json.RawMessage
			OldImage json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Metadata.WriteTimestampMicros.N == "" {
			t.Fatalf("line %s: %v", l, err)
		}
		s := canonical(t, rec.Keys)
		if rec.NewImage != nil {
			s += " new=" + canonical(t, rec.NewImage)
		}
		if rec.OldImage != nil {
			s += " old=" + canonical(t, rec.OldImage)
		}
		got = append(got, s)
	}
	sort.Strings(got)
	want := []string{
		`{"pk":{"S":"a0"}} new={"pk":{"S":"a0"},"v":{"S":"mid2"}} old={"pk":{"S":"a0"},"v":{"S":"before"}}`,
		`{"pk":{"S":"a1"}} old={"pk":{"S":"a1"},"v":{"S":"before"}}`,
		`{"pk":{"S":"a2"}} new={"pk":{"S":"a2"},"v":{"S":"new"}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("incremental export records:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A server killed with SIGKILL in the middle of an export (slowed down to
// last seconds) resumes it when it restarts, here or, on a shared backend,
// once its lease expires: the export completes with every item and the
// table loses nothing.
func TestExportSurvivesKill(t *testing.T) {
	dataDir, root := t.TempDir(), t.TempDir()
	args := []string{"--data-dir", dataDir, "--export-dir", root, "--export-page-delay", "400ms"}
	s := startServer(t, args...)
	c := newClient(t, s.Endpoint)
	src := tableName("exp_kill")
	createIndexedTable(t, c, src)
	enablePITR(t, c, src)
	const n = 3000
	fillTable(t, c, src, n)
	out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)), S3Bucket: aws.String("kill")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.ExportDescription.ExportArn)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.log.String(), "job progress") && !strings.Contains(s.log.String(), "job started") {
		if time.Now().After(deadline) {
			t.Fatal("the export did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // into the writing of the data files
	d, err := c.DescribeExport(ctxT(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
	if err != nil || d.ExportDescription.ExportStatus != types.ExportStatusInProgress {
		t.Fatalf("export before the kill: %+v, %v", d, err)
	}
	s.kill()

	s = startServer(t, args...)
	c = newClient(t, s.Endpoint)
	desc := waitExport(t, c, arn)
	if desc.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(desc.ItemCount) != n {
		t.Fatalf("export resumed after a kill: %+v", desc)
	}
	if !strings.Contains(s.log.String(), "resuming job") {
		t.Fatalf("the restarted server did not resume the export; log:\n%s", s.log.String())
	}
	if _, lines := exportFiles(t, root, desc); len(lines) != n {
		t.Fatalf("export resumed after a kill holds %d items, want %d", len(lines), n)
	}
	if got := countItems(t, c, src); got != n {
		t.Fatalf("source table has %d items after the kill, want %d", got, n)
	}
}

// DescribeExport and ListExports: the filter by table, MaxResults paging
// newest first, and the errors for unknown exports and bad tokens.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListExports.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeExport.html
func TestListAndDescribeExports(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	a, b := tableName("exp_la"), tableName("exp_lb")
	for _, n := range []string{a, b} {
		createHashTable(t, c, n, "S")
		enablePITR(t, c, n)
	}
	var arns []string
	for i := range 3 {
		tbl := a
		if i == 2 {
			tbl = b
		}
		out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(tbl)), S3Bucket: aws.String("lst")})
		if err != nil {
			t.Fatal(err)
		}
		arns = append(arns, aws.ToString(out.ExportDescription.ExportArn))
		time.Sleep(2 * time.Millisecond) // IDs start with the time in milliseconds
	}
	var seen []string
	in := &dynamodb.ListExportsInput{TableArn: aws.String(tableArn(a)), MaxResults: aws.Int32(1)}
	for {
		out, err := c.ListExports(ctxT(t), in)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.ExportSummaries) > 1 {
			t.Fatalf("page of %d with MaxResults 1", len(out.ExportSummaries))
		}
		for _, x := range out.ExportSummaries {
			if x.ExportType != types.ExportTypeFullExport || x.ExportStatus == "" {
				t.Fatalf("summary %+v", x)
			}
			seen = append(seen, aws.ToString(x.ExportArn))
		}
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	if strings.Join(seen, " ") != arns[1]+" "+arns[0] {
		t.Fatalf("ListExports for %s = %v, want newest first %v", a, seen, arns[:2])
	}
	// An export of an empty table has one empty data file, as DynamoDB
	// writes one per partition, empty or not.
	empty := waitExport(t, c, arns[2])
	if _, lines := exportFiles(t, root, empty); empty.ExportStatus != types.ExportStatusCompleted || len(lines) != 0 {
		t.Fatalf("export of an empty table: %+v, %d lines", empty, len(lines))
	}
	dir := filepath.Join(root, "lst", filepath.FromSlash(strings.TrimSuffix(aws.ToString(empty.ExportManifest), "/manifest-summary.json")), "data")
	if files, err := os.ReadDir(dir); err != nil || len(files) != 1 || !strings.HasSuffix(files[0].Name(), ".json.gz") {
		t.Fatalf("data files of an empty export: %v, %v", files, err)
	}
	all, err := c.ListExports(ctxT(t), &dynamodb.ListExportsInput{})
	if err != nil || len(all.ExportSummaries) != 3 {
		t.Fatalf("ListExports = %+v, %v", all, err)
	}
	missing := arns[0][:strings.LastIndex(arns[0], "/")+1] + "01234567890123-0badf00d"
	_, err = c.DescribeExport(ctxT(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(missing)})
	wantAPIError(t, err, "ExportNotFoundException", "Export not found: "+missing)
	_, err = c.DescribeExport(ctxT(t), &dynamodb.DescribeExportInput{ExportArn: aws.String(tableArn(a) + "/nothing-here/1234567")})
	wantAPIErrorMatch(t, err, "ValidationException", regexp.MustCompile(`^Invalid Export ARN`))
	r := callRaw(t, s.Endpoint, "ListExports", `{"NextToken":"`+strings.Repeat("0123456789abcdef", 16)+`"}`)
	wantRawError(t, r, "ValidationException", "Invalid NextToken provided for ListExports")
	r = callRaw(t, s.Endpoint, "ListExports", `{"MaxResults":26}`)
	wantRawError(t, r, "ValidationException", "1 validation error detected: Value '26' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 25")
}

// The errors of ExportTableToPointInTime, each as DynamoDB words it where
// it is known: constraint violations, a table without point in time
// recovery, export times outside the window, an incremental period under
// 15 minutes, an unknown table, and a prefix leaving its bucket.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html#API_ExportTableToPointInTime_Errors
// Texts quoted from DynamoDB by
// https://github.com/scylladb/scylladb/blob/master/test/alternator/test_export.py
func TestExportErrors(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	src := tableName("exp_err")
	createHashTable(t, c, src, "S")
	arn := tableArn(src)
	_, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("b1")})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table '"+src+"'")
	enablePITR(t, c, src)

	call := func(body string) rawResponse { return callRaw(t, s.Endpoint, "ExportTableToPointInTime", body) }
	r := call(`{"TableArn":"` + arn + `","S3Bucket":"b1","ExportFormat":"QWERTY"}`)
	wantRawError(t, r, "ValidationException", "1 validation error detected: Value 'QWERTY' at 'exportFormat' failed to satisfy constraint: Member must satisfy enum value set: [ION, DYNAMODB_JSON]")
	r = call(`{"TableArn":"` + arn + `","S3Bucket":""}`)
	wantRawError(t, r, "ValidationException", `1 validation error detected: Value '' at 's3Bucket' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`)
	r = call(`{"S3Bucket":"b1","ExportType":"QWERTY","ClientToken":""}`)
	wantValidationErrors(t, rawMessage(t, r),
		"Value null at 'tableArn' failed to satisfy constraint: Member must not be null",
		`Value '' at 'clientToken' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[^\$]+$`,
		"Value 'QWERTY' at 'exportType' failed to satisfy constraint: Member must satisfy enum value set: [INCREMENTAL_EXPORT, FULL_EXPORT]")
	r = call(`{"TableArn":"QWERTY","S3Bucket":"b1"}`)
	wantRawError(t, r, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input QWERTY")
	r = call(`{"TableArn":"` + arn + `","S3Bucket":"b1","S3Prefix":"a/../../etc"}`)
	wantRawError(t, r, "ValidationException", `Invalid S3Prefix: a/../../etc: a prefix segment may not be '.' or '..' or hold '\' or NUL on this server`)

	_, err = c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn("exp_nope")), S3Bucket: aws.String("b1")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: exp_nope")
	for _, at := range []time.Time{time.Now().Add(-time.Hour), time.Now().Add(time.Hour)} {
		_, err = c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("b1"), ExportTime: aws.Time(at)})
		wantAPIError(t, err, "InvalidExportTimeException", "Export Time is invalid")
	}
	waitNextSecond(time.Now())
	now := time.Now()
	_, err = c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("b1"),
		ExportType: types.ExportTypeIncrementalExport, IncrementalExportSpecification: &types.IncrementalExportSpecification{
			ExportFromTime: aws.Time(now.Add(-time.Second)), ExportToTime: aws.Time(now)}})
	wantAPIErrorMatch(t, err, "InvalidExportTimeException", regexp.MustCompile(`^Difference between export period`))
	entries, _ := os.ReadDir(root)
	if len(entries) != 0 {
		t.Fatalf("refused exports wrote into the export directory: %v", entries)
	}
}

// An export's data files, in either format, import with ImportTable back
// into a table equal to the exported one: the export writes what DynamoDB's
// import reads, every attribute type included.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html
func TestExportThenImport(t *testing.T) {
	root := t.TempDir()
	s, c := startClient(t, "--export-dir", root)
	src := tableName("exp_rt")
	createIndexedTable(t, c, src)
	enablePITR(t, c, src)
	for i := range 30 {
		putItem(t, c, src, backupItem(i))
	}
	want := scanSet(t, s.Endpoint, src)
	for _, format := range []types.ExportFormat{types.ExportFormatDynamodbJson, types.ExportFormatIon} {
		out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)),
			S3Bucket: aws.String("rt"), S3Prefix: aws.String("by-format"), ExportFormat: format})
		if err != nil {
			t.Fatal(err)
		}
		d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
		if d.ExportStatus != types.ExportStatusCompleted {
			t.Fatalf("export: %+v", d)
		}
		dst := tableName("exp_rt_" + strings.ToLower(string(format)))
		imp, err := c.ImportTable(ctxT(t), &dynamodb.ImportTableInput{
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("rt"),
				S3KeyPrefix: aws.String(strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json") + "data/")},
			InputFormat: types.InputFormat(format), InputCompressionType: types.InputCompressionTypeGzip,
			TableCreationParameters: &types.TableCreationParameters{TableName: aws.String(dst), KeySchema: keySchema("pk", "sk"),
				AttributeDefinitions: attrDefs("pk", "S", "sk", "N"), BillingMode: types.BillingModePayPerRequest}})
		if err != nil {
			t.Fatal(err)
		}
		id := waitImport(t, c, aws.ToString(imp.ImportTableDescription.ImportArn), 60*time.Second)
		if id.ImportStatus != types.ImportStatusCompleted || id.ErrorCount != 0 {
			t.Fatalf("import of the %s export: %+v", format, id)
		}
		if got := scanSet(t, s.Endpoint, dst); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s export imported back differs:\ngot\n%s\nwant\n%s", format, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
