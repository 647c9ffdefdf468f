package e2e

import (
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// TestUpdateRemoveOnlyOnMissingItem: an UpdateItem whose actions only take
// something away (REMOVE, DELETE from a set, AttributeUpdates DELETE) on an
// item that does not exist creates nothing, returns no Attributes for
// ALL_NEW and writes no stream record; an UpdateItem with no actions still
// creates the key-only item. DynamoDB's behaviour as tested against the
// service in https://github.com/scylladb/scylladb/issues/5862.
func TestUpdateRemoveOnlyOnMissingItem(t *testing.T) {
	s, c := startClient(t)
	sc := newStreamsClient(t, s.Endpoint)
	ctx := ctxT(t)
	name := tableName("rmonly")
	arn := createStreamTable(t, c, name, types.StreamViewTypeNewAndOldImages)

	cases := []struct {
		pk string
		in dynamodb.UpdateItemInput
	}{
		{"remove", dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE a, b.c")}},
		{"delete", dynamodb.UpdateItemInput{UpdateExpression: aws.String("DELETE s :v"),
			ExpressionAttributeValues: item{":v": avSS("x")}}},
		{"both", dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE a DELETE s :v"),
			ExpressionAttributeValues: item{":v": avNS("1")}}},
		{"legacy", dynamodb.UpdateItemInput{AttributeUpdates: map[string]types.AttributeValueUpdate{
			"a": {Action: types.AttributeActionDelete},
			"s": {Action: types.AttributeActionDelete, Value: avSS("x")}}}},
	}
	for _, tc := range cases {
		in := tc.in
		in.TableName = aws.String(name)
		in.Key = item{"pk": avS(tc.pk)}
		in.ReturnValues = types.ReturnValueAllNew
		out, err := c.UpdateItem(ctx, &in)
		if err != nil {
			t.Fatalf("%s: UpdateItem: %v", tc.pk, err)
		}
		if out.Attributes != nil {
			t.Errorf("%s: Attributes = %s, want none", tc.pk, itemText(out.Attributes))
		}
		if got := getItem(t, c, name, item{"pk": avS(tc.pk)}); got != nil {
			t.Errorf("%s: item created: %s", tc.pk, itemText(got))
		}
	}
	if recs := readStream(t, sc, arn); len(recs) != 0 {
		t.Fatalf("stream has %d records after remove-only updates, want 0", len(recs))
	}

	// An update with no actions creates the item from its key.
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
		Key: item{"pk": avS("empty")}, ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatalf("UpdateItem without actions: %v", err)
	}
	wantItem(t, out.Attributes, item{"pk": avS("empty")})
	wantItem(t, getItem(t, c, name, item{"pk": avS("empty")}), item{"pk": avS("empty")})

	// On an existing item REMOVE still writes.
	putItem(t, c, name, item{"pk": avS("remove"), "a": avN("1")})
	out, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
		Key: item{"pk": avS("remove")}, UpdateExpression: aws.String("REMOVE a"), ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatalf("UpdateItem REMOVE on existing item: %v", err)
	}
	wantItem(t, out.Attributes, item{"pk": avS("remove")})
}

// TestTransactUpdateRemoveOnlyOnMissingItem: the same rule holds for an
// Update action of TransactWriteItems.
func TestTransactUpdateRemoveOnlyOnMissingItem(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("txrmonly")
	createHashTable(t, c, name, "S")
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String(name), Key: item{"pk": avS("r")}, UpdateExpression: aws.String("REMOVE a")}},
		{Update: &types.Update{TableName: aws.String(name), Key: item{"pk": avS("s")}, UpdateExpression: aws.String("SET a = :v"),
			ExpressionAttributeValues: item{":v": avN("1")}}},
	}})
	if err != nil {
		t.Fatalf("TransactWriteItems: %v", err)
	}
	if got := getItem(t, c, name, item{"pk": avS("r")}); got != nil {
		t.Errorf("REMOVE created %s", itemText(got))
	}
	wantItem(t, getItem(t, c, name, item{"pk": avS("s")}), item{"pk": avS("s"), "a": avN("1")})
}

// TestComparisonOperandType: an ordering comparison (<, <=, >, >=,
// BETWEEN) whose ExpressionAttributeValues operand is not a string, number
// or binary is refused with a ValidationException naming the operator and
// the operand's type, for every such type, whether or not the item exists;
// a path whose value has such a type just makes the comparison false. The
// service's answer is described in
// https://github.com/scylladb/scylladb/issues/8043 and its text in
// https://github.com/scylladb/scylladb/issues/14592.
func TestComparisonOperandType(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("cmptype")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("p"), "a": avBool(true), "n": avN("1")})
	for _, tc := range []struct {
		op, typ string
		v       types.AttributeValue
	}{
		{"<", "BOOL", avBool(true)},
		{"<=", "NULL", avNull()},
		{">", "L", avL(avN("1"))},
		{">=", "M", avM(item{"k": avN("1")})},
		{"<", "SS", avSS("x")},
		{">", "NS", avNS("1")},
		{"<=", "BS", avBS([]byte{1})},
	} {
		for _, pk := range []string{"p", "missing"} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name),
				Item: item{"pk": avS(pk)}, ConditionExpression: aws.String("n " + tc.op + " :v"),
				ExpressionAttributeValues: item{":v": tc.v}})
			wantAPIError(t, err, "ValidationException", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "+tc.op+", operand type: "+tc.typ)
		}
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name),
			FilterExpression:          aws.String("n BETWEEN :v AND :v"),
			ExpressionAttributeValues: item{":v": tc.v}})
		wantAPIError(t, err, "ValidationException", "Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: "+tc.typ)
	}
	// A stored BOOL compared with a number is simply false.
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name),
		Item: item{"pk": avS("p")}, ConditionExpression: aws.String("a < :n"),
		ExpressionAttributeValues: item{":n": avN("5")}})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
}

// TestListIndexes: a list index past 2^31-1 is refused and echoed in
// brackets (DynamoDB Local's LIST_INDEX_OUTSIDE_RANGE text, "List index is
// not within the allowable range; index: [%s]"); a large index within the
// range appends to the list at once.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html#Expressions.UpdateExpressions.SET.AddingListElements
func TestListIndexes(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("listix")
	createHashTable(t, c, name, "S")
	key := item{"pk": avS("p")}
	putItem(t, c, name, item{"pk": avS("p"), "l": avL(avN("1"))})
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
		UpdateExpression: aws.String("SET l[2147483648] = :v"), ExpressionAttributeValues: item{":v": avN("2")}})
	wantAPIError(t, err, "ValidationException", "Invalid UpdateExpression: List index is not within the allowable range; index: [2147483648]")
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: key,
		ProjectionExpression: aws.String("l[99999999999]")})
	wantAPIError(t, err, "ValidationException", "Invalid ProjectionExpression: List index is not within the allowable range; index: [99999999999]")

	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
		UpdateExpression: aws.String("SET l[2000000000] = :v"), ExpressionAttributeValues: item{":v": avN("2")},
		ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatalf("SET l[2000000000]: %v", err)
	}
	wantItem(t, out.Attributes, item{"pk": avS("p"), "l": avL(avN("1"), avN("2"))})

	// An unknown function is named (scylladb's
	// test_update_expression_unknown_function, run against the service).
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
		UpdateExpression: aws.String("SET a = f(l)")})
	wantAPIError(t, err, "ValidationException", "Invalid UpdateExpression: Invalid function name; function: f")
}

// TestValuesValidatedInEveryPosition: a value in Expected, KeyConditions,
// QueryFilter, ScanFilter, a batch or a transaction gets PutItem's Item
// validation and message: a number that does not parse inside Expected is
// a ValidationException, never ConditionalCheckFailedException, and the
// message is the value's own, not wrapped. Messages as dynalite's
// test/putItem.js and test/updateItem.js assert them against the service
// ("should return ValidationException if expected value has empty numeric
// in set"); https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExpectedAttributeValue.html
func TestValuesValidatedInEveryPosition(t *testing.T) {
	s, c := startClient(t)
	name := tableName("values")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("p"), "a": avN("1")})
	tn := `"TableName":"` + name + `"`
	for _, tc := range []struct{ op, body, want string }{
		{"PutItem", `{` + tn + `,"Item":{"pk":{"S":"p"}},"Expected":{"a":{"Value":{"N":"abc"}}}}`, "The parameter cannot be converted to a numeric value: abc"},
		{"PutItem", `{` + tn + `,"Item":{"pk":{"S":"p"}},"Expected":{"a":{"Value":{"NS":["1",""]}}}}`, "The parameter cannot be converted to a numeric value"},
		{"PutItem", `{` + tn + `,"Item":{"pk":{"S":"p"}},"Expected":{"a":{"Value":{}}}}`, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"DeleteItem", `{` + tn + `,"Key":{"pk":{"S":"p"}},"Expected":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"1e999"}]}}}`, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"UpdateItem", `{` + tn + `,"Key":{"pk":{"S":"p"}},"Expected":{"a":{"ComparisonOperator":"IN","AttributeValueList":[{"SS":["x","x"]}]}}}`, "One or more parameter values were invalid: Input collection [x, x] contains duplicates."},
		{"Scan", `{` + tn + `,"ScanFilter":{"a":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"x"}]}}}`, "The parameter cannot be converted to a numeric value: x"},
		{"Query", `{` + tn + `,"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p"}]}},"QueryFilter":{"a":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"1e-999"}]}}}`, "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{"Query", `{` + tn + `,"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"x"}]}}}`, "The parameter cannot be converted to a numeric value: x"},
		{"Query", `{"TableName":"no-such-table","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"x"}]}}}`, "The parameter cannot be converted to a numeric value: x"},
		{"BatchWriteItem", `{"RequestItems":{"` + name + `":[{"PutRequest":{"Item":{"pk":{"S":"q"},"a":{"N":"--1"}}}}]}}`, "The parameter cannot be converted to a numeric value: --1"},
		{"BatchGetItem", `{"RequestItems":{"` + name + `":{"Keys":[{"pk":{"S":"p"},"x":{"NS":["1","1.0"]}}]}}}`, "Input collection contains duplicates"},
		{"TransactWriteItems", `{"TransactItems":[{"Put":{` + tn + `,"Item":{"pk":{"S":"p"},"x":{"SS":["a","a"]}}}}]}`, "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{"TransactGetItems", `{"TransactItems":[{"Get":{` + tn + `,"Key":{"pk":{"N":"--1"}}}}]}`, "The parameter cannot be converted to a numeric value: --1"},
	} {
		r := callRaw(t, s.Endpoint, tc.op, tc.body)
		wantRawError(t, r, "ValidationException", tc.want)
	}
	wantItem(t, getItem(t, c, name, item{"pk": avS("p")}), item{"pk": avS("p"), "a": avN("1")})
}

// TestIndexBackfillKeyViolations: a global secondary index added to a
// table whose items hold values its key cannot take (another type, an
// empty String, more than 2048 bytes for the partition key or 1024 for the
// sort key) becomes ACTIVE with those items left out, "the items remain in
// the table, but the index doesn't have a corresponding entry", as
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.ViolationDetection.html
// documents; after the backfill, writes of such values are refused.
func TestIndexBackfillKeyViolations(t *testing.T) {
	_, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("violations")
	createHashTable(t, c, name, "S")
	long := func(n int) string { return strings.Repeat("x", n) }
	items := map[string]item{
		"ok":     {"g": avS("a"), "r": avS("r")},
		"okmax":  {"g": avS(long(2048)), "r": avS(long(1024))},
		"emptyg": {"g": avS(""), "r": avS("r")},
		"emptyr": {"g": avS("a"), "r": avS("")},
		"bigg":   {"g": avS(long(2049)), "r": avS("r")},
		"bigr":   {"g": avS("a"), "r": avS(long(1025))},
		"numg":   {"g": avN("5"), "r": avS("r")},
		"binr":   {"g": avS("a"), "r": avB([]byte{1})},
		"sparse": {"g": avS("a")},
	}
	for pk, it := range items {
		it["pk"] = avS(pk)
		putItem(t, c, name, it)
	}
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
		AttributeDefinitions: attrDefs("g", "S", "r", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byGR"), KeySchema: keySchema("g", "r"), Projection: projAll()}}}})
	if err != nil {
		t.Fatal(err)
	}
	waitIndex(t, c, name, "byGR", false)
	scanIndex := func() string {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String("byGR")})
		if err != nil {
			t.Fatal(err)
		}
		var pks []string
		for _, it := range out.Items {
			pks = append(pks, it["pk"].(*types.AttributeValueMemberS).Value)
		}
		sort.Strings(pks)
		return strings.Join(pks, " ")
	}
	if got, want := scanIndex(), "ok okmax"; got != want {
		t.Fatalf("index holds %s, want %s", got, want)
	}
	if d := describeIndex(t, c, name, "byGR"); aws.ToInt64(d.ItemCount) != 2 {
		t.Errorf("ItemCount = %d, want 2", aws.ToInt64(d.ItemCount))
	}
	if out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), Select: types.SelectCount}); err != nil || out.Count != int32(len(items)) {
		t.Fatalf("table holds %v items (%v), want %d", out.Count, err, len(items))
	}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item{"pk": avS("new"), "g": avS(""), "r": avS("r")}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byGR, IndexKey: g")
	// Correcting a violating item puts it in the index.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: item{"pk": avS("emptyg")},
		UpdateExpression: aws.String("SET g = :g"), ExpressionAttributeValues: item{":g": avS("b")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scanIndex(), "emptyg ok okmax"; got != want {
		t.Fatalf("index holds %s after the correction, want %s", got, want)
	}
}

// TestConditionalOperatorNeedsConditions: ConditionalOperator joins two or
// more conditions of Expected, QueryFilter or ScanFilter; without any, or
// with one, DynamoDB refuses it. Messages as DynamoDB Local's ErrorCode
// COND_OP_WITHOUT_FILTER_OR_EXPECTED and COND_OP_WITH_ONE_ELEMENT, which
// ExtendDB's dual-target conformance tests
// (tests/legacy_conditional_operator, run against Amazon DynamoDB) assert.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.ConditionalOperator.html
func TestConditionalOperatorNeedsConditions(t *testing.T) {
	s, c := startClient(t)
	name := tableName("condop")
	createHashTable(t, c, name, "S")
	putItem(t, c, name, item{"pk": avS("p"), "a": avS("x")})
	const without = "ConditionalOperator cannot be used without Filter or Expected"
	const one = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
	tn := `"TableName":"` + name + `"`
	eq := `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"x"}]}`
	for _, tc := range []struct{ op, body, want string }{
		{"PutItem", `{` + tn + `,"Item":{"pk":{"S":"p"}},"ConditionalOperator":"AND"}`, without},
		{"PutItem", `{` + tn + `,"Item":{"pk":{"S":"p"}},"ConditionalOperator":"AND","Expected":{}}`, without},
		{"PutItem", `{` + tn + `,"Item":{"pk":{"S":"p"}},"ConditionalOperator":"OR","Expected":{"a":` + eq + `}}`, one},
		{"DeleteItem", `{` + tn + `,"Key":{"pk":{"S":"p"}},"ConditionalOperator":"AND"}`, without},
		{"UpdateItem", `{` + tn + `,"Key":{"pk":{"S":"p"}},"ConditionalOperator":"AND","AttributeUpdates":{"a":{"Value":{"S":"v"},"Action":"PUT"}}}`, without},
		{"Scan", `{` + tn + `,"ConditionalOperator":"AND","ScanFilter":{}}`, without},
		{"Scan", `{` + tn + `,"ConditionalOperator":"AND","ScanFilter":{"a":` + eq + `}}`, one},
		{"Query", `{` + tn + `,"ConditionalOperator":"AND"}`, without},
		{"Query", `{` + tn + `,"ConditionalOperator":"AND","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p"}]}},"QueryFilter":{"a":` + eq + `}}`, one},
	} {
		wantRawError(t, callRaw(t, s.Endpoint, tc.op, tc.body), "ValidationException", tc.want)
	}
	wantItem(t, getItem(t, c, name, item{"pk": avS("p")}), item{"pk": avS("p"), "a": avS("x")})
	// Two conditions are accepted.
	r := callRaw(t, s.Endpoint, "Scan", `{`+tn+`,"ConditionalOperator":"OR","ScanFilter":{"a":`+eq+`,"b":`+eq+`}}`)
	if r.Status != 200 {
		t.Fatalf("Scan with two conditions: %d %s", r.Status, r.Body)
	}
}

// TestControlPlaneValidation: UpdateTable's GlobalSecondaryIndexUpdates
// entries need exactly one action and an empty list changes nothing
// (architect/dynalite test/updateTable.js, run against the service); tag
// keys and values are measured in characters; an index ARN cannot be
// tagged (scylladb test_tag.py test_tag_lsi_gsi records DynamoDB's
// answer); a StreamArn that is not a stream ARN is "Invalid StreamArn".
func TestControlPlaneValidation(t *testing.T) {
	s, c := startClient(t)
	name := tableName("ctlplane")
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
		BillingMode:            types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byG"), KeySchema: keySchema("g"), Projection: projAll()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tn := `"TableName":"` + name + `"`
	nothing := "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"
	wantRawError(t, callRaw(t, s.Endpoint, "UpdateTable", `{`+tn+`,"GlobalSecondaryIndexUpdates":[]}`), "ValidationException", nothing)
	wantRawError(t, callRaw(t, s.Endpoint, "UpdateTable", `{`+tn+`,"GlobalSecondaryIndexUpdates":[{}]}`), "ValidationException",
		"One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
	wantRawError(t, callRaw(t, s.Endpoint, "UpdateTable", `{`+tn+`,"GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"byG"},"Update":{"IndexName":"byG","ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}}]}`), "ValidationException",
		"One or more parameter values were invalid: Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object")
	// The ack-api-quirks DynamoDB lab findings DDB-TABLE-160 and
	// DDB-TABLE-359: with another change, an empty list is an error of its
	// own; two updates of one index are refused.
	wantRawError(t, callRaw(t, s.Endpoint, "UpdateTable", `{`+tn+`,"GlobalSecondaryIndexUpdates":[],"DeletionProtectionEnabled":true}`), "ValidationException",
		"One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates is empty")
	wantRawError(t, callRaw(t, s.Endpoint, "UpdateTable", `{`+tn+`,"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"byG"}},{"Create":{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`), "ValidationException",
		"One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: byG")
	if d := describeIndex(t, c, name, "byG"); d == nil || d.IndexStatus != types.IndexStatusActive {
		t.Fatalf("index after refused updates: %+v", d)
	}
	if describe(t, c, name).DeletionProtectionEnabled != nil && *describe(t, c, name).DeletionProtectionEnabled {
		t.Fatal("a refused UpdateTable enabled deletion protection")
	}
	// DDB-TABLE-162: a conflicting definition of an attribute the new index
	// does not use is ignored; the table keeps its type.
	if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
		AttributeDefinitions:        attrDefs("pk", "N", "h", "S"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{createGSIUpdate("byH", "h")}}); err != nil {
		t.Fatalf("GSI create with a conflicting table key definition: %v", err)
	}
	for _, def := range describe(t, c, name).AttributeDefinitions {
		if aws.ToString(def.AttributeName) == "pk" && def.AttributeType != types.ScalarAttributeTypeS {
			t.Fatalf("pk redefined as %s", def.AttributeType)
		}
	}

	// Name lengths are member constraints, reported before the definitions
	// are checked against the key schemas.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeDefinition.html
	long := strings.Repeat("a", 256)
	wantRawError(t, callRaw(t, s.Endpoint, "CreateTable", `{"TableName":"abc","AttributeDefinitions":[{"AttributeName":"`+long+`","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`),
		"ValidationException", "1 validation error detected: Value '"+long+"' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")
	wantRawError(t, callRaw(t, s.Endpoint, "CreateTable", `{"TableName":"abc","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["`+long+`"]}}]}`),
		"ValidationException", "1 validation error detected: Value '"+long+"' at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes.1.member' failed to satisfy constraint: Member must have length less than or equal to 255")
	wantRawError(t, callRaw(t, s.Endpoint, "UpdateTable", `{`+tn+`,"AttributeDefinitions":[{"AttributeName":"`+long+`","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`),
		"ValidationException", "1 validation error detected: Value '"+long+"' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")

	d := describe(t, c, name)
	arn := aws.ToString(d.TableArn)
	key, value := strings.Repeat("é", 128), strings.Repeat("é", 256)
	if _, err := c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: []types.Tag{{Key: aws.String(key), Value: aws.String(value)}}}); err != nil {
		t.Fatalf("128-character key, 256-character value: %v", err)
	}
	_, err = c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
		Tags: []types.Tag{{Key: aws.String(key + "é"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '"+key+"é' at 'tags.1.member.key' failed to satisfy constraint: Member must have length less than or equal to 128")
	indexArn := aws.ToString(d.GlobalSecondaryIndexes[0].IndexArn)
	want := "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource " + indexArn
	_, err = c.TagResource(ctxT(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(indexArn), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "ValidationException", want)
	_, err = c.ListTagsOfResource(ctxT(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(indexArn)})
	wantAPIError(t, err, "ValidationException", want)
	_, err = c.UntagResource(ctxT(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(indexArn), TagKeys: []string{"k"}})
	wantAPIError(t, err, "ValidationException", want)

	sc := newStreamsClient(t, s.Endpoint)
	_, err = sc.DescribeStream(ctxT(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn + "/index/byG/and-more")})
	wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
	_, err = sc.GetShardIterator(ctxT(t), &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table"),
		ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
}
