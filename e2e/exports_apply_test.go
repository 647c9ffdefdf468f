package e2e

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fullExportAt exports table src as it was at at and returns its items,
// canonical DynamoDB JSON by the canonical JSON of their key.
func fullExportAt(t *testing.T, c *dynamodb.Client, root, src string, at time.Time) map[string]string {
	t.Helper()
	out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)),
		S3Bucket: aws.String("apply"), ExportTime: aws.Time(at)})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if d.ExportStatus != types.ExportStatusCompleted {
		t.Fatalf("full export at %v: %s %s", at, d.ExportStatus, aws.ToString(d.FailureMessage))
	}
	_, lines := exportFiles(t, root, d)
	items := map[string]string{}
	for _, l := range lines {
		var rec struct{ Item json.RawMessage }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		var key struct{ Pk json.RawMessage }
		if err := json.Unmarshal(rec.Item, &key); err != nil {
			t.Fatal(err)
		}
		items[string(key.Pk)] = canonical(t, rec.Item)
	}
	return items
}

// render lists items in key order, one a line.
func render(items map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(items)) {
		out = append(out, items[k])
	}
	return strings.Join(out, "\n")
}

// An incremental export of [from, to) applied to a full export at from
// (each record's NewImage put, or its key deleted when it has none) gives
// the full export at to: the way DynamoDB documents keeping a copy of a
// table current.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.HowItWorks.html
func TestIncrementalExportAppliedToFullExport(t *testing.T) {
	root := t.TempDir()
	_, c := startClient(t, "--export-dir", root, "--export-min-incremental-period", "500ms")
	src := tableName("exp_apply")
	createHashTable(t, c, src, "S")
	enablePITR(t, c, src)
	put := func(k, v string) { putItem(t, c, src, item{"pk": avS(k), "v": avS(v)}) }
	del := func(k string) {
		if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(src), Key: item{"pk": avS(k)}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		put(k, "v1")
	}
	waitNextSecond(time.Now())
	from := time.Now()
	put("a", "v2")
	del("b")
	put("e", "v1")
	put("f", "v1")
	del("f")
	put("b", "v3") // deleted, then created again
	del("c")
	waitNextSecond(time.Now())
	to := time.Now()
	waitNextSecond(to)
	put("d", "after") // after the period: in neither export

	state := fullExportAt(t, c, root, src, from)
	out, err := c.ExportTableToPointInTime(ctxT(t), &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(tableArn(src)),
		S3Bucket: aws.String("apply"), ExportType: types.ExportTypeIncrementalExport,
		IncrementalExportSpecification: &types.IncrementalExportSpecification{ExportFromTime: aws.Time(from), ExportToTime: aws.Time(to),
			ExportViewType: types.ExportViewTypeNewImage}})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if d.ExportStatus != types.ExportStatusCompleted {
		t.Fatalf("incremental export: %s %s", d.ExportStatus, aws.ToString(d.FailureMessage))
	}
	_, lines := exportFiles(t, root, d)
	for _, l := range lines {
		var rec struct {
			Keys     struct{ Pk json.RawMessage }
			NewImage json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		if rec.NewImage == nil {
			delete(state, string(rec.Keys.Pk))
			continue
		}
		state[string(rec.Keys.Pk)] = canonical(t, rec.NewImage)
	}
	want := fullExportAt(t, c, root, src, to)
	if got := render(state); got != render(want) {
		t.Fatalf("full export at from with the incremental export applied:\n%s\nwant the full export at to:\n%s", got, render(want))
	}
	if !strings.Contains(render(want), `"v":{"S":"v3"}`) || strings.Contains(render(want), "after") {
		t.Fatalf("full export at to does not hold the period's writes only:\n%s", render(want))
	}
}
