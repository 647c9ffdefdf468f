package e2e

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sources of the behaviour and messages asserted here:
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
//     (INSERT of an existing key: DuplicateItemException "Duplicate primary key exists in table")
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
//     ("If the WHERE clause of the UPDATE statement does not evaluate to true
//     for any item in the DynamoDB table, ConditionalCheckFailedException is
//     returned"; confirmed against DynamoDB in
//     https://github.com/nubo-db/dynoxide/pull/150)
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
//     (NextToken and Limit paginate; ConsistentRead; ReturnConsumedCapacity)
//   An empty MODIFIED projection is Items: [] (recorded against DynamoDB by
//   https://github.com/nubo-db/dynoxide's tests).
//   DELETE of an absent item with a non-key condition is a no-op, and the
//   WHERE of a DELETE or UPDATE must pin the full key: behaviour recorded
//   against DynamoDB by public conformance suites (see docs/partiql.md).

// runStmt runs one statement and returns its items.
func runStmt(t *testing.T, c *dynamodb.Client, stmt string, params ...types.AttributeValue) []item {
	t.Helper()
	out, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Parameters: params})
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return out.Items
}

func itemsText(its []item) string {
	parts := make([]string, len(its))
	for i, it := range its {
		parts[i] = itemText(it)
	}
	return strings.Join(parts, " | ")
}

func TestPartiQLStatements(t *testing.T) {
	_, c := startClient(t)
	tb := tableName("pq")
	createRangeTable(t, c, tb, "N")
	q := func(s string) string { return fmt.Sprintf(s, tb) }

	// INSERT, then INSERT of the same key.
	runStmt(t, c, q(`INSERT INTO "%s" VALUE {'pk': 'a', 'sk': 1, 'n': 10, 'tags': <<'x', 'y'>>, 'm': {'l': [1, 'two']}}`))
	runStmt(t, c, q(`INSERT INTO "%s" VALUE {'pk': ?, 'sk': ?, 'n': 20}`), avS("a"), avN("2"))
	runStmt(t, c, q(`INSERT INTO "%s" VALUE {'pk': 'b', 'sk': 1}`))
	_, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(q(`INSERT INTO "%s" VALUE {'pk': 'a', 'sk': 1}`))})
	wantAPIError(t, err, "DuplicateItemException", "Duplicate primary key exists in table")

	for _, tc := range []struct{ stmt, want string }{
		// Full key: the GetItem path.
		{`SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1`, `{"m":{"M":{"l":{"L":[{"N":"1"},{"S":"two"}]}}},"n":{"N":"10"},"pk":{"S":"a"},"sk":{"N":"1"},"tags":{"SS":["x","y"]}}`},
		// Partition key: the Query path, in sort-key order.
		{`SELECT pk, sk FROM "%s" WHERE pk = 'a'`, `{"pk":{"S":"a"},"sk":{"N":"1"}} | {"pk":{"S":"a"},"sk":{"N":"2"}}`},
		{`SELECT sk FROM "%s" WHERE pk = 'a' ORDER BY sk DESC`, `{"sk":{"N":"2"}} | {"sk":{"N":"1"}}`},
		{`SELECT sk FROM "%s" WHERE pk = 'a' ORDER BY pk ASC`, `{"sk":{"N":"2"}} | {"sk":{"N":"1"}}`},
		{`SELECT sk FROM "%s" WHERE pk = 'a' AND sk > 1`, `{"sk":{"N":"2"}}`},
		{`SELECT sk FROM "%s" WHERE pk = 'a' AND sk BETWEEN 0 AND 5 AND n >= 20`, `{"sk":{"N":"2"}}`},
		{`SELECT m.l[1] FROM "%s" WHERE pk = 'a' AND sk = 1`, `{"m":{"M":{"l":{"L":[{"S":"two"}]}}}}`},
		// Anything else: a Scan with a filter.
		{`SELECT pk FROM "%s" WHERE n IS MISSING`, `{"pk":{"S":"b"}}`},
		{`SELECT sk FROM "%s" WHERE contains(tags, 'x') OR n = 20`, ``},
		{`SELECT sk FROM "%s" WHERE size(tags) = 2 AND begins_with(pk, 'a')`, `{"sk":{"N":"1"}}`},
		{`SELECT sk FROM "%s" WHERE n IN [10, 30] AND attribute_type(n, 'N')`, `{"sk":{"N":"1"}}`},
		{`SELECT pk FROM "%s" WHERE NOT exists(n)`, `{"pk":{"S":"b"}}`},
	} {
		got := runStmt(t, c, q(tc.stmt))
		if tc.want == "" {
			if len(got) != 2 {
				t.Errorf("%s: got %s, want two items", tc.stmt, itemsText(got))
			}
			continue
		}
		if itemsText(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.stmt, itemsText(got), tc.want)
		}
	}

	// UPDATE with SET, arithmetic, list_append, set_add, set_delete, REMOVE and RETURNING.
	got := runStmt(t, c, q(`UPDATE "%s" SET n = n + 5 SET m.l = list_append(m.l, [3]) SET tags = set_add(tags, <<'z'>>) WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *`))
	if want := `{"m":{"M":{"l":{"L":[{"N":"1"},{"S":"two"},{"N":"3"}]}}},"n":{"N":"15"},"tags":{"SS":["x","y","z"]}}`; itemsText(got) != want {
		t.Errorf("UPDATE RETURNING MODIFIED NEW *:\n got %s\nwant %s", itemsText(got), want)
	}
	got = runStmt(t, c, q(`UPDATE "%s" SET tags = set_delete(tags, <<'x'>>) REMOVE m WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *`))
	if want := `{"m":{"M":{"l":{"L":[{"N":"1"},{"S":"two"},{"N":"3"}]}}},"n":{"N":"15"},"pk":{"S":"a"},"sk":{"N":"1"},"tags":{"SS":["x","y","z"]}}`; itemsText(got) != want {
		t.Errorf("UPDATE RETURNING ALL OLD *:\n got %s\nwant %s", itemsText(got), want)
	}
	if it := getItem(t, c, tb, item{"pk": avS("a"), "sk": avN("1")}); itemText(it) != `{"n":{"N":"15"},"pk":{"S":"a"},"sk":{"N":"1"},"tags":{"SS":["y","z"]}}` {
		t.Errorf("after UPDATE: %s", itemText(it))
	}

	// PartiQL's FROM-first form of UPDATE.
	got = runStmt(t, c, q(`FROM "%s" WHERE pk = 'a' AND sk = 2 SET n = 21 RETURNING MODIFIED OLD *`))
	if want := `{"n":{"N":"20"}}`; itemsText(got) != want {
		t.Errorf("FROM ... SET RETURNING MODIFIED OLD *: got %s, want %s", itemsText(got), want)
	}

	// An empty MODIFIED projection returns no item (Items is empty, not [{}]).
	if got := runStmt(t, c, q(`UPDATE "%s" REMOVE nothing WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *`)); len(got) != 0 {
		t.Errorf("REMOVE of an absent attribute, RETURNING MODIFIED NEW *: %s", itemsText(got))
	}

	// UPDATE is not an upsert; its other conditions are condition checks.
	_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(q(`UPDATE "%s" SET n = 1 WHERE pk = 'zz' AND sk = 1`))})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{
		Statement:                           aws.String(q(`UPDATE "%s" SET n = 1 WHERE pk = 'a' AND sk = 1 AND n = 99`)),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	// ALL_OLD puts the item in the error.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html#DDB-ExecuteStatement-request-ReturnValuesOnConditionCheckFailure
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || itemText(ccf.Item) != `{"n":{"N":"15"},"pk":{"S":"a"},"sk":{"N":"1"},"tags":{"SS":["y","z"]}}` {
		t.Errorf("ReturnValuesOnConditionCheckFailure ALL_OLD: %v", err)
	}

	// DELETE, with RETURNING ALL OLD *; a DELETE of an absent item is a no-op.
	got = runStmt(t, c, q(`DELETE FROM "%s" WHERE pk = 'b' AND sk = 1 RETURNING ALL OLD *`))
	if itemsText(got) != `{"pk":{"S":"b"},"sk":{"N":"1"}}` {
		t.Errorf("DELETE RETURNING ALL OLD *: %s", itemsText(got))
	}
	if got := runStmt(t, c, q(`DELETE FROM "%s" WHERE pk = 'b' AND sk = 1 AND n = 3`)); len(got) != 0 {
		t.Errorf("DELETE of an absent item: %s", itemsText(got))
	}
	_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(q(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 2 AND n = 3`))})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")

	// IS NULL holds for a NULL attribute only; a missing one IS NOT NULL
	// (recorded against DynamoDB in eu-west-2 by
	// https://github.com/hectorvent/floci's DynamoDbPartiQLDocumentedSyntaxIntegrationTest).
	runStmt(t, c, q(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 1, 'n': NULL}`))
	runStmt(t, c, q(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 2}`))
	runStmt(t, c, q(`INSERT INTO "%s" VALUE {'pk': 'c', 'sk': 3, 'n': 1}`))
	for _, tc := range []struct{ stmt, want string }{
		{`SELECT sk FROM "%s" WHERE pk = 'c' AND n IS NULL`, `{"sk":{"N":"1"}}`},
		{`SELECT sk FROM "%s" WHERE pk = 'c' AND absent IS NULL`, ``},
		{`SELECT sk FROM "%s" WHERE pk = 'c' AND n IS NOT NULL`, `{"sk":{"N":"2"}} | {"sk":{"N":"3"}}`},
		{`SELECT sk FROM "%s" WHERE pk = 'c' AND absent IS NOT NULL`, `{"sk":{"N":"1"}} | {"sk":{"N":"2"}} | {"sk":{"N":"3"}}`},
	} {
		if got := itemsText(runStmt(t, c, q(tc.stmt))); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.stmt, got, tc.want)
		}
	}
}

func TestPartiQLPagination(t *testing.T) {
	_, c := startClient(t)
	tb := tableName("pq-page")
	createRangeTable(t, c, tb, "N")
	for i := 0; i < 5; i++ {
		runStmt(t, c, fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': 'p', 'sk': %d}`, tb, i))
	}
	var seen []string
	var token *string
	for pages := 0; ; pages++ {
		out, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{
			Statement: aws.String(fmt.Sprintf(`SELECT sk FROM "%s" WHERE pk = 'p'`, tb)),
			Limit:     aws.Int32(2), NextToken: token, ConsistentRead: aws.Bool(true),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.ConsumedCapacity == nil || aws.ToString(out.ConsumedCapacity.TableName) != tb {
			t.Fatalf("ConsumedCapacity: %+v", out.ConsumedCapacity)
		}
		for _, it := range out.Items {
			seen = append(seen, avText(it["sk"]))
		}
		if out.NextToken == nil {
			break
		}
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		token = out.NextToken
	}
	if got := strings.Join(seen, ","); got != `{"N":"0"},{"N":"1"},{"N":"2"},{"N":"3"},{"N":"4"}` {
		t.Errorf("pages: %s", got)
	}
	_, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{
		Statement: aws.String(fmt.Sprintf(`SELECT sk FROM "%s" WHERE pk = 'p'`, tb)), NextToken: aws.String("bogus"),
	})
	wantAPIError(t, err, "ValidationException", "Invalid NextToken")
	// A token altered to hold another key (of the wrong type, missing or
	// extra attributes, an empty string) is as invalid as a bogus one: the
	// token is opaque, so the client is never told about start keys.
	// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html#DDB-ExecuteStatement-request-NextToken
	for _, key := range []string{
		`{"pk":{"N":"1"},"sk":{"N":"1"}}`, `{"pk":{"S":"p"}}`, `{"pk":{"S":"p"},"sk":{"N":"1"},"x":{"S":"y"}}`,
		`{"pk":{"S":""},"sk":{"N":"1"}}`, `{"pk":{"S":"p"},"sk":{"S":"1"}}`,
	} {
		tampered := base64.StdEncoding.EncodeToString([]byte("xdb1:" + key))
		for _, stmt := range []string{`SELECT sk FROM "%s" WHERE pk = 'p'`, `SELECT sk FROM "%s"`} {
			_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(stmt, tb)), NextToken: aws.String(tampered),
			})
			wantAPIError(t, err, "ValidationException", "Invalid NextToken")
		}
	}
}

// SELECT FROM "table"."index": a Query of the index on its partition key,
// a Scan of it otherwise (and for indexes with multi-attribute keys).
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
func TestPartiQLIndexes(t *testing.T) {
	_, c := startClient(t)
	tb := matchesTable(t, c)
	for _, tc := range []struct {
		stmt, want string
		sorted     bool // a Scan: compare as a set
	}{
		// Multi-attribute sort key (matchDate, round): a Query in key order.
		{`SELECT matchId FROM "%s"."PlayerIndex" WHERE player = '101' ORDER BY matchDate DESC`, "m7,m1,m2,m4", false},
		{`SELECT matchId FROM "%s"."TournamentRegionIndex" WHERE region = 'EAST' AND tournamentId = 'W24' AND score = '3-1'`, "m1,m4,m6,m2,m3", false},
		// Conditions on the sort key attributes: a Scan of the index.
		{`SELECT matchId FROM "%s"."PlayerIndex" WHERE player = '101' AND matchDate BETWEEN 16 AND 20`, "m1,m2", true},
		{`SELECT matchId FROM "%s"."TournamentRegionIndex" WHERE tournamentId = 'W24' AND region = 'EAST' AND round = 'FINALS'`, "m1", true},
	} {
		got := runStmt(t, c, fmt.Sprintf(tc.stmt, tb))
		g := ids(got)
		if tc.sorted {
			parts := strings.Split(g, ",")
			sort.Strings(parts)
			g = strings.Join(parts, ",")
		}
		if g != tc.want {
			t.Errorf("%s: got %s, want %s", tc.stmt, g, tc.want)
		}
	}
	_, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s"."NoSuchIndex" WHERE player = '1'`, tb))})
	// An unknown index is a ValidationException that does not name it
	// (recorded against DynamoDB in eu-west-2 by
	// https://github.com/nubo-db/dynoxide's tests/partiql_index_qualifier.rs, Q12).
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index")
	// Writes naming an index are refused before the table is looked up (Q23, Q24).
	for _, s := range []string{
		fmt.Sprintf(`UPDATE "%s"."PlayerIndex" SET a = 1 WHERE player = '1'`, tb),
		`DELETE FROM "no-such-table"."PlayerIndex" WHERE player = '1'`,
	} {
		_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(s)})
		wantAPIError(t, err, "ValidationException", "This operation is not supported on an index")
	}
	_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(fmt.Sprintf(`SELECT * FROM "%s".""`, tb))})
	wantAPIError(t, err, "ValidationException", "Path component cannot be an empty string")
	// A global secondary index cannot fetch what it does not project, and a
	// read keyed on an index may not filter on it (Q8, Q28, Q34).
	for _, tc := range []struct{ stmt, msg string }{
		{`SELECT matchId, score FROM "%s"."PlayerIndex" WHERE player = '101'`, "One or more parameter values were invalid: Global secondary index PlayerIndex does not project [score]"},
		{`SELECT matchId FROM "%s"."PlayerIndex" WHERE player = '101' AND score = '3-1'`, "One or more parameter values were invalid: Secondary index PlayerIndex does not project one or more filter attributes: [score]"},
	} {
		_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(fmt.Sprintf(tc.stmt, tb))})
		wantAPIError(t, err, "ValidationException", tc.msg)
	}
	if got := runStmt(t, c, fmt.Sprintf(`SELECT matchId FROM "%s"."PlayerIndex" WHERE score = '3-1'`, tb)); len(got) != 0 {
		t.Errorf("an unkeyed filter the index cannot satisfy matches nothing: got %s", itemsText(got))
	}
	// DynamoDB Local's PartiQL message table words this refusal so.
	_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{
		Statement:      aws.String(fmt.Sprintf(`SELECT * FROM "%s"."PlayerIndex" WHERE player = '101'`, tb)),
		ConsistentRead: aws.Bool(true),
	})
	wantAPIError(t, err, "ValidationException", "Strongly consistent read is not supported on Global Secondary Indexes")
}
