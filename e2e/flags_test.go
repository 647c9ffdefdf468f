package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The flags documented in docs/configuration.md.

func TestInMemoryKeepsNothing(t *testing.T) {
	s, c := startClient(t, "--in-memory")
	name := tableName("mem")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("a"), "v": avN("1")})
	wantItem(t, getItem(t, c, name, item{"pk": avS("a")}), item{"pk": avS("a"), "v": avN("1")})
	s.stop()

	_, c2 := startClient(t, "--in-memory")
	out, err := c2.ListTables(ctxT(t), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TableNames) != 0 {
		t.Fatalf("a new --in-memory server has tables %v", out.TableNames)
	}
}

func TestDataDirPersists(t *testing.T) {
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	name := tableName("persist")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("a"), "v": avSS("x", "y")})
	s.stop()

	_, c2 := startClient(t, "--data-dir", dir)
	d := describe(t, c2, name)
	if d.TableStatus != types.TableStatusActive || aws.ToInt64(d.ItemCount) != 1 {
		t.Fatalf("after restart: status %s ItemCount %d", d.TableStatus, aws.ToInt64(d.ItemCount))
	}
	wantItem(t, getItem(t, c2, name, item{"pk": avS("a")}), item{"pk": avS("a"), "v": avSS("x", "y")})
}

func TestAccountIDAndRegion(t *testing.T) {
	s, c := startClient(t, "--account-id", "123456789012", "--region", "eu-west-3")
	name := tableName("arn")
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	// A request signed for us-east-1 sees us-east-1 in its ARNs.
	if got, want := aws.ToString(out.TableDescription.TableArn), "arn:aws:dynamodb:us-east-1:123456789012:table/"+name; got != want {
		t.Fatalf("TableArn: want %s, got %s", want, got)
	}
	// A request whose credential names no region gets --region: its
	// namespace and its ARNs (regions are separate namespaces, so the table
	// is created there too).
	home := dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.Region = "eu-west-3" })
	if _, err := home.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
		BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.DescribeTable", []byte(`{"TableName":"`+name+`"}`), false, func(r *http.Request) {
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+testAccessKey+", SignedHeaders=host, Signature=0")
		r.Header.Set("X-Amz-Date", "20240101T000000Z")
	}))
	if r.Status != 200 {
		t.Fatalf("DescribeTable: %d %s", r.Status, r.Body)
	}
	var d struct{ Table struct{ TableArn string } }
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatal(err)
	}
	if want := "arn:aws:dynamodb:eu-west-3:123456789012:table/" + name; d.Table.TableArn != want {
		t.Fatalf("TableArn without a credential region: want %s, got %s", want, d.Table.TableArn)
	}
}
