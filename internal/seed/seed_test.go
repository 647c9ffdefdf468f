package seed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tableByName(t *testing.T, p *Plan, name string) *Table {
	t.Helper()
	for _, tb := range p.Tables {
		if tb.Name == name {
			return tb
		}
	}
	t.Fatalf("no table %s in %+v", name, p.Tables)
	return nil
}

// jsonOf is the canonical JSON of v (map keys sorted), for comparisons.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	_ = json.Unmarshal(b, &back)
	b, _ = json.Marshal(back)
	return string(b)
}

// TestLoadDirectory reads every kind of file of testdata/full: CreateTable
// input, a SAM/CloudFormation template in YAML with !Sub and !Ref
// (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-dynamodb-table.html),
// a Terraform plan with a child module
// (https://developer.hashicorp.com/terraform/internals/json-format), and
// items files named after their tables.
func TestLoadDirectory(t *testing.T) {
	p, err := Load("testdata/full", "eu-west-1", "123456789012")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tables) != 5 {
		t.Fatalf("%d tables: %+v", len(p.Tables), p.Tables)
	}
	users := tableByName(t, p, "test-users")
	if users.TTLAttribute != "expiresAt" || !users.PointInTimeRecovery {
		t.Errorf("test-users TTL %q PITR %v", users.TTLAttribute, users.PointInTimeRecovery)
	}
	for k, want := range map[string]string{
		"ProvisionedThroughput": `{"ReadCapacityUnits":5,"WriteCapacityUnits":5}`,
		"StreamSpecification":   `{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}`,
		"Tags":                  `[{"Key":"stack","Value":"stack"}]`,
	} {
		if got := jsonOf(t, users.CreateTable[k]); got != want {
			t.Errorf("test-users %s = %s, want %s", k, got, want)
		}
	}
	if _, ok := users.CreateTable["TimeToLiveSpecification"]; ok {
		t.Error("TimeToLiveSpecification passed to CreateTable")
	}
	sessions := tableByName(t, p, "Sessions")
	if got := jsonOf(t, sessions.CreateTable); got != `{"AttributeDefinitions":[{"AttributeName":"token","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"token","KeyType":"HASH"}],"TableName":"Sessions"}` {
		t.Errorf("Sessions = %s", got)
	}
	events := tableByName(t, p, "Events")
	if got := jsonOf(t, events.CreateTable); got != `{"AttributeDefinitions":[{"AttributeName":"source","AttributeType":"S"},{"AttributeName":"at","AttributeType":"N"},{"AttributeName":"kind","AttributeType":"S"}],"BillingMode":"PROVISIONED","KeySchema":[{"AttributeName":"source","KeyType":"HASH"},{"AttributeName":"at","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"byKind","KeySchema":[{"AttributeName":"source","KeyType":"HASH"},{"AttributeName":"kind","KeyType":"RANGE"}],"Projection":{"NonKeyAttributes":["detail"],"ProjectionType":"INCLUDE"}}],"ProvisionedThroughput":{"ReadCapacityUnits":2,"WriteCapacityUnits":3},"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"TableName":"Events","Tags":[{"Key":"team","Value":"ops"}]}` {
		t.Errorf("Events = %s", got)
	}
	if events.TTLAttribute != "expires" {
		t.Errorf("Events TTL %q", events.TTLAttribute)
	}
	cache := tableByName(t, p, "Cache")
	if cache.PointInTimeRecovery || cache.CreateTable["BillingMode"] != "PAY_PER_REQUEST" || cache.CreateTable["ProvisionedThroughput"] != nil {
		t.Errorf("Cache = %+v", cache)
	}
	tableByName(t, p, "Orders")
	if len(p.Items) != 2 || p.Items[0].Table != "Orders" || p.Items[0].Format != "jsonl" || p.Items[1].Table != "test-users" || p.Items[1].Format != "csv" {
		t.Errorf("items files %+v", p.Items)
	}
}

// TestLoadRefusesUnsupportedIntrinsics: a function seeding cannot
// evaluate is refused with the place it is at, in JSON and in YAML.
func TestLoadRefusesUnsupportedIntrinsics(t *testing.T) {
	for _, dir := range []string{"testdata/getatt", "testdata/getatt-yaml"} {
		_, err := Load(dir, "us-east-1", "000000000000")
		if err == nil || !strings.Contains(err.Error(), "Resources.T.Properties.TableName: !GetAtt is not supported in a seed template") {
			t.Errorf("%s: %v", dir, err)
		}
	}
}

// TestReadJSONLinesNeedsTheExportShape: a line that is not {"Item": ...}
// is refused with its file and line, as ImportTable refuses it.
func TestReadJSONLinesNeedsTheExportShape(t *testing.T) {
	n := 0
	err := readItems("testdata/bare.jsonl", "jsonl", nil, func(json.RawMessage) error { n++; return nil })
	if err == nil || !strings.Contains(err.Error(), "testdata/bare.jsonl:2: ") || n != 1 {
		t.Fatalf("read %d items, then %v", n, err)
	}
}

// TestReadCSVTypes: key attributes take their table's type, others are
// strings, empty cells are absent.
func TestReadCSVTypes(t *testing.T) {
	var got []string
	err := readItems("testdata/full/test-users.csv", "csv", map[string]string{"id": "N"}, func(it json.RawMessage) error {
		got = append(got, jsonOf(t, it))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"email":{"S":"ann@example.com"},"id":{"N":"1"},"name":{"S":"Ann"}}`,
		`{"email":{"S":"ben@example.com"},"expiresAt":{"S":"4102444800"},"id":{"N":"2"},"name":{"S":"Ben, Jr."}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLoadRefusesExplodingAliases: a YAML template whose aliases refer to
// themselves, or multiply ("billion laughs"), is refused with an error,
// not expanded until the stack or the memory runs out.
func TestLoadRefusesExplodingAliases(t *testing.T) {
	laughs := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'j'; i, prev = i+1, i {
		laughs += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	for name, doc := range map[string]string{
		"self":   "Resources: &r\n  T: *r\n",
		"laughs": laughs,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir, "us-east-1", "000000000000")
		if err == nil || !strings.Contains(err.Error(), "too many values or nests too deep") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
