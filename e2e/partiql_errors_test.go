package e2e

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Errors of ExecuteStatement, as DynamoDB words them. Sources:
//   - the parse-error details ("Unexpected term", "Unexpected token after
//     expression", "Missing right-hand side expression of infix operator"),
//     "Aliasing is not supported", "Requested resource not found" for a
//     missing table and the DELETE RETURNING message: recorded against
//     DynamoDB (eu-west-2) by public conformance suites (docs/partiql.md);
//   - "Number of parameters in request and statement don't match.", "Where
//     clause does not contain a mandatory equality on all key attributes",
//     the INSERT key checks and the EXISTS message: DynamoDB Local's PartiQL
//     message table, the same texts;
//   - https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
//     (the WHERE must resolve to a single primary key; a failed condition is
//     ConditionalCheckFailedException);
//   - ReturnValuesOnConditionCheckFailure and the member constraints:
//     https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
func TestPartiQLErrors(t *testing.T) {
	_, c := startClient(t)
	tb := tableName("pq-err")
	createRangeTable(t, c, tb, "N")
	putItem(t, c, tb, item{"pk": avS("a"), "sk": avN("1"), "n": avN("5")})
	q := func(s string) string { return fmt.Sprintf(s, tb) }
	const wf = "Statement wasn't well formed, can't be processed: "

	for _, tc := range []struct {
		stmt   string
		params []types.AttributeValue
		code   string
		msg    string
	}{
		{q(`SELECT * FROM "%s" WHERE`), nil, "ValidationException", wf + "Unexpected term"},
		{q(`SELECT * FROM "%s" WHERE pk = 'a' foo`), nil, "ValidationException", wf + "Unexpected token after expression"},
		{q(`SELECT * FROM "%s" WHERE pk = 'a' AND`), nil, "ValidationException", wf + "Missing right-hand side expression of infix operator"},
		{q(`SELECT * FROM "%s" t WHERE pk = 'a'`), nil, "ValidationException", "Aliasing is not supported"},
		{q(`SELECT * FROM "%s" WHERE pk = ? AND sk = ?`), []types.AttributeValue{avS("a")}, "ValidationException", "Number of parameters in request and statement don't match."},
		{`SELECT * FROM "no-such-table" WHERE pk = 'a'`, nil, "ResourceNotFoundException", "Requested resource not found"},
		{`FROM "no-such-table" WHERE pk = 'a' SET c = 1`, nil, "ResourceNotFoundException", "Requested resource not found"},
		{q(`FROM "%s" SET c = 1`), nil, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"},
		{q(`UPDATE "%s" SET n = 1 WHERE pk = 'a'`), nil, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"},
		{q(`DELETE FROM "%s" WHERE n = 5`), nil, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"},
		{q(`INSERT INTO "%s" VALUE {'pk': 'b'}`), nil, "ValidationException", "Key attribute should be present in the item: Key sk"},
		{q(`INSERT INTO "%s" VALUE {'pk': 'b', 'sk': 'x'}`), nil, "ValidationException", "Key attribute's data type should match its data type in table's schema: Key sk"},
		{q(`EXISTS(SELECT * FROM "%s" WHERE pk = 'a' AND sk = 1)`), nil, "ValidationException", "EXISTS can only be used in ExecuteTransaction write requests."},
		{q(`DELETE FROM "%s" WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`), nil, "ValidationException", "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements."},
		// A type error of the update, in the words of the engine (and of
		// UpdateItem: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html).
		{q(`UPDATE "%s" SET n = n + 'x' WHERE pk = 'a' AND sk = 1`), nil, "ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"", nil, "ValidationException", "1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1"},
	} {
		_, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.stmt), Parameters: tc.params})
		wantAPIError(t, err, tc.code, tc.msg)
	}
	_, err := c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(q(`SELECT * FROM "%s"`)), Limit: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")

	// A failed condition returns the item when asked to, and writes nothing.
	_, err = c.ExecuteStatement(ctxT(t), &dynamodb.ExecuteStatementInput{
		Statement:                           aws.String(q(`UPDATE "%s" SET n = 9 WHERE pk = 'a' AND sk = 1 AND n > 5`)),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || itemText(ccf.Item) != `{"n":{"N":"5"},"pk":{"S":"a"},"sk":{"N":"1"}}` {
		t.Fatalf("want ConditionalCheckFailedException with the item, got %v", err)
	}
	if it := getItem(t, c, tb, item{"pk": avS("a"), "sk": avN("1")}); itemText(it) != `{"n":{"N":"5"},"pk":{"S":"a"},"sk":{"N":"1"}}` {
		t.Errorf("a refused statement changed the item: %s", itemText(it))
	}
	if it := getItem(t, c, tb, item{"pk": avS("b"), "sk": avN("1")}); it != nil {
		t.Errorf("a refused INSERT wrote %s", itemText(it))
	}
}
