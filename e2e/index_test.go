package e2e

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Secondary indexes end to end: multi-attribute GSI keys and their query
// rules, projections, DescribeTable's index descriptions, reads on indexes,
// online index creation and deletion (UpdateTable GlobalSecondaryIndexUpdates)
// with a backfill that survives a restart, and item collections of tables
// with local secondary indexes.
//
// Sources of DynamoDB's behaviour and messages:
//   - Multi-attribute keys and their query rules (skipping a sort-key
//     attribute fails with "Query key condition not supported"):
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html
//   - Online index operations:
//     https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html
//   - "Subscriber limit exceeded: Only 1 online index can be created or
//     deleted simultaneously per table" (LimitExceededException), DynamoDB's
//     answer as quoted by its users; hashicorp/terraform-provider-aws creates
//     indexes one UpdateTable at a time because of it.
//   - "Cannot read from backfilling global secondary index: <name>"
//     (ValidationException), as reported by DynamoDB users, e.g.
//     https://stackoverflow.com/questions/59322281
//   - "Collection size exceeded." (ItemCollectionSizeLimitExceededException):
//     https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html
//   - Messages marked "extenddb wording" are not documented by DynamoDB; see
//     docs/adr/0004-secondary-indexes.md.

func ksElems(pairs ...string) []types.KeySchemaElement {
	var out []types.KeySchemaElement
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, types.KeySchemaElement{AttributeName: aws.String(pairs[i]), KeyType: types.KeyType(pairs[i+1])})
	}
	return out
}

func projAll() *types.Projection { return &types.Projection{ProjectionType: types.ProjectionTypeAll} }

// matchesTable creates the multi-attribute key example of the developer
// guide: table key matchId; TournamentRegionIndex (tournamentId, region |
// round, bracket, matchId); PlayerIndex (player | matchDate, round) with
// KEYS_ONLY; and an LSI-free design.
func matchesTable(t *testing.T, c *dynamodb.Client) string {
	name := tableName("matches")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("matchId", "S", "tournamentId", "S", "region", "S", "round", "S", "bracket", "S", "player", "S", "matchDate", "N"),
		KeySchema:            keySchema("matchId"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("TournamentRegionIndex"), Projection: projAll(),
				KeySchema: ksElems("tournamentId", "HASH", "region", "HASH", "round", "RANGE", "bracket", "RANGE", "matchId", "RANGE")},
			{IndexName: aws.String("PlayerIndex"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				KeySchema: ksElems("player", "HASH", "matchDate", "RANGE", "round", "RANGE")},
		},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	rows := []struct{ id, tour, region, round, bracket, player, date string }{
		{"m1", "W24", "EAST", "FINALS", "CHAMP", "101", "20"},
		{"m2", "W24", "EAST", "SEMIS", "UPPER", "101", "18"},
		{"m3", "W24", "EAST", "SEMIS", "UPPER", "103", "18"},
		{"m4", "W24", "EAST", "QUARTERS", "UPPER", "101", "15"},
		{"m5", "W24", "WEST", "FINALS", "CHAMP", "102", "20"},
		{"m6", "W24", "EAST", "SEMIS", "LOWER", "104", "19"},
	}
	for _, r := range rows {
		putItem(t, c, name, item{"matchId": avS(r.id), "tournamentId": avS(r.tour), "region": avS(r.region), "round": avS(r.round),
			"bracket": avS(r.bracket), "player": avS(r.player), "matchDate": avN(r.date), "score": avS("3-1")})
	}
	// Sparse: no bracket, so absent from TournamentRegionIndex.
	putItem(t, c, name, item{"matchId": avS("m7"), "tournamentId": avS("W24"), "region": avS("EAST"), "round": avS("SEMIS"), "player": avS("101"), "matchDate": avN("21")})
	return name
}

func ids(items []item) string {
	var out []string
	for _, it := range items {
		if v, ok := it["matchId"].(*types.AttributeValueMemberS); ok {
			out = append(out, v.Value)
		}
	}
	return strings.Join(out, ",")
}

func TestIndexMultiAttributeKeys(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := matchesTable(t, c)
	q := func(index, kce string, vals map[string]string, extra ...func(*dynamodb.QueryInput)) (*dynamodb.QueryOutput, error) {
		in := &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String(index), KeyConditionExpression: aws.String(kce),
			ExpressionAttributeNames: map[string]string{"#r": "region"}, ExpressionAttributeValues: map[string]types.AttributeValue{}}
		if !strings.Contains(kce, "#r") {
			in.ExpressionAttributeNames = nil
		}
		for k, v := range vals {
			if strings.HasPrefix(k, "n") {
				in.ExpressionAttributeValues[":"+k] = avN(v)
			} else {
				in.ExpressionAttributeValues[":"+k] = avS(v)
			}
		}
		for _, f := range extra {
			f(in)
		}
		return c.Query(ctxT(t), in)
	}
	cases := []struct {
		kce  string
		vals map[string]string
		want string
	}{
		{"tournamentId = :t AND #r = :r", map[string]string{"t": "W24", "r": "EAST"}, "m1,m4,m6,m2,m3"},
		{"tournamentId = :t AND #r = :r AND round = :o", map[string]string{"t": "W24", "r": "EAST", "o": "SEMIS"}, "m6,m2,m3"},
		{"tournamentId = :t AND #r = :r AND round = :o AND bracket = :b", map[string]string{"t": "W24", "r": "EAST", "o": "SEMIS", "b": "UPPER"}, "m2,m3"},
		{"tournamentId = :t AND #r = :r AND round = :o AND bracket = :b AND matchId > :m", map[string]string{"t": "W24", "r": "EAST", "o": "SEMIS", "b": "UPPER", "m": "m2"}, "m3"},
		{"tournamentId = :t AND #r = :r AND round >= :o", map[string]string{"t": "W24", "r": "EAST", "o": "QUARTERS"}, "m4,m6,m2,m3"},
		{"tournamentId = :t AND #r = :r AND round < :o", map[string]string{"t": "W24", "r": "EAST", "o": "QUARTERS"}, "m1"},
		{"tournamentId = :t AND #r = :r AND round <= :o", map[string]string{"t": "W24", "r": "EAST", "o": "QUARTERS"}, "m1,m4"},
		{"tournamentId = :t AND #r = :r AND round > :o", map[string]string{"t": "W24", "r": "EAST", "o": "QUARTERS"}, "m6,m2,m3"},
		{"tournamentId = :t AND #r = :r AND round BETWEEN :a AND :b", map[string]string{"t": "W24", "r": "EAST", "a": "QUARTERS", "b": "SEMIS"}, "m4,m6,m2,m3"},
		{"tournamentId = :t AND #r = :r AND round = :o AND begins_with(bracket, :p)", map[string]string{"t": "W24", "r": "EAST", "o": "SEMIS", "p": "U"}, "m2,m3"},
		{"#r = :r AND tournamentId = :t", map[string]string{"t": "W24", "r": "WEST"}, "m5"},
	}
	for _, tc := range cases {
		out, err := q("TournamentRegionIndex", tc.kce, tc.vals)
		if err != nil {
			t.Fatalf("%s: %v", tc.kce, err)
		}
		if got := ids(out.Items); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.kce, got, tc.want)
		}
	}
	// Sort order across multi-attribute sort keys with a number first.
	out, err := q("PlayerIndex", "player = :p AND matchDate BETWEEN :na AND :nb", map[string]string{"p": "101", "na": "15", "nb": "20"})
	if err != nil || ids(out.Items) != "m4,m2,m1" {
		t.Fatalf("PlayerIndex BETWEEN: %s, %v", ids(out.Items), err)
	}
	if len(out.Items[0]) != 4 { // KEYS_ONLY: matchId, player, matchDate, round
		t.Fatalf("KEYS_ONLY projection returned %s", itemText(out.Items[0]))
	}
	out, err = q("PlayerIndex", "player = :p", map[string]string{"p": "101"}, func(in *dynamodb.QueryInput) { in.ScanIndexForward = aws.Bool(false) })
	if err != nil || ids(out.Items) != "m7,m1,m2,m4" {
		t.Fatalf("PlayerIndex backward: %s, %v", ids(out.Items), err)
	}

	// The query rules.
	bad := []struct{ kce, code, msg string }{
		{"tournamentId = :t", "ValidationException", "Query condition missed key schema element: region"},
		{"tournamentId = :t AND #r > :r", "ValidationException", "Query key condition not supported"},
		{"tournamentId = :t AND #r = :r AND bracket = :b", "ValidationException", "Query key condition not supported"},
		{"tournamentId = :t AND #r = :r AND round > :o AND bracket = :b", "ValidationException", "Query key condition not supported"},
		{"tournamentId = :t AND #r = :r AND round = :o AND matchId = :m", "ValidationException", "Query key condition not supported"},
		{"tournamentId = :t OR #r = :r", "ValidationException", "Invalid operator used in KeyConditionExpression: OR"},
	}
	for _, tc := range bad {
		vals := map[string]string{"t": "W24"}
		for _, v := range []string{"r", "o", "b", "m"} {
			if strings.Contains(tc.kce, ":"+v) {
				vals[v] = "X"
			}
		}
		_, err := q("TournamentRegionIndex", tc.kce, vals)
		wantAPIError(t, err, tc.code, tc.msg)
	}
	_, err = q("TournamentRegionIndex", "tournamentId = :t AND #r = :nr", map[string]string{"t": "W24", "nr": "1"})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Condition parameter type does not match schema type")

	// Pagination: LastEvaluatedKey is every index key attribute plus the
	// table key, and pages of one item each give the whole result once.
	var got []item
	var start map[string]types.AttributeValue
	for pages := 0; ; pages++ {
		out, err := q("TournamentRegionIndex", "tournamentId = :t AND #r = :r", map[string]string{"t": "W24", "r": "EAST"},
			func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(1); in.ExclusiveStartKey = start })
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out.Items...)
		if out.LastEvaluatedKey == nil {
			break
		}
		if len(out.LastEvaluatedKey) != 5 {
			t.Fatalf("LastEvaluatedKey %s: want tournamentId, region, round, bracket and matchId", itemText(out.LastEvaluatedKey))
		}
		start = out.LastEvaluatedKey
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
	}
	if ids(got) != "m1,m4,m6,m2,m3" {
		t.Fatalf("paged: %s", ids(got))
	}

	d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	g := d.Table.GlobalSecondaryIndexes[0]
	if aws.ToString(g.IndexName) != "TournamentRegionIndex" || len(g.KeySchema) != 5 || g.IndexStatus != types.IndexStatusActive ||
		aws.ToInt64(g.ItemCount) != 6 || aws.ToInt64(g.IndexSizeBytes) <= 0 || g.Backfilling != nil ||
		aws.ToString(g.IndexArn) != aws.ToString(d.Table.TableArn)+"/index/TournamentRegionIndex" {
		t.Fatalf("index description: %+v", g)
	}
	if n := aws.ToInt64(d.Table.GlobalSecondaryIndexes[1].ItemCount); n != 7 {
		t.Fatalf("PlayerIndex ItemCount = %d, want 7", n)
	}
}

func TestIndexDefinitionErrors(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	create := func(gsi types.GlobalSecondaryIndex, defs ...string) error {
		_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
			TableName: aws.String(tableName("bad")), AttributeDefinitions: attrDefs(append([]string{"pk", "S"}, defs...)...),
			KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi},
		})
		return err
	}
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Projection.html
	err := create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: ksElems("a", "HASH"),
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude}}, "a", "S")
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
	err = create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: ksElems("a", "HASH"),
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly, NonKeyAttributes: []string{"x"}}}, "a", "S")
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified")
	// Multi-attribute schemas (extenddb wording).
	err = create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: ksElems("a", "HASH", "b", "RANGE", "c", "HASH"), Projection: projAll()}, "a", "S", "b", "S", "c", "S")
	wantAPIError(t, err, "ValidationException", "Invalid KeySchema: HASH key elements must precede RANGE key elements")
	err = create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: ksElems("a", "HASH", "b", "HASH", "c", "HASH", "d", "HASH", "e", "HASH"), Projection: projAll()},
		"a", "S", "b", "S", "c", "S", "d", "S", "e", "S")
	wantAPIError(t, err, "ValidationException", "Invalid KeySchema: A global secondary index key can have at most 4 HASH and 4 RANGE elements")
	err = create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: ksElems("a", "HASH", "b", "HASH", "zz", "RANGE"), Projection: projAll()}, "a", "S", "b", "S")
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a, b, zz], AttributeDefinitions: [pk, a, b]")
	// Eight key elements pass the member constraint; nine do not.
	nine := ksElems("a", "HASH", "b", "HASH", "c", "HASH", "d", "HASH", "e", "RANGE", "f", "RANGE", "g", "RANGE", "h", "RANGE", "i", "RANGE")
	err = create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: nine, Projection: projAll()})
	wantAPIErrorMatch(t, err, "ValidationException", regexp.MustCompile(`at 'globalSecondaryIndexes\.1\.member\.keySchema' failed to satisfy constraint: Member must have length less than or equal to 8`))
	if err := create(types.GlobalSecondaryIndex{IndexName: aws.String("gix"), KeySchema: nine[:8], Projection: projAll()},
		"a", "S", "b", "N", "c", "B", "d", "S", "e", "S", "f", "N", "g", "B", "h", "S"); err != nil {
		t.Fatalf("a GSI with 4 HASH and 4 RANGE attributes: %v", err)
	}
}

func TestIndexReads(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := tableName("reads")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "l", "S", "g", "S"),
		KeySchema: keySchema("pk", "sk"), BillingMode: types.BillingModePayPerRequest,
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: keySchema("pk", "l"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"inc"}}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: keySchema("g"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		putItem(t, c, name, item{"pk": avS("p"), "sk": avS(fmt.Sprintf("s%02d", i)), "l": avS("same"), "g": avS(fmt.Sprint("g", i%2)),
			"inc": avS("i"), "big": avS(strings.Repeat("x", 5000))})
	}
	// A write whose index key has the wrong type.
	_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("p"), "sk": avS("z"), "g": avN("1")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: gsi")

	// ConsistentRead on a GSI.
	_, err = c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("gsi"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("g0")}})
	wantAPIError(t, err, "ValidationException", "Consistent reads are not supported on global secondary indexes")

	// ALL_PROJECTED_ATTRIBUTES, and an LSI fetching non-projected attributes
	// from the table at extra cost.
	lq := func(sel types.Select) *dynamodb.QueryOutput {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("lsi"), Select: sel,
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": avS("p")},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	proj, all := lq(types.SelectAllProjectedAttributes), lq(types.SelectAllAttributes)
	if len(proj.Items) != 30 || len(proj.Items[0]) != 4 || len(all.Items[0]) != 6 {
		t.Fatalf("projected item %s, full item %s", itemText(proj.Items[0]), itemText(all.Items[0]))
	}
	if aws.ToFloat64(all.ConsumedCapacity.CapacityUnits) <= aws.ToFloat64(proj.ConsumedCapacity.CapacityUnits) {
		t.Fatalf("fetching from the table cost %v, the index alone %v", aws.ToFloat64(all.ConsumedCapacity.CapacityUnits), aws.ToFloat64(proj.ConsumedCapacity.CapacityUnits))
	}
	// Stable pagination when every index sort key ties.
	var seen []string
	var start map[string]types.AttributeValue
	for {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("lsi"), Limit: aws.Int32(7),
			KeyConditionExpression: aws.String("pk = :p AND l = :l"), ExpressionAttributeValues: item{":p": avS("p"), ":l": avS("same")}, ExclusiveStartKey: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			seen = append(seen, avText(it["sk"]))
		}
		if start = out.LastEvaluatedKey; start == nil {
			break
		}
		if len(start) != 3 {
			t.Fatalf("LSI LastEvaluatedKey %s", itemText(start))
		}
	}
	if len(seen) != 30 || !sort.StringsAreSorted(seen) {
		t.Fatalf("pages over tied index keys: %v", seen)
	}
	// Parallel scan of a GSI: the segments cover it once.
	count := 0
	for seg := range 4 {
		out, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String("gsi"), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(4)})
		if err != nil {
			t.Fatal(err)
		}
		count += len(out.Items)
	}
	if count != 30 {
		t.Fatalf("parallel scan of the GSI saw %d items, want 30", count)
	}
}

func describeIndex(t *testing.T, c *dynamodb.Client, table, index string) *types.GlobalSecondaryIndexDescription {
	t.Helper()
	d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Table.GlobalSecondaryIndexes {
		if aws.ToString(d.Table.GlobalSecondaryIndexes[i].IndexName) == index {
			return &d.Table.GlobalSecondaryIndexes[i]
		}
	}
	return nil
}

func waitIndex(t *testing.T, c *dynamodb.Client, table, index string, gone bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		d := describeIndex(t, c, table, index)
		if gone && d == nil || !gone && d != nil && d.IndexStatus == types.IndexStatusActive {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("index %s of %s did not become %s", index, table, map[bool]string{true: "gone", false: "ACTIVE"}[gone])
}

func createGSIUpdate(name, attr string) types.GlobalSecondaryIndexUpdate {
	return types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{
		IndexName: aws.String(name), KeySchema: keySchema(attr), Projection: projAll()}}
}

// seedTable creates an on-demand table keyed by pk with n items, every
// third without attribute "g".
func seedTable(t *testing.T, c *dynamodb.Client, n int) string {
	name := tableName("online")
	createHashTable(t, c, name, "S")
	for i := 0; i < n; i += 25 {
		var reqs []types.WriteRequest
		for j := i; j < min(i+25, n); j++ {
			it := item{"pk": avS(fmt.Sprint("k", j)), "v": avN(fmt.Sprint(j))}
			if j%3 != 0 {
				it["g"] = avS(fmt.Sprint("g", j%5))
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		if _, err := c.BatchWriteItem(ctxT(t), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

// wantIndexAgrees scans the table and the index and compares the keys.
func wantIndexAgrees(t *testing.T, c *dynamodb.Client, table, index, attr string) {
	t.Helper()
	keys := func(in *dynamodb.ScanInput) []string {
		var out []string
		p := dynamodb.NewScanPaginator(c, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				if in.IndexName != nil || it[attr] != nil {
					out = append(out, avText(it["pk"])+"="+avText(it[attr]))
				}
			}
		}
		sort.Strings(out)
		return out
	}
	want := keys(&dynamodb.ScanInput{TableName: aws.String(table)})
	got := keys(&dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(index)})
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("index %s holds %d entries, the table %d items with %s", index, len(got), len(want), attr)
	}
	if d := describeIndex(t, c, table, index); aws.ToInt64(d.ItemCount) != int64(len(want)) {
		t.Fatalf("ItemCount of %s = %d, want %d", index, aws.ToInt64(d.ItemCount), len(want))
	}
}

func TestIndexOnlineCreateAndDelete(t *testing.T) {
	t.Setenv("EXTENDDB_INDEX_PAGE_DELAY", "40ms")
	_, c := startClient(t, "--in-memory")
	name := seedTable(t, c, 1500)
	up := func(defs []types.AttributeDefinition, ups ...types.GlobalSecondaryIndexUpdate) (*dynamodb.UpdateTableOutput, error) {
		return c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: defs, GlobalSecondaryIndexUpdates: ups})
	}
	_, err := up(attrDefs("g", "S", "v", "N"), createGSIUpdate("byG", "g"), createGSIUpdate("byV", "v"))
	wantAPIError(t, err, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	_, err = up(nil, types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("nope")}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index: nope not found")
	_, err = up(attrDefs("v", "N"), createGSIUpdate("byG", "g"))
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [g], AttributeDefinitions: [v]")

	out, err := up(attrDefs("g", "S"), createGSIUpdate("byG", "g"))
	if err != nil {
		t.Fatal(err)
	}
	g := out.TableDescription.GlobalSecondaryIndexes[0]
	if g.IndexStatus != types.IndexStatusCreating || !aws.ToBool(g.Backfilling) {
		t.Fatalf("new index: status %s, backfilling %v", g.IndexStatus, aws.ToBool(g.Backfilling))
	}
	_, err = c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("g1")}})
	wantAPIError(t, err, "ValidationException", "Cannot read from backfilling global secondary index: byG")
	_, err = up(attrDefs("v", "N"), createGSIUpdate("byV", "v"))
	wantAPIError(t, err, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	_, err = up(attrDefs("g", "S"), createGSIUpdate("byG", "g"))
	wantAPIError(t, err, "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")

	// Writers during the backfill: puts that add, change and remove "g",
	// and deletes.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				k := avS(fmt.Sprint("k", (i*37+w*101)%1600))
				var err error
				switch i % 4 {
				case 0:
					_, err = c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item{"pk": k}})
				case 1:
					_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": k, "v": avN("0")}})
				default:
					_, err = c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": k, "g": avS(fmt.Sprint("w", w, i))}})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if d := describeIndex(t, c, name, "byG"); d.IndexStatus != types.IndexStatusCreating {
		t.Fatalf("the index finished before the writers did (%s): the test exercises nothing", d.IndexStatus)
	}
	waitIndex(t, c, name, "byG", false)
	if d := describeIndex(t, c, name, "byG"); d.Backfilling != nil {
		t.Fatalf("ACTIVE index still reports Backfilling=%v", aws.ToBool(d.Backfilling))
	}
	wantIndexAgrees(t, c, name, "byG", "g")

	// Delete: DELETING (reads refuse it), then gone.
	out, err = up(nil, types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}})
	if err != nil {
		t.Fatal(err)
	}
	if st := out.TableDescription.GlobalSecondaryIndexes[0].IndexStatus; st != types.IndexStatusDeleting {
		t.Fatalf("deleted index status %s", st)
	}
	waitIndex(t, c, name, "byG", true)
	_, err = c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("g1")}})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: byG")
}

func TestIndexOnlineProvisioned(t *testing.T) {
	t.Parallel()
	_, c := startClient(t, "--in-memory")
	name := tableName("prov")
	tp := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	if _, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema: keySchema("pk"), ProvisionedThroughput: tp}); err != nil {
		t.Fatal(err)
	}
	cr := createGSIUpdate("gix", "g")
	_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("g", "S"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{cr}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: ProvisionedThroughput is not specified for index: gix")
	cr.Create.ProvisionedThroughput = tp
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("g", "S"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{cr}}); err != nil {
		t.Fatal(err)
	}
	waitIndex(t, c, name, "gix", false)
	_, err = c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
		Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gix"), ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(3)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := describeIndex(t, c, name, "gix"); aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 9 || aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits) != 3 {
		t.Fatalf("index throughput %+v", d.ProvisionedThroughput)
	}
	_, err = c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
		Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("ghost"), ProvisionedThroughput: tp}}}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index ghost for table "+name)
}

// TestIndexBackfillSurvivesKill kills the server in the middle of a build;
// the restarted server finishes it from the durable cursor: its job does
// fewer pages than a whole build (2,000 items, 256 a page: 8).
func TestIndexBackfillSurvivesKill(t *testing.T) {
	t.Setenv("EXTENDDB_INDEX_PAGE_DELAY", "300ms")
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	name := seedTable(t, c, 2000)
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("g", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createGSIUpdate("byG", "g")}}); err != nil {
		t.Fatal(err)
	}
	// Kill once more than one page (256 items) is copied, so that the
	// first page's cursor is surely stored: a kill between a page's rows
	// and its cursor rightly redoes that page (on Cassandra a build
	// starts after a grace of a few seconds, ADR 0003 §12).
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		d := describeIndex(t, c, name, "byG")
		if d.IndexStatus != types.IndexStatusCreating {
			t.Fatalf("before the kill: status %s, want CREATING", d.IndexStatus)
		}
		if aws.ToInt64(d.ItemCount) > 256 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("before the kill: %d items copied after 15 s", aws.ToInt64(d.ItemCount))
		}
	}
	s.kill()
	s, c = startClient(t, "--data-dir", dir)
	if _, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("after"), "g": avS("new")}}); err != nil {
		t.Fatal(err)
	}
	waitIndex(t, c, name, "byG", false)
	wantIndexAgrees(t, c, name, "byG", "g")
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		m = indexBuiltRE.FindStringSubmatch(s.log.String())
	}
	if m == nil {
		t.Fatalf("the restarted server did not log the build's end:\n%s", s.log.String())
	}
	if pages, _ := strconv.Atoi(m[1]); pages >= 8 {
		t.Fatalf("the resumed build did %d pages, as many as a whole build: it did not resume from its cursor", pages)
	}
}

// indexBuiltRE finds the page count of the "index built" log line.
var indexBuiltRE = regexp.MustCompile(`index built.*pages[":= ]+(\d+)`)

func TestIndexItemCollections(t *testing.T) {
	t.Setenv("EXTENDDB_ITEM_COLLECTION_LIMIT_BYTES", "20000")
	_, c := startClient(t, "--in-memory")
	name := tableName("coll")
	if _, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "l", "S"),
		KeySchema: keySchema("pk", "sk"), BillingMode: types.BillingModePayPerRequest,
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: keySchema("pk", "l"), Projection: projAll()}},
	}); err != nil {
		t.Fatal(err)
	}
	put := func(pk string, i int) (*dynamodb.PutItemOutput, error) {
		return c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(name), ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
			Item: item{"pk": avS(pk), "sk": avS(fmt.Sprint(i)), "l": avS("x"), "pad": avS(strings.Repeat("p", 3000))}})
	}
	out, err := put("a", 0)
	if err != nil {
		t.Fatal(err)
	}
	m := out.ItemCollectionMetrics
	if m == nil || avText(m.ItemCollectionKey["pk"]) != avText(avS("a")) || len(m.ItemCollectionKey) != 1 ||
		len(m.SizeEstimateRangeGB) != 2 || m.SizeEstimateRangeGB[0] != 0 || m.SizeEstimateRangeGB[1] != 1 {
		t.Fatalf("ItemCollectionMetrics = %+v", m)
	}
	// Each item counts about 6 KB (itself and its LSI row): the fourth
	// passes 20,000 bytes.
	for i := 1; ; i++ {
		_, err = put("a", i)
		if err != nil {
			wantAPIError(t, err, "ItemCollectionSizeLimitExceededException", "Collection size exceeded.")
			if i != 3 {
				t.Fatalf("the limit refused item %d", i)
			}
			break
		}
	}
	if _, err := put("b", 0); err != nil {
		t.Fatalf("another collection: %v", err)
	}
	// Shrinking or deleting is always allowed.
	if _, err := c.DeleteItem(ctxT(t), &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item{"pk": avS("a"), "sk": avS("0")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := put("a", 3); err != nil {
		t.Fatalf("after a delete: %v", err)
	}
}
