package e2e

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func tableArn(name string) string {
	return "arn:aws:dynamodb:" + testRegion + ":" + testAccount + ":table/" + name
}

func wantKeySchema(t testing.TB, got []types.KeySchemaElement, want ...string) {
	t.Helper()
	var g []string
	for _, k := range got {
		g = append(g, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	if strings.Join(g, ",") != strings.Join(want, ",") {
		t.Fatalf("KeySchema: want %v, got %v", want, g)
	}
}

func wantAttrDefs(t testing.TB, got []types.AttributeDefinition, want ...string) {
	t.Helper()
	var g []string
	for _, a := range got {
		g = append(g, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	sort.Strings(g)
	w := append([]string(nil), want...)
	sort.Strings(w)
	if strings.Join(g, ",") != strings.Join(w, ",") {
		t.Fatalf("AttributeDefinitions: want %v, got %v", w, g)
	}
}

func TestCreateTableProvisionedWithIndexes(t *testing.T) {
	_, c := startClient(t)
	name := tableName("create")
	before := time.Now().Add(-2 * time.Second)
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("a", "S", "b", "N", "c", "B", "d", "S"),
		KeySchema:            keySchema("a", "b"),
		ProvisionedThroughput: &types.ProvisionedThroughput{
			ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7),
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName:  aws.String("lsi-c"),
			KeySchema:  keySchema("a", "c"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("gsi-d"),
			KeySchema:  keySchema("d", "b"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x", "y"}},
			ProvisionedThroughput: &types.ProvisionedThroughput{
				ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4),
			},
		}},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	after := time.Now().Add(2 * time.Second)
	for _, d := range []*types.TableDescription{out.TableDescription, describe(t, c, name)} {
		if aws.ToString(d.TableName) != name {
			t.Fatalf("TableName %q", aws.ToString(d.TableName))
		}
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html
		if got := aws.ToString(d.TableArn); got != tableArn(name) {
			t.Fatalf("TableArn: want %s, got %s", tableArn(name), got)
		}
		if !uuidRE.MatchString(aws.ToString(d.TableId)) {
			t.Fatalf("TableId %q is not a UUID (dynalite test/createTable.js checks DynamoDB's TableId against a v4 UUID)", aws.ToString(d.TableId))
		}
		if d.TableStatus != types.TableStatusActive {
			t.Fatalf("TableStatus: want ACTIVE with the default --status-delay 0, got %s", d.TableStatus)
		}
		if d.CreationDateTime == nil || d.CreationDateTime.Before(before) || d.CreationDateTime.After(after) {
			t.Fatalf("CreationDateTime %v not between %v and %v", d.CreationDateTime, before, after)
		}
		wantKeySchema(t, d.KeySchema, "a:HASH", "b:RANGE")
		wantAttrDefs(t, d.AttributeDefinitions, "a:S", "b:N", "c:B", "d:S")
		pt := d.ProvisionedThroughput
		if aws.ToInt64(pt.ReadCapacityUnits) != 5 || aws.ToInt64(pt.WriteCapacityUnits) != 7 || aws.ToInt64(pt.NumberOfDecreasesToday) != 0 {
			t.Fatalf("ProvisionedThroughput: %+v", pt)
		}
		if aws.ToInt64(d.ItemCount) != 0 || aws.ToInt64(d.TableSizeBytes) != 0 {
			t.Fatalf("ItemCount %d TableSizeBytes %d, want 0 0", aws.ToInt64(d.ItemCount), aws.ToInt64(d.TableSizeBytes))
		}
		if len(d.LocalSecondaryIndexes) != 1 {
			t.Fatalf("LocalSecondaryIndexes: %+v", d.LocalSecondaryIndexes)
		}
		lsi := d.LocalSecondaryIndexes[0]
		if aws.ToString(lsi.IndexName) != "lsi-c" || aws.ToString(lsi.IndexArn) != tableArn(name)+"/index/lsi-c" ||
			lsi.Projection.ProjectionType != types.ProjectionTypeKeysOnly {
			t.Fatalf("LSI: name %q arn %q projection %v", aws.ToString(lsi.IndexName), aws.ToString(lsi.IndexArn), lsi.Projection.ProjectionType)
		}
		wantKeySchema(t, lsi.KeySchema, "a:HASH", "c:RANGE")
		if len(d.GlobalSecondaryIndexes) != 1 {
			t.Fatalf("GlobalSecondaryIndexes: %+v", d.GlobalSecondaryIndexes)
		}
		gsi := d.GlobalSecondaryIndexes[0]
		if aws.ToString(gsi.IndexName) != "gsi-d" || aws.ToString(gsi.IndexArn) != tableArn(name)+"/index/gsi-d" ||
			gsi.IndexStatus != types.IndexStatusActive || gsi.Projection.ProjectionType != types.ProjectionTypeInclude ||
			strings.Join(gsi.Projection.NonKeyAttributes, ",") != "x,y" {
			t.Fatalf("GSI: name %q arn %q status %s projection %+v", aws.ToString(gsi.IndexName), aws.ToString(gsi.IndexArn), gsi.IndexStatus, gsi.Projection)
		}
		wantKeySchema(t, gsi.KeySchema, "d:HASH", "b:RANGE")
		if aws.ToInt64(gsi.ProvisionedThroughput.ReadCapacityUnits) != 3 || aws.ToInt64(gsi.ProvisionedThroughput.WriteCapacityUnits) != 4 {
			t.Fatalf("GSI throughput: %+v", gsi.ProvisionedThroughput)
		}
	}

	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html (ResourceInUseException);
	// message from architect/dynalite test/createTable.js.
	_, err = c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:             aws.String(name),
		AttributeDefinitions:  attrDefs("a", "S"),
		KeySchema:             keySchema("a"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	})
	wantAPIError(t, err, "ResourceInUseException", "Table already exists: "+name)
}

func TestCreateTablePayPerRequest(t *testing.T) {
	_, c := startClient(t)
	name := tableName("ondemand")
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("id", "N"),
		KeySchema:            keySchema("id"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*types.TableDescription{out.TableDescription, describe(t, c, name)} {
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BillingModeSummary.html
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Fatalf("BillingModeSummary: %+v", d.BillingModeSummary)
		}
		// On-demand tables report zero provisioned throughput (architect/dynalite test/updateTable.js).
		if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 0 || aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 0 {
			t.Fatalf("ProvisionedThroughput: %+v", d.ProvisionedThroughput)
		}
		wantKeySchema(t, d.KeySchema, "id:HASH")
		wantAttrDefs(t, d.AttributeDefinitions, "id:N")
	}
}

// TestCreateTableValidation checks CreateTable's validation errors word for
// word. Unless noted, each message is from architect/dynalite
// test/createTable.js (https://github.com/architect/dynalite/blob/main/test/createTable.js),
// whose tests are run against DynamoDB itself.
func TestCreateTableValidation(t *testing.T) {
	_, c := startClient(t)
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
	gsi := func(name string, ks []types.KeySchemaElement, p *types.Projection) types.GlobalSecondaryIndex {
		return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: ks, Projection: p, ProvisionedThroughput: pt}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	var gsis21 []types.GlobalSecondaryIndex
	for i := 0; i < 21; i++ {
		gsis21 = append(gsis21, gsi(fmt.Sprintf("abc%d", i), keySchema("a", "b"), all))
	}
	cases := []struct {
		name string
		in   dynamodb.CreateTableInput
		msg  string
	}{
		{"attribute type SS", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("b", "SS"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}}, ProvisionedThroughput: pt},
			"1 validation error detected: Value 'SS' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"},
		{"key attribute not defined", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("b", "S"), KeySchema: keySchema("a"), ProvisionedThroughput: pt},
			"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]"},
		{"two keys, one not defined", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt},
			"Invalid KeySchema: Some index key attribute have no definition"},
		{"hash and range same name", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}}, ProvisionedThroughput: pt},
			"Both the Hash Key and the Range Key element in the KeySchema have the same name"},
		{"second key not RANGE", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("b"), KeyType: types.KeyTypeHash}}, ProvisionedThroughput: pt},
			"Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"},
		{"first key not HASH", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeRange}, {AttributeName: aws.String("b"), KeyType: types.KeyTypeHash}}, ProvisionedThroughput: pt},
			"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"extra attribute definition", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a"), ProvisionedThroughput: pt},
			"One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"read capacity out of bounds", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S"), KeySchema: keySchema("a"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000000000001), WriteCapacityUnits: aws.Int64(1000000000001)}},
			"Given value 1000000000001 for ReadCapacityUnits is out of bounds"},
		{"write capacity out of bounds", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S"), KeySchema: keySchema("a"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000000000000), WriteCapacityUnits: aws.Int64(1000000000001)}},
			"Given value 1000000000001 for WriteCapacityUnits is out of bounds"},
		{"PROVISIONED without throughput", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S"), KeySchema: keySchema("a")},
			"One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"PAY_PER_REQUEST with throughput", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S"), KeySchema: keySchema("a"), BillingMode: types.BillingModePayPerRequest, ProvisionedThroughput: pt},
			"One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"LSI without table range key", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a"), ProvisionedThroughput: pt,
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("abc"), KeySchema: keySchema("a", "b"), Projection: all}}},
			"One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"},
		{"LSI without range key", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("abc"), KeySchema: keySchema("b"), Projection: &types.Projection{}}}},
			"One or more parameter values were invalid: Index KeySchema does not have a range key for index: abc"},
		{"LSI with another hash key", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("abc"), KeySchema: keySchema("b", "a"), Projection: &types.Projection{}}}},
			"One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: abc. index hash key: b, table hash key: a"},
		{"GSI projection type missing", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("abc", keySchema("a", "b"), &types.Projection{NonKeyAttributes: []string{"a"}})}},
			"One or more parameter values were invalid: Unknown ProjectionType: null"},
		{"GSI ALL with NonKeyAttributes", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("abc", keySchema("a", "b"), &types.Projection{ProjectionType: types.ProjectionTypeAll, NonKeyAttributes: []string{"a"}})}},
			"One or more parameter values were invalid: ProjectionType is ALL, but NonKeyAttributes is specified"},
		{"GSI KEYS_ONLY with NonKeyAttributes", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("abc", keySchema("a", "b"), &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly, NonKeyAttributes: []string{"a"}})}},
			"One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"},
		{"duplicate GSI names", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("abc", keySchema("a", "b"), all), gsi("abc", keySchema("a", "b"), all)}},
			"One or more parameter values were invalid: Duplicate index name: abc"},
		{"LSI and GSI with one name", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			LocalSecondaryIndexes:  []types.LocalSecondaryIndex{{IndexName: aws.String("abc"), KeySchema: keySchema("a", "b"), Projection: all}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("abc", keySchema("a", "b"), all)}},
			"One or more parameter values were invalid: Duplicate index name: abc"},
		{"21 GSIs", dynamodb.CreateTableInput{
			AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a", "b"), ProvisionedThroughput: pt,
			GlobalSecondaryIndexes: gsis21},
			"One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.TableName = aws.String(tableName("invalid"))
			_, err := c.CreateTable(ctxT(t), &in)
			wantAPIError(t, err, "ValidationException", tc.msg)
		})
	}
}

// TestCreateTableMemberConstraints sends requests the SDK would refuse to
// build (missing required members), so they go as raw signed HTTP.
// Messages: architect/dynalite test/createTable.js.
func TestCreateTableMemberConstraints(t *testing.T) {
	s := startServer(t)
	t.Run("null members and bad name", func(t *testing.T) {
		r := callRaw(t, s.Endpoint, "CreateTable", `{"TableName":"abc;"}`)
		wantRawErrorType(t, r, "ValidationException")
		wantValidationErrors(t, rawMessage(t, r),
			"Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null",
			"Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
			"Value null at 'keySchema' failed to satisfy constraint: Member must not be null")
	})
	t.Run("low throughput and empty key schema", func(t *testing.T) {
		r := callRaw(t, s.Endpoint, "CreateTable", `{"TableName":"abc","AttributeDefinitions":[],"KeySchema":[],"ProvisionedThroughput":{"ReadCapacityUnits":-1,"WriteCapacityUnits":-1}}`)
		wantRawErrorType(t, r, "ValidationException")
		wantValidationErrors(t, rawMessage(t, r),
			"Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1",
			"Value '-1' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1",
			"Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1")
	})
	t.Run("bad projection type", func(t *testing.T) {
		r := callRaw(t, s.Endpoint, "CreateTable", `{"TableName":"abc",
			"AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"},{"AttributeName":"b","AttributeType":"S"}],
			"KeySchema":[{"KeyType":"HASH","AttributeName":"a"},{"KeyType":"RANGE","AttributeName":"b"}],
			"GlobalSecondaryIndexes":[{"IndexName":"abc","KeySchema":[{"AttributeName":"a","KeyType":"HASH"},{"AttributeName":"b","KeyType":"RANGE"}],
				"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1},"Projection":{"NonKeyAttributes":[],"ProjectionType":"abc"}}],
			"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`)
		wantRawErrorType(t, r, "ValidationException")
		wantValidationErrors(t, rawMessage(t, r),
			"Value 'abc' at 'globalSecondaryIndexes.1.member.projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]",
			"Value '[]' at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed to satisfy constraint: Member must have length greater than or equal to 1")
	})
}

// wantRawErrorType asserts HTTP 400 and the __type short name only.
func wantRawErrorType(t testing.TB, r rawResponse, name string) {
	t.Helper()
	if r.Status != 400 || !strings.Contains(string(r.Body), "#"+name+`"`) {
		t.Fatalf("want 400 %s, got %d %s", name, r.Status, r.Body)
	}
}

func describe(t testing.TB, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", name, err)
	}
	return out.Table
}

func TestDescribeTableCountsItems(t *testing.T) {
	_, c := startClient(t)
	name := tableName("describe")
	createHashTable(t, c, name, "S")
	// Item size is the attribute names' UTF-8 lengths plus the values' sizes:
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
	// {"pk":"k1","v":"hello"} = 2+2 + 1+5 = 10 bytes; {"pk":"k2"} = 4 bytes.
	putItem(t, c, name, item{"pk": avS("k1"), "v": avS("hello")})
	putItem(t, c, name, item{"pk": avS("k2")})
	d := describe(t, c, name)
	if aws.ToInt64(d.ItemCount) != 2 {
		t.Fatalf("ItemCount: want 2, got %d", aws.ToInt64(d.ItemCount))
	}
	if aws.ToInt64(d.TableSizeBytes) != 14 {
		t.Fatalf("TableSizeBytes: want 14, got %d", aws.ToInt64(d.TableSizeBytes))
	}
	if aws.ToString(d.TableArn) != tableArn(name) || d.TableStatus != types.TableStatusActive {
		t.Fatalf("TableArn %q TableStatus %s", aws.ToString(d.TableArn), d.TableStatus)
	}

	// architect/dynalite test/describeTable.js
	_, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String("nosuchtable")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nosuchtable not found")
}

func TestListTablesPaging(t *testing.T) {
	_, c := startClient(t)
	var names []string
	for i := 0; i < 7; i++ {
		n := fmt.Sprintf("list-%02d", i)
		names = append(names, n)
		createHashTable(t, c, n, "S")
	}
	out, err := c.ListTables(ctxT(t), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(out.TableNames, ",") != strings.Join(names, ",") || out.LastEvaluatedTableName != nil {
		t.Fatalf("ListTables: %v last %v", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
	}
	// Page through three at a time: ListTables returns names in order and a
	// LastEvaluatedTableName while more remain.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html
	var got []string
	var start *string
	pages := 0
	for {
		out, err := c.ListTables(ctxT(t), &dynamodb.ListTablesInput{Limit: aws.Int32(3), ExclusiveStartTableName: start})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(out.TableNames) > 3 {
			t.Fatalf("page of %d names with Limit 3", len(out.TableNames))
		}
		got = append(got, out.TableNames...)
		if out.LastEvaluatedTableName == nil {
			break
		}
		if *out.LastEvaluatedTableName != out.TableNames[len(out.TableNames)-1] {
			t.Fatalf("LastEvaluatedTableName %q is not the page's last name %q", *out.LastEvaluatedTableName, out.TableNames[len(out.TableNames)-1])
		}
		start = out.LastEvaluatedTableName
		if pages > 10 {
			t.Fatal("paging does not end")
		}
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("paged names: want %v, got %v", names, got)
	}
	// A start name between tables resumes after it (architect/dynalite test/listTables.js).
	out, err = c.ListTables(ctxT(t), &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String("list-03a"), Limit: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(out.TableNames, ",") != "list-04" || aws.ToString(out.LastEvaluatedTableName) != "list-04" {
		t.Fatalf("from list-03a: %v last %q", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
	}

	// architect/dynalite test/listTables.js
	_, err = c.ListTables(ctxT(t), &dynamodb.ListTablesInput{Limit: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	_, err = c.ListTables(ctxT(t), &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")
}

func TestDeleteTable(t *testing.T) {
	_, c := startClient(t)
	name := tableName("delete")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("x")})
	out, err := c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	// DeleteTable answers with the table in DELETING state:
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html
	// (architect/dynalite test/deleteTable.js asserts TableStatus DELETING).
	if out.TableDescription.TableStatus != types.TableStatusDeleting || aws.ToString(out.TableDescription.TableName) != name {
		t.Fatalf("DeleteTable response: status %s name %q", out.TableDescription.TableStatus, aws.ToString(out.TableDescription.TableName))
	}
	_, err = c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
	_, err = c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")

	// A table created again under the same name starts empty.
	createHashTable(t, c, name, "S")
	if it := getItem(t, c, name, item{"pk": avS("x")}); it != nil {
		t.Fatalf("recreated table still has %s", itemText(it))
	}
}

func TestDeletionProtection(t *testing.T) {
	_, c := startClient(t)
	name := tableName("protected")
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:                 aws.String(name),
		AttributeDefinitions:      attrDefs("pk", "S"),
		KeySchema:                 keySchema("pk"),
		BillingMode:               types.BillingModePayPerRequest,
		DeletionProtectionEnabled: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !aws.ToBool(out.TableDescription.DeletionProtectionEnabled) {
		t.Fatal("DeletionProtectionEnabled not reported")
	}
	// Message: the exact AWS text as recorded in nubo-db/dynoxide issue #46
	// (https://github.com/nubo-db/dynoxide/issues/46); behaviour:
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection
	_, err = c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	if d := describe(t, c, name); d.TableStatus != types.TableStatusActive {
		t.Fatalf("protected table status %s after refused delete", d.TableStatus)
	}
	up, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToBool(up.TableDescription.DeletionProtectionEnabled) {
		t.Fatal("DeletionProtectionEnabled still true after UpdateTable")
	}
	if _, err := c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		t.Fatalf("DeleteTable after disabling protection: %v", err)
	}
}

func TestUpdateTable(t *testing.T) {
	_, c := startClient(t)
	name := tableName("update")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:             aws.String(name),
		AttributeDefinitions:  attrDefs("pk", "S"),
		KeySchema:             keySchema("pk"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("throughput increase", func(t *testing.T) {
		before := time.Now().Add(-2 * time.Second)
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(15)}})
		if err != nil {
			t.Fatal(err)
		}
		pt := describe(t, c, name).ProvisionedThroughput
		// architect/dynalite test/updateTable.js: an increase sets LastIncreaseDateTime.
		if aws.ToInt64(pt.ReadCapacityUnits) != 10 || aws.ToInt64(pt.WriteCapacityUnits) != 15 || pt.LastIncreaseDateTime == nil || pt.LastIncreaseDateTime.Before(before) {
			t.Fatalf("after increase: %+v", pt)
		}
	})
	t.Run("throughput decrease", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(3)}})
		if err != nil {
			t.Fatal(err)
		}
		pt := describe(t, c, name).ProvisionedThroughput
		// architect/dynalite test/updateTable.js: a decrease sets LastDecreaseDateTime and counts NumberOfDecreasesToday.
		if aws.ToInt64(pt.ReadCapacityUnits) != 2 || aws.ToInt64(pt.WriteCapacityUnits) != 3 || pt.LastDecreaseDateTime == nil || aws.ToInt64(pt.NumberOfDecreasesToday) != 1 {
			t.Fatalf("after decrease: %+v", pt)
		}
	})
	t.Run("unchanged throughput", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(3)}})
		// architect/dynalite test/updateTable.js
		wantAPIError(t, err, "ValidationException", "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 2. Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for the table: 3. Requested WriteCapacityUnits: 3. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	})
	t.Run("nothing to update", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name)})
		// architect/dynalite test/updateTable.js
		wantAPIError(t, err, "ValidationException", "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	})
	t.Run("out of bounds", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000000000001), WriteCapacityUnits: aws.Int64(1)}})
		wantAPIError(t, err, "ValidationException", "Given value 1000000000001 for ReadCapacityUnits is out of bounds")
	})
	t.Run("missing table", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String("nosuchtable"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
		wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: nosuchtable not found")
	})
	// architect/dynalite test/updateTable.js, recorded from DynamoDB: the
	// table's capacity bounds come before the table is read, and an index
	// Update beyond them is blocked whether or not the index exists.
	t.Run("out of bounds before the table", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String("nosuchtable"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000000000000), WriteCapacityUnits: aws.Int64(1000000000001)}})
		wantAPIError(t, err, "ValidationException", "Given value 1000000000001 for WriteCapacityUnits is out of bounds")
	})
	t.Run("index update out of bounds", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("nosuchindex"),
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1000000000001), WriteCapacityUnits: aws.Int64(1)}}}}})
		wantAPIError(t, err, "ValidationException", "This operation cannot be performed with given input values. Please contact DynamoDB service team for more info: Action Blocked: IndexUpdate")
	})
	t.Run("to PAY_PER_REQUEST", func(t *testing.T) {
		before := time.Now().Add(-2 * time.Second)
		if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest}); err != nil {
			t.Fatal(err)
		}
		d := describe(t, c, name)
		// architect/dynalite test/updateTable.js ("converted to PAY_PER_REQUEST and back again").
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest ||
			d.BillingModeSummary.LastUpdateToPayPerRequestDateTime == nil || d.BillingModeSummary.LastUpdateToPayPerRequestDateTime.Before(before) {
			t.Fatalf("BillingModeSummary: %+v", d.BillingModeSummary)
		}
		if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 0 || aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 0 {
			t.Fatalf("on-demand throughput: %+v", d.ProvisionedThroughput)
		}
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
		// architect/dynalite test/updateTable.js
		wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		_, err = c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned})
		// architect/dynalite test/updateTable.js
		wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	})
	t.Run("back to PROVISIONED", func(t *testing.T) {
		_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(4), WriteCapacityUnits: aws.Int64(6)}})
		if err != nil {
			t.Fatal(err)
		}
		d := describe(t, c, name)
		if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Fatalf("BillingModeSummary: %+v", d.BillingModeSummary)
		}
		if aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 4 || aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 6 {
			t.Fatalf("throughput: %+v", d.ProvisionedThroughput)
		}
	})
	t.Run("stream specification", func(t *testing.T) {
		out, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []*types.TableDescription{out.TableDescription, describe(t, c, name)} {
			// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html
			// LatestStreamArn is the table ARN + "/stream/" + LatestStreamLabel.
			if d.StreamSpecification == nil || !aws.ToBool(d.StreamSpecification.StreamEnabled) || d.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages {
				t.Fatalf("StreamSpecification: %+v", d.StreamSpecification)
			}
			if aws.ToString(d.LatestStreamLabel) == "" || aws.ToString(d.LatestStreamArn) != tableArn(name)+"/stream/"+aws.ToString(d.LatestStreamLabel) {
				t.Fatalf("LatestStreamLabel %q LatestStreamArn %q", aws.ToString(d.LatestStreamLabel), aws.ToString(d.LatestStreamArn))
			}
		}
		_, err = c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
		// DynamoDB refuses to enable an enabled stream ("ValidationException: Table
		// already has an enabled stream", hashicorp/terraform-provider-aws
		// internal/service/dynamodb/table.go); the full message names the table.
		wantAPIError(t, err, "ValidationException", "Table already has an enabled stream: TableName: "+name)
		if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}}); err != nil {
			t.Fatal(err)
		}
		if d := describe(t, c, name); d.StreamSpecification != nil && aws.ToBool(d.StreamSpecification.StreamEnabled) {
			t.Fatalf("stream still enabled: %+v", d.StreamSpecification)
		}
	})
	t.Run("deletion protection", func(t *testing.T) {
		out, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if !aws.ToBool(out.TableDescription.DeletionProtectionEnabled) || !aws.ToBool(describe(t, c, name).DeletionProtectionEnabled) {
			t.Fatal("DeletionProtectionEnabled not set")
		}
	})
}

// TestStatusDelay runs a server whose tables stay CREATING, UPDATING and
// DELETING for one second, as DynamoDB's do for a while.
func TestStatusDelay(t *testing.T) {
	_, c := startClient(t, "--status-delay", "1s")
	name := tableName("slow")
	created := time.Now()
	out, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	// architect/dynalite test/createTable.js: a new table is CREATING, then ACTIVE.
	if out.TableDescription.TableStatus != types.TableStatusCreating {
		t.Fatalf("CreateTable status: want CREATING, got %s", out.TableDescription.TableStatus)
	}
	if st := describe(t, c, name).TableStatus; st != types.TableStatusCreating {
		t.Fatalf("DescribeTable right after create: want CREATING, got %s", st)
	}
	// Item operations on a table being created: ResourceNotFoundException
	// (architect/dynalite test/putItem.js, "if table is being created").
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("a")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	// architect/dynalite test/deleteTable.js
	_, err = c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	wantAPIError(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: "+name)

	waitStatus(t, c, name, types.TableStatusActive, 5*time.Second)
	if el := time.Since(created); el < 900*time.Millisecond {
		t.Fatalf("table became ACTIVE after %v, before the 1s status delay", el)
	}
	putItem(t, c, name, item{"pk": avS("a")})

	up, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	// architect/dynalite test/updateTable.js: TableStatus UPDATING after a throughput change.
	if up.TableDescription.TableStatus != types.TableStatusUpdating {
		t.Fatalf("UpdateTable status: want UPDATING, got %s", up.TableDescription.TableStatus)
	}
	waitStatus(t, c, name, types.TableStatusActive, 5*time.Second)

	del, err := c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if del.TableDescription.TableStatus != types.TableStatusDeleting {
		t.Fatalf("DeleteTable status: want DELETING, got %s", del.TableDescription.TableStatus)
	}
	// architect/dynalite test/deleteTable.js ("should eventually delete").
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+name+" not found")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("table still exists 5s after DeleteTable")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func waitStatus(t testing.TB, c *dynamodb.Client, name string, want types.TableStatus, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := describe(t, c, name).TableStatus
		if st == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s status %s, want %s within %v", name, st, want, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestTags(t *testing.T) {
	_, c := startClient(t)
	name := tableName("tags")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		Tags:                 []types.Tag{{Key: aws.String("env"), Value: aws.String("test")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := tableArn(name)
	tags := func() string {
		t.Helper()
		out, err := c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
		if err != nil {
			t.Fatal(err)
		}
		var kv []string
		for _, tg := range out.Tags {
			kv = append(kv, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
		}
		sort.Strings(kv)
		return strings.Join(kv, ",")
	}
	if got := tags(); got != "env=test" {
		t.Fatalf("tags from CreateTable: %q", got)
	}
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html:
	// a tag with an existing key replaces its value.
	_, err = c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{
		{Key: aws.String("env"), Value: aws.String("prod")}, {Key: aws.String("team"), Value: aws.String("db")}, {Key: aws.String("empty"), Value: aws.String("")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tags(); got != "empty=,env=prod,team=db" {
		t.Fatalf("tags after TagResource: %q", got)
	}
	if _, err := c.UntagResource(ctxT(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"env", "absent"}}); err != nil {
		t.Fatal(err)
	}
	if got := tags(); got != "empty=,team=db" {
		t.Fatalf("tags after UntagResource: %q", got)
	}
	// A value that is not an ARN is refused in DynamoDB's current words,
	// which scylladb's test_tag_resource_incorrect quotes
	// (https://github.com/scylladb/scylladb/blob/master/test/alternator/test_tag.py).
	_, err = c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("not-an-arn")})
	wantAPIError(t, err, "ValidationException", "ARNs must start with 'arn:'")
	// architect/dynalite test/tagResource.js, test/untagResource.js,
	// test/listTagsOfResource.js: an ARN that does not name a table, or
	// names one with an invalid name, is "Invalid TableArn".
	for _, bad := range []string{"arn:b:c:d:e:f/g", tableArn("ab")} {
		_, err = c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(bad)})
		wantAPIError(t, err, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input "+bad)
		_, err = c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(bad), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		wantAPIError(t, err, "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input "+bad)
	}
	// A well-formed ARN of a missing table is ResourceNotFoundException
	// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTagsOfResource.html).
	_, err = c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(tableArn("nosuchtable"))})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}

func TestDescribeLimitsAndEndpoints(t *testing.T) {
	s, c := startClient(t)
	lim, err := c.DescribeLimits(ctxT(t), &dynamodb.DescribeLimitsInput{})
	if err != nil {
		t.Fatal(err)
	}
	// Default quotas: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#default-limits-throughput-capacity-modes
	// (80,000 per account, 40,000 per table, for reads and writes).
	if aws.ToInt64(lim.AccountMaxReadCapacityUnits) != 80000 || aws.ToInt64(lim.AccountMaxWriteCapacityUnits) != 80000 ||
		aws.ToInt64(lim.TableMaxReadCapacityUnits) != 40000 || aws.ToInt64(lim.TableMaxWriteCapacityUnits) != 40000 {
		t.Fatalf("DescribeLimits: %+v", lim)
	}
	ep, err := c.DescribeEndpoints(ctxT(t), &dynamodb.DescribeEndpointsInput{})
	if err != nil {
		t.Fatal(err)
	}
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeEndpoints.html
	// DynamoDB names its own address with a 1440-minute cache period; extenddb names itself.
	host := strings.TrimPrefix(s.Endpoint, "http://")
	if len(ep.Endpoints) != 1 || aws.ToString(ep.Endpoints[0].Address) != host || ep.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Fatalf("DescribeEndpoints: %+v (want address %s)", ep.Endpoints, host)
	}
}
