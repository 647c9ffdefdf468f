package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/expr"
	"github.com/extenddb/extenddb/internal/item"
)

func mustCondition(t *testing.T, src string) *expr.Condition {
	t.Helper()
	c, err := expr.ParseCondition(expr.KindFilter, src, nil, map[string]item.AttributeValue{":v": item.S("x")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seedRange puts items pk=a, sk=1..5 with lsk "l<sk>", g "g" (and x) into
// the range table, plus one item in partition b.
func seedRange(t *testing.T, e *Engine) {
	t.Helper()
	for i := 1; i <= 5; i++ {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"a"},"sk":{"N":"%d"},"lsk":{"S":"l%d"},"g":{"S":"g"},"x":{"N":"%d"}}}`, i, 6-i, i))
	}
	mustServe(t, e, "PutItem", `{"TableName":"range","Item":{"pk":{"S":"b"},"sk":{"N":"1"}}}`)
}

func rangeItem(i int) string {
	return fmt.Sprintf(`{"pk":{"S":"a"},"sk":{"N":"%d"},"lsk":{"S":"l%d"},"g":{"S":"g"},"x":{"N":"%d"}}`, i, 6-i, i)
}

func rangeItems(is ...int) string {
	parts := make([]string, len(is))
	for j, i := range is {
		parts[j] = rangeItem(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Query: key conditions, order, Limit, pagination, filters and Select.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
func TestQuery(t *testing.T) {
	e := itemEngine(t)
	seedRange(t, e)
	q := func(extra string) string {
		return `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}` + extra + `}`
	}
	runSteps(t, e, []step{
		{op: "Query", body: q(``), want: `{"Items":` + rangeItems(1, 2, 3, 4, 5) + `,"Count":5,"ScannedCount":5}`},
		{op: "Query", body: q(`,"ScanIndexForward":false`), want: `{"Items":` + rangeItems(5, 4, 3, 2, 1) + `,"Count":5,"ScannedCount":5}`},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p AND sk BETWEEN :lo AND :hi","ExpressionAttributeValues":{":p":{"S":"a"},":lo":{"N":"2"},":hi":{"N":"3"}}}`,
			want: `{"Items":` + rangeItems(2, 3) + `,"Count":2,"ScannedCount":2}`},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p AND sk > :lo","ExpressionAttributeValues":{":p":{"S":"a"},":lo":{"N":"3"}}}`,
			want: `{"Items":` + rangeItems(4, 5) + `,"Count":2,"ScannedCount":2}`},
		{name: "Limit sets LastEvaluatedKey", op: "Query", body: q(`,"Limit":2`),
			want: `{"Items":` + rangeItems(1, 2) + `,"Count":2,"ScannedCount":2,"LastEvaluatedKey":{"pk":{"S":"a"},"sk":{"N":"2"}}}`},
		{name: "ExclusiveStartKey resumes", op: "Query", body: q(`,"Limit":2,"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"2"}}`),
			want: `{"Items":` + rangeItems(3, 4) + `,"Count":2,"ScannedCount":2,"LastEvaluatedKey":{"pk":{"S":"a"},"sk":{"N":"4"}}}`},
		{name: "Limit counts items before the filter", op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"x > :two","ExpressionAttributeValues":{":p":{"S":"a"},":two":{"N":"2"}},"Limit":3}`,
			want: `{"Items":` + rangeItems(3) + `,"Count":1,"ScannedCount":3,"LastEvaluatedKey":{"pk":{"S":"a"},"sk":{"N":"3"}}}`},
		{name: "legacy KeyConditions and QueryFilter", op: "Query", body: `{"TableName":"range","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]},"sk":{"ComparisonOperator":"LE","AttributeValueList":[{"N":"4"}]}},"QueryFilter":{"x":{"ComparisonOperator":"GE","AttributeValueList":[{"N":"3"}]}}}`,
			want: `{"Items":` + rangeItems(3, 4) + `,"Count":2,"ScannedCount":4}`},
		{name: "COUNT", op: "Query", body: q(`,"Select":"COUNT"`), want: `{"Count":5,"ScannedCount":5}`},
		{name: "projection", op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p AND sk = :s","ProjectionExpression":"x, nope","ExpressionAttributeValues":{":p":{"S":"a"},":s":{"N":"1"}}}`,
			want: `{"Items":[{"x":{"N":"1"}}],"Count":1,"ScannedCount":1}`},
		{name: "AttributesToGet", op: "Query", body: `{"TableName":"range","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"b"}]}},"AttributesToGet":["sk"]}`,
			want: `{"Items":[{"sk":{"N":"1"}}],"Count":1,"ScannedCount":1}`},
		{name: "empty partition", op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"zz"}}}`, want: `{"Items":[],"Count":0,"ScannedCount":0}`},
		{name: "LSI, KEYS_ONLY by default", op: "Query", body: `{"TableName":"range","IndexName":"lsi","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"Limit":2}`,
			want: `{"Items":[{"pk":{"S":"a"},"sk":{"N":"5"},"lsk":{"S":"l1"}},{"pk":{"S":"a"},"sk":{"N":"4"},"lsk":{"S":"l2"}}],"Count":2,"ScannedCount":2,"LastEvaluatedKey":{"pk":{"S":"a"},"sk":{"N":"4"},"lsk":{"S":"l2"}}}`},
		{name: "LSI ALL_ATTRIBUTES fetches the table item", op: "Query", body: `{"TableName":"range","IndexName":"lsi","Select":"ALL_ATTRIBUTES","KeyConditionExpression":"pk = :p AND lsk = :l","ExpressionAttributeValues":{":p":{"S":"a"},":l":{"S":"l1"}}}`,
			want: `{"Items":[` + rangeItem(5) + `],"Count":1,"ScannedCount":1}`},
		{name: "GSI", op: "Query", body: `{"TableName":"range","IndexName":"gsi","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"g"}},"Select":"COUNT"}`,
			want: `{"Count":5,"ScannedCount":5}`},
		{name: "GSI pagination key", op: "Query", body: `{"TableName":"range","IndexName":"gsiall","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"g"}},"Limit":1}`,
			want: `{"Items":[` + rangeItem(1) + `],"Count":1,"ScannedCount":1,"LastEvaluatedKey":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"g"}}}`},
		{op: "Query", body: `{"TableName":"range","IndexName":"gsiall","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"g"}},"Limit":1,"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"g"}}}`,
			want: `{"Items":[` + rangeItem(2) + `],"Count":1,"ScannedCount":1,"LastEvaluatedKey":{"pk":{"S":"a"},"sk":{"N":"2"},"g":{"S":"g"}}}`},
	})
}

// Query's validation messages.
func TestQueryValidation(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		// https://github.com/mhart/dynalite/filler/master/validations/query.js
		{op: "Query", body: `{"TableName":"range"}`, err: "ValidationException: Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"Limit":0}`,
			err: "ValidationException: 1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{op: "Query", body: `{"TableName":"nope","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`, err: "ResourceNotFoundException: Requested resource not found"},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"sk = :p","ExpressionAttributeValues":{":p":{"N":"1"}}}`, err: "ValidationException: Query condition missed key schema element: pk"},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"1"}}}`,
			err: "ValidationException: One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":""}}}`,
			err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		// https://github.com/mhart/dynalite/filler/master/actions/query.js
		{op: "Query", body: `{"TableName":"range","IndexName":"nope","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`, err: "ValidationException: The table does not have the specified index: nope"},
		{op: "Query", body: `{"TableName":"range","IndexName":"gsi","ConsistentRead":true,"KeyConditionExpression":"g = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`, err: "ValidationException: Consistent reads are not supported on global secondary indexes"},
		// https://github.com/architect/dynalite/blob/main/test/query.js ("ExclusiveStartKey missing range key")
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"ExclusiveStartKey":{"pk":{"S":"a"}}}`,
			err: "ValidationException: The provided starting key is invalid"},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"ExclusiveStartKey":{"pk":{"S":"b"},"sk":{"N":"1"}}}`,
			err: "ValidationException: The provided starting key is outside query boundaries based on provided conditions"},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}},"ExclusiveStartKey":{"pk":{"SS":[]},"sk":{"N":"1"}}}`,
			err: "ValidationException: The provided starting key is invalid: One or more parameter values were invalid: An string set  may not be empty"},
		{op: "Query", body: `{"TableName":"range","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}},"QueryFilter":{"sk":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"1"}]}}}`,
			err: "ValidationException: QueryFilter can only contain non-primary key attributes: Primary key attribute: sk"},
		// https://github.com/getmoto/moto/filler/master/tests/test_dynamodb/test_dynamodb_select.py (verified against DynamoDB)
		{op: "Query", body: `{"TableName":"range","IndexName":"gsi","Select":"ALL_ATTRIBUTES","KeyConditionExpression":"g = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`,
			err: "ValidationException: One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index gsi because its projection type is not ALL"},
		{op: "Query", body: `{"TableName":"range","Select":"ALL_PROJECTED_ATTRIBUTES","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`,
			err: "ValidationException: 1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
		{op: "Query", body: `{"TableName":"range","Select":"SPECIFIC_ATTRIBUTES","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`,
			err: "ValidationException: 1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"},
		{op: "Query", body: `{"TableName":"range","Select":"COUNT","ProjectionExpression":"x","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`,
			err: "ValidationException: 1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count"},
		{op: "Query", body: `{"TableName":"range","Select":"ALL_ATTRIBUTES","AttributesToGet":["x"],"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}}}`,
			err: "ValidationException: 1 validation error detected: Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"},
		{op: "Query", body: `{"TableName":"range","Select":"count","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`,
			err: "ValidationException: 1 validation error detected: Value 'count' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"},
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"},":q":{"S":"b"}}}`,
			err: "ValidationException: Value provided in ExpressionAttributeValues unused in expressions: keys: {:q}"},
	})
}

// A Query's FilterExpression may not name the key attributes of the table or
// index queried.
// https://github.com/mhart/dynalite/blob/master/actions/query.js
func TestQueryFilterOnKey(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "Query", body: `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"sk > :s","ExpressionAttributeValues":{":p":{"S":"a"},":s":{"N":"1"}}}`,
			err: "ValidationException: Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{op: "Query", body: `{"TableName":"range","IndexName":"gsi","KeyConditionExpression":"g = :p","FilterExpression":"g > :s","ExpressionAttributeValues":{":p":{"S":"a"},":s":{"S":"1"}}}`,
			err: "ValidationException: Filter Expression can only contain non-primary key attributes: Primary key attribute: g"},
	})
}

// Scan: order-independent content, pagination, parallel segments, filters.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
func TestScan(t *testing.T) {
	e := itemEngine(t)
	for i := 0; i < 20; i++ {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"hash","Item":{"pk":{"S":"k%02d"},"n":{"N":"%d"}}}`, i, i))
	}
	seen := map[string]bool{}
	var esk string
	for pages := 0; ; pages++ {
		body := `{"TableName":"hash","Limit":7`
		if esk != "" {
			body += `,"ExclusiveStartKey":` + esk
		}
		out := mustServe(t, e, "Scan", body+`}`).(*readOutput)
		for _, it := range pageItems(t, out) {
			k := it["pk"].S
			if seen[k] {
				t.Fatalf("page %d repeats %s", pages, k)
			}
			seen[k] = true
		}
		if out.lastKey == nil {
			break
		}
		b, _ := marshalJSON(out.lastKey)
		esk = b
		if pages > 10 {
			t.Fatal("no end")
		}
	}
	if len(seen) != 20 {
		t.Fatalf("scanned %d items, want 20", len(seen))
	}
	total := 0
	for s := 0; s < 3; s++ {
		out := mustServe(t, e, "Scan", fmt.Sprintf(`{"TableName":"hash","Segment":%d,"TotalSegments":3}`, s)).(*readOutput)
		total += out.n
	}
	if total != 20 {
		t.Fatalf("segments hold %d items, want 20", total)
	}
	runSteps(t, e, []step{
		{op: "Scan", body: `{"TableName":"hash","FilterExpression":"n < :two","ExpressionAttributeValues":{":two":{"N":"2"}},"Select":"COUNT"}`, want: `{"Count":2,"ScannedCount":20}`},
		{op: "Scan", body: `{"TableName":"hash","ScanFilter":{"n":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"3"}]}}}`, want: `{"Items":[{"pk":{"S":"k03"},"n":{"N":"3"}}],"Count":1,"ScannedCount":20}`},
		{op: "Scan", body: `{"TableName":"hash","FilterExpression":"n = :v","ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":"n"},"ExpressionAttributeValues":{":v":{"N":"4"}}}`, want: `{"Items":[{"n":{"N":"4"}}],"Count":1,"ScannedCount":20}`},
		// https://github.com/mhart/dynalite/filler/master/validations/scan.js
		{op: "Scan", body: `{"TableName":"hash","Segment":1}`, err: "ValidationException: The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{op: "Scan", body: `{"TableName":"hash","TotalSegments":2}`, err: "ValidationException: The Segment parameter is required but was not present in the request when parameter TotalSegments is present"},
		{op: "Scan", body: `{"TableName":"hash","Segment":1,"TotalSegments":1}`, err: "ValidationException: The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1"},
		{op: "Scan", body: `{"TableName":"hash","Segment":-1,"TotalSegments":0}`,
			err: "ValidationException: 2 validation errors detected: Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0; Value '0' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{op: "Scan", body: `{"TableName":"hash","TotalSegments":1000001,"Segment":0}`,
			err: "ValidationException: 1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000"},
		// https://github.com/getmoto/moto/filler/master/tests/test_dynamodb/test_dynamodb_select.py (verified against DynamoDB)
		{op: "Scan", body: `{"TableName":"hash","Select":"ALL_PROJECTED_ATTRIBUTES"}`, err: "ValidationException: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"},
		{op: "Scan", body: `{"TableName":"hash","Select":"SPECIFIC_ATTRIBUTES"}`, err: "ValidationException: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"},
		{op: "Scan", body: `{"TableName":"hash","Select":"COUNT","AttributesToGet":["n"]}`, err: "ValidationException: Cannot specify the AttributesToGet when choosing to get only the Count"},
		{op: "Scan", body: `{"TableName":"range","IndexName":"gsi","Select":"ALL_ATTRIBUTES"}`,
			err: "ValidationException: One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index gsi because its projection type is not ALL"},
		{op: "Scan", body: `{"TableName":"range","IndexName":"gsi","ConsistentRead":true}`, err: "ValidationException: Consistent reads are not supported on global secondary indexes"},
		{op: "Scan", body: `{"TableName":"hash","ExclusiveStartKey":{"x":{"S":"a"}}}`, err: "ValidationException: The provided starting key is invalid: The provided key element does not match the schema"},
		{op: "Scan", body: `{"TableName":"hash","ExpressionAttributeValues":{":v":{"S":"a"}}}`, err: "ValidationException: ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"},
		{op: "Scan", body: `{"TableName":"nope"}`, err: "ResourceNotFoundException: Requested resource not found"},
	})
}

// The 1 MB page limit is measured on the items read before the filter.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html#Scan.Pagination
func TestReadPageLimit(t *testing.T) {
	e := itemEngine(t)
	filler := strings.Repeat("x", 300*1024)
	for i := 0; i < 5; i++ {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"range","Item":{"pk":{"S":"p"},"sk":{"N":"%d"},"filler":{"S":"%s"}}}`, i, filler))
	}
	out := mustServe(t, e, "Query", `{"TableName":"range","KeyConditionExpression":"pk = :p","FilterExpression":"attribute_not_exists(filler)","ExpressionAttributeValues":{":p":{"S":"p"}}}`).(*readOutput)
	if out.scanned != 4 || out.n != 0 || out.lastKey == nil {
		t.Fatalf("scanned %d, count %d, last %v; want 4, 0 and a LastEvaluatedKey", out.scanned, out.n, out.lastKey)
	}
	out = mustServe(t, e, "Scan", `{"TableName":"range","Select":"COUNT"}`).(*readOutput)
	if out.scanned != 4 || out.lastKey == nil {
		t.Fatalf("scan read %d items, last %v", out.scanned, out.lastKey)
	}
}

// pageItems decodes the Items of a Query or Scan response as a client does.
func pageItems(t *testing.T, out *readOutput) []item.Item {
	t.Helper()
	var resp struct{ Items []item.Item }
	if err := json.Unmarshal(out.AppendJSON(nil), &resp); err != nil {
		t.Fatalf("response: %v", err)
	}
	return resp.Items
}
