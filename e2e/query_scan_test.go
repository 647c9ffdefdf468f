package e2e

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// queryAll pages through a query and returns every item and the page count.
func queryAll(t testing.TB, c *dynamodb.Client, in dynamodb.QueryInput) ([]item, int) {
	t.Helper()
	var all []item
	pages := 0
	for {
		out, err := c.Query(ctxT(t), &in)
		if err != nil {
			t.Fatalf("Query: %v", err)
		}
		pages++
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all, pages
		}
		if pages > 1000 {
			t.Fatal("query paging does not end")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func scanAll(t testing.TB, c *dynamodb.Client, in dynamodb.ScanInput) ([]item, int) {
	t.Helper()
	var all []item
	pages := 0
	for {
		out, err := c.Scan(ctxT(t), &in)
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		pages++
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all, pages
		}
		if pages > 1000 {
			t.Fatal("scan paging does not end")
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// TestSortKeyOrder checks Query order for N, S and B sort keys: numbers by
// value, strings by UTF-8 bytes, binaries by unsigned bytes.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Binary
func TestSortKeyOrder(t *testing.T) {
	_, c := startClient(t)
	cases := []struct {
		typ   string
		order []types.AttributeValue // ascending
	}{
		{"N", []types.AttributeValue{avN("-10000000000"), avN("-100"), avN("-10"), avN("-1.5"), avN("-0.001"), avN("0"), avN("0.000001"), avN("1"), avN("1.5"), avN("2"), avN("10"), avN("100"), avN("12345678901234567890123456789012345678")}},
		{"S", []types.AttributeValue{avS("A"), avS("B"), avS("Z"), avS("a"), avS("aa"), avS("ab"), avS("b"), avS("~"), avS("é"), avS("中"), avS("😀")}},
		{"B", []types.AttributeValue{avB([]byte{0x00}), avB([]byte{0x00, 0x00}), avB([]byte{0x00, 0x01}), avB([]byte{0x01}), avB([]byte{0x7f}), avB([]byte{0x80}), avB([]byte{0xfe, 0xff}), avB([]byte{0xff})}},
	}
	for _, tc := range cases {
		t.Run(tc.typ, func(t *testing.T) {
			name := tableName("order-" + strings.ToLower(tc.typ))
			createRangeTable(t, c, name, tc.typ)
			perm := rand.Perm(len(tc.order))
			for _, i := range perm {
				putItem(t, c, name, item{"pk": avS("p"), "sk": tc.order[i]})
				putItem(t, c, name, item{"pk": avS("other"), "sk": tc.order[i]})
			}
			var want []item
			for _, v := range tc.order {
				want = append(want, item{"pk": avS("p"), "sk": v})
			}
			in := dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: item{":p": avS("p")}}
			got, _ := queryAll(t, c, in)
			wantItems(t, got, want)

			// ScanIndexForward false reverses the order.
			in.ScanIndexForward = aws.Bool(false)
			got, _ = queryAll(t, c, in)
			rev := make([]item, len(want))
			for i := range want {
				rev[len(want)-1-i] = want[i]
			}
			wantItems(t, got, rev)

			// Paging one item at a time gives the same order, with
			// LastEvaluatedKey holding the full primary key.
			in.ScanIndexForward = nil
			in.Limit = aws.Int32(1)
			got, pages := queryAll(t, c, in)
			wantItems(t, got, want)
			if pages < len(want) {
				t.Fatalf("Limit 1 gave %d pages for %d items", pages, len(want))
			}
		})
	}
}

func TestQuery(t *testing.T) {
	_, c := startClient(t)
	name := tableName("query")
	createRangeTable(t, c, name, "N")
	var all []item
	for i := 0; i < 20; i++ {
		it := item{"pk": avS("p"), "sk": avN(fmt.Sprint(i)), "v": avS(fmt.Sprintf("v%02d", i)), "odd": avBool(i%2 == 1)}
		putItem(t, c, name, it)
		all = append(all, it)
	}
	putItem(t, c, name, item{"pk": avS("q"), "sk": avN("0")})
	vals := func(extra item) item {
		m := item{":p": avS("p")}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	t.Run("key conditions", func(t *testing.T) {
		got, _ := queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name),
			KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :lo AND :hi"), ExpressionAttributeValues: vals(item{":lo": avN("5"), ":hi": avN("8")})})
		wantItems(t, got, all[5:9])
		got, _ = queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name),
			KeyConditionExpression: aws.String("pk = :p AND sk > :x"), ExpressionAttributeValues: vals(item{":x": avN("17")})})
		wantItems(t, got, all[18:])
		got, _ = queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name),
			KeyConditionExpression: aws.String("pk = :p AND sk <= :x"), ExpressionAttributeValues: vals(item{":x": avN("2")})})
		wantItems(t, got, all[:3])
	})
	t.Run("Limit and LastEvaluatedKey", func(t *testing.T) {
		in := dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: vals(nil), Limit: aws.Int32(6)}
		out, err := c.Query(ctxT(t), &in)
		if err != nil {
			t.Fatal(err)
		}
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html
		wantItems(t, out.Items, all[:6])
		wantItem(t, out.LastEvaluatedKey, item{"pk": avS("p"), "sk": avN("5")})
		if out.Count != 6 || out.ScannedCount != 6 {
			t.Fatalf("Count %d ScannedCount %d", out.Count, out.ScannedCount)
		}
		got, pages := queryAll(t, c, in)
		wantItems(t, got, all)
		if pages != 4 && pages != 5 {
			t.Fatalf("20 items with Limit 6: %d pages", pages)
		}
	})
	t.Run("ProjectionExpression", func(t *testing.T) {
		got, _ := queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p AND sk < :x"),
			ExpressionAttributeValues: vals(item{":x": avN("2")}), ProjectionExpression: aws.String("#v, sk"), ExpressionAttributeNames: map[string]string{"#v": "v"}})
		wantItems(t, got, []item{{"sk": avN("0"), "v": avS("v00")}, {"sk": avN("1"), "v": avS("v01")}})
	})
	t.Run("Select COUNT", func(t *testing.T) {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: vals(nil), Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Select
		if out.Count != 20 || out.ScannedCount != 20 || len(out.Items) != 0 {
			t.Fatalf("COUNT: Count %d ScannedCount %d Items %d", out.Count, out.ScannedCount, len(out.Items))
		}
	})
	t.Run("FilterExpression", func(t *testing.T) {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
			FilterExpression: aws.String("odd = :t"), ExpressionAttributeValues: vals(item{":t": avBool(true)}), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		// Count is after the filter, ScannedCount before:
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html
		var odd []item
		for i := 1; i < 20; i += 2 {
			odd = append(odd, all[i])
		}
		wantItems(t, out.Items, odd)
		if out.Count != 10 || out.ScannedCount != 20 {
			t.Fatalf("Count %d ScannedCount %d", out.Count, out.ScannedCount)
		}
	})
	t.Run("ScanIndexForward false with Limit", func(t *testing.T) {
		out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: vals(nil), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(3)})
		if err != nil {
			t.Fatal(err)
		}
		wantItems(t, out.Items, []item{all[19], all[18], all[17]})
		wantItem(t, out.LastEvaluatedKey, item{"pk": avS("p"), "sk": avN("17")})
	})
}

func TestQueryIndexes(t *testing.T) {
	_, c := startClient(t)
	name := tableName("query-index")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "l", "N", "g", "S"),
		KeySchema:            keySchema("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("by-l"), KeySchema: keySchema("pk", "l"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("by-g"), KeySchema: keySchema("g", "sk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	items := []item{
		{"pk": avS("p"), "sk": avS("a"), "l": avN("3"), "g": avS("G1"), "x": avS("1")},
		{"pk": avS("p"), "sk": avS("b"), "l": avN("1"), "g": avS("G2"), "x": avS("2")},
		{"pk": avS("p"), "sk": avS("c"), "l": avN("2"), "g": avS("G1"), "x": avS("3")},
		{"pk": avS("p"), "sk": avS("d"), "x": avS("4")}, // in neither index
		{"pk": avS("q"), "sk": avS("b"), "l": avN("0"), "g": avS("G1"), "x": avS("5")},
	}
	for _, it := range items {
		putItem(t, c, name, it)
	}
	// LSI: items of pk p that have l, ordered by l.
	got, _ := queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("by-l"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: item{":p": avS("p")}})
	wantItems(t, got, []item{items[1], items[2], items[0]})
	// GSI, KEYS_ONLY: table key plus index key, ordered by the index sort key.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Projections
	got, _ = queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("by-g"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("G1")}})
	wantItems(t, got, []item{
		{"pk": avS("p"), "sk": avS("a"), "g": avS("G1")},
		{"pk": avS("q"), "sk": avS("b"), "g": avS("G1")},
		{"pk": avS("p"), "sk": avS("c"), "g": avS("G1")},
	})
}

func TestScan(t *testing.T) {
	_, c := startClient(t)
	name := tableName("scan")
	createRangeTable(t, c, name, "N")
	want := map[string]bool{}
	for p := 0; p < 40; p++ {
		for s := 0; s < 5; s++ {
			putItem(t, c, name, item{"pk": avS(fmt.Sprintf("p%03d", p)), "sk": avN(fmt.Sprint(s)), "v": avN(fmt.Sprint(p*5 + s))})
			want[fmt.Sprintf("p%03d/%d", p, s)] = true
		}
	}
	keyOf := func(it item) string {
		return it["pk"].(*types.AttributeValueMemberS).Value + "/" + it["sk"].(*types.AttributeValueMemberN).Value
	}
	checkOnce := func(t *testing.T, got []item) {
		t.Helper()
		seen := map[string]bool{}
		for _, it := range got {
			k := keyOf(it)
			if seen[k] {
				t.Fatalf("item %s returned twice", k)
			}
			if !want[k] {
				t.Fatalf("unexpected item %s", k)
			}
			seen[k] = true
		}
		if len(seen) != len(want) {
			t.Fatalf("scan returned %d distinct items, want %d", len(seen), len(want))
		}
	}

	t.Run("paged with Limit", func(t *testing.T) {
		got, pages := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), Limit: aws.Int32(17)})
		checkOnce(t, got)
		if pages < 12 {
			t.Fatalf("200 items with Limit 17 came in %d pages", pages)
		}
		// Items of one partition come together, in sort key order:
		// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			if keyOf(a)[:4] == keyOf(b)[:4] && avText(a["sk"]) > avText(b["sk"]) {
				t.Fatalf("partition %s out of sort key order", keyOf(a)[:4])
			}
		}
	})
	// Parallel scan: the segments of one scan cover every item exactly once.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html#Scan.ParallelScan
	for _, total := range []int32{1, 2, 4, 7, 16} {
		t.Run(fmt.Sprintf("TotalSegments %d", total), func(t *testing.T) {
			var got []item
			for seg := int32(0); seg < total; seg++ {
				items, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(13)})
				got = append(got, items...)
			}
			checkOnce(t, got)
		})
	}
	t.Run("Select COUNT", func(t *testing.T) {
		var count, scanned int32
		in := dynamodb.ScanInput{TableName: aws.String(name), Select: types.SelectCount, FilterExpression: aws.String("v < :x"),
			ExpressionAttributeValues: item{":x": avN("50")}}
		for {
			out, err := c.Scan(ctxT(t), &in)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Items) != 0 {
				t.Fatalf("COUNT returned %d items", len(out.Items))
			}
			count += out.Count
			scanned += out.ScannedCount
			if out.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		if count != 50 || scanned != 200 {
			t.Fatalf("Count %d ScannedCount %d, want 50 200", count, scanned)
		}
	})
	t.Run("ProjectionExpression", func(t *testing.T) {
		got, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name), ProjectionExpression: aws.String("v"), Limit: aws.Int32(50)})
		if len(got) != 200 {
			t.Fatalf("%d items", len(got))
		}
		var vs []int
		for _, it := range got {
			if len(it) != 1 {
				t.Fatalf("projected item %s has more than v", itemText(it))
			}
			var n int
			fmt.Sscan(it["v"].(*types.AttributeValueMemberN).Value, &n)
			vs = append(vs, n)
		}
		sort.Ints(vs)
		for i, v := range vs {
			if v != i {
				t.Fatalf("projected values are not 0..199: %v", vs)
			}
		}
	})
	t.Run("segment validation", func(t *testing.T) {
		// architect/dynalite test/scan.js and validations/scan.js
		_, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), Segment: aws.Int32(1), TotalSegments: aws.Int32(1)})
		wantAPIError(t, err, "ValidationException", "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1")
		_, err = c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), Segment: aws.Int32(0)})
		wantAPIError(t, err, "ValidationException", "The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
		_, err = c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name), TotalSegments: aws.Int32(2)})
		wantAPIError(t, err, "ValidationException", "The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	})
}

// TestPageSizeLimit fills a partition with ~400 KB items: a Query or Scan
// page stops at 1 MB of data read and returns a LastEvaluatedKey.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
// ("A single Query operation will read up to the maximum number of items set
// (if using the Limit parameter) or a maximum of 1 MB of data").
func TestPageSizeLimit(t *testing.T) {
	_, c := startClient(t)
	name := tableName("onemb")
	createRangeTable(t, c, name, "N")
	const n = 6
	var want []item
	for i := 0; i < n; i++ {
		it := item{"pk": avS("big"), "sk": avN(fmt.Sprint(i)), "blob": avS(strings.Repeat(string(rune('a'+i)), 400*1024-20))}
		putItem(t, c, name, it)
		want = append(want, it)
	}
	out, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": avS("big")}})
	if err != nil {
		t.Fatal(err)
	}
	// 1 MB holds at most three such items (the item that crosses 1 MB ends the page).
	if len(out.Items) == 0 || len(out.Items) > 3 || out.LastEvaluatedKey == nil {
		t.Fatalf("first Query page: %d items, LastEvaluatedKey %v; want 1-3 items and a LastEvaluatedKey", len(out.Items), out.LastEvaluatedKey != nil)
	}
	got, pages := queryAll(t, c, dynamodb.QueryInput{TableName: aws.String(name), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: item{":p": avS("big")}})
	wantItems(t, got, want)
	if pages < 2 {
		t.Fatalf("Query of 2.4 MB came in %d page", pages)
	}
	sc, err := c.Scan(ctxT(t), &dynamodb.ScanInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Items) == 0 || len(sc.Items) > 3 || sc.LastEvaluatedKey == nil {
		t.Fatalf("first Scan page: %d items, LastEvaluatedKey %v; want 1-3 items and a LastEvaluatedKey", len(sc.Items), sc.LastEvaluatedKey != nil)
	}
	all, _ := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String(name)})
	wantItems(t, all, want)
}
