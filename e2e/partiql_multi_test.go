package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sources of the behaviour and messages asserted here:
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.batching.html
//     (1 to 25 statements, all reads or all writes; a failed statement is an
//     Error in its entry, Code "ValidationError" for a ValidationException;
//     an entry whose statement ran and failed (ConditionalCheckFailed,
//     DuplicateItem, ResourceNotFound) keeps its TableName while a
//     ValidationError has none; ReturnValuesOnConditionCheckFailure puts no
//     Item in a batch entry; two statements on one item refuse the batch with
//     "Provided list of item keys contains duplicates"; an UPDATE whose
//     MODIFIED projection is empty has no Item: all recorded against DynamoDB
//     in eu-west-2 by https://github.com/nubo-db/dynoxide's tests
//     batch_statement_member_fields.rs and partiql.rs)
//     A statement whose condition failed is charged the write it attempted
//     on the table's total (B10 there).
//   "Read and write requests together in the same batch is not supported."
//     is DynamoDB Local's PARTIQL_BATCH_MIXED_READ_WRITE, recorded against
//     DynamoDB by the same tests.
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.transactions.html
//     (all reads or all writes, EXISTS as a condition check)
//   "Validation failed in TransactStatements[0]: RETURNING clause is not
//   supported in ExecuteTransaction." and the parse errors inside it are
//   DynamoDB's texts as DynamoDB Local words them (docs/partiql.md).

func stmt(s string, params ...types.AttributeValue) types.BatchStatementRequest {
	return types.BatchStatementRequest{Statement: aws.String(s), Parameters: params}
}

func TestPartiQLBatchExecuteStatement(t *testing.T) {
	_, c := startClient(t)
	tb := tableName("pq-batch")
	createHashTable(t, c, tb, "S")
	q := func(s string) string { return fmt.Sprintf(s, tb) }
	for _, pk := range []string{"old", "o2", "o3", "o4", "big"} {
		putItem(t, c, tb, item{"pk": avS(pk), "n": avN("1")})
	}

	out, err := c.BatchExecuteStatement(ctxT(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		stmt(q(`INSERT INTO "%s" VALUE {'pk': 'new'}`)),
		stmt(q(`INSERT INTO "%s" VALUE {'pk': ?}`), avS("old")),
		{Statement: aws.String(q(`UPDATE "%s" SET n = 2 WHERE pk = 'o2' AND n = 5`)), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
		stmt(q(`SELECT * FROM "%s" WHERE`)),
		stmt(`DELETE FROM "nope-table" WHERE pk = 'x'`),
		stmt(q(`UPDATE "%s" REMOVE zz WHERE pk = 'o3' RETURNING MODIFIED NEW *`)),
		stmt(q(`UPDATE "%s" SET n = 3 WHERE pk = 'o4' RETURNING MODIFIED NEW *`)),
		stmt(q(`UPDATE "%s" SET n = 3 WHERE n = 1`)),
		stmt(q(`INSERT INTO "%s" VALUE {'pk': 'big', 'pad': ?}`), avS(strings.Repeat("x", 2500))),
	}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		tb + "|",
		tb + "|DuplicateItem:Duplicate primary key exists in table",
		tb + "|ConditionalCheckFailed:The conditional request failed",
		"|ValidationError:Statement wasn't well formed, can't be processed: Unexpected term",
		"nope-table|ResourceNotFound:Requested resource not found",
		tb + "|",
		tb + `|{"n":{"N":"3"}}`,
		"|ValidationError:Where clause does not contain a mandatory equality on all key attributes",
		tb + "|DuplicateItem:Duplicate primary key exists in table",
	}
	if len(out.Responses) != len(want) {
		t.Fatalf("Responses: %+v", out.Responses)
	}
	for i, r := range out.Responses {
		got := aws.ToString(r.TableName) + "|"
		if r.Error != nil {
			got += string(r.Error.Code) + ":" + aws.ToString(r.Error.Message)
			if r.Error.Item != nil {
				got += itemText(r.Error.Item)
			}
		}
		if r.Item != nil {
			got += itemText(r.Item)
		}
		if got != want[i] {
			t.Errorf("Responses[%d]: got %q, want %q", i, got, want[i])
		}
	}
	// Three writes of 1 unit on the table and its arm; the statements whose
	// condition failed are charged the write they attempted (1, 1 and 3 units
	// for the 2.5 KB INSERT) on the total alone; refused ones nothing.
	if cc := out.ConsumedCapacity; len(cc) != 1 || aws.ToFloat64(cc[0].CapacityUnits) != 8 || cc[0].Table == nil || aws.ToFloat64(cc[0].Table.CapacityUnits) != 3 {
		t.Errorf("ConsumedCapacity: %s", capacityText(out.ConsumedCapacity))
	}

	// Reads: each by full key; an absent item is an entry with no Item. An
	// EXISTS is refused on its own and is neither a read nor a write
	// (DynamoDB Local's BatchExecuteStatementFunction).
	out, err = c.BatchExecuteStatement(ctxT(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		stmt(q(`SELECT pk FROM "%s" WHERE pk = 'new'`)),
		stmt(q(`SELECT * FROM "%s" WHERE pk = ?`), avS("absent")),
		stmt(q(`SELECT * FROM "%s" WHERE n = 1`)),
		stmt(q(`EXISTS(SELECT * FROM "%s" WHERE pk = 'new')`)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := itemText(out.Responses[0].Item); got != `{"pk":{"S":"new"}}` {
		t.Errorf("Responses[0].Item: %s", got)
	}
	if out.Responses[1].Item != nil || out.Responses[1].Error != nil {
		t.Errorf("Responses[1]: %+v", out.Responses[1])
	}
	if e := out.Responses[2].Error; e == nil || e.Code != types.BatchStatementErrorCodeEnumValidationError ||
		aws.ToString(e.Message) != "Select statements within BatchExecuteStatement must specify the primary key in the where clause." {
		t.Errorf("Responses[2]: a read without the full key: %+v", out.Responses[2])
	}
	if e := out.Responses[3].Error; e == nil || aws.ToString(e.Message) != "EXISTS can only be used in ExecuteTransaction write requests." {
		t.Errorf("Responses[3]: EXISTS: %+v", out.Responses[3])
	}

	// Reads and writes do not mix; 26 statements are too many.
	_, err = c.BatchExecuteStatement(ctxT(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		stmt(q(`SELECT * FROM "%s" WHERE pk = 'a'`)), stmt(q(`DELETE FROM "%s" WHERE pk = 'a'`)),
	}})
	wantAPIError(t, err, "ValidationException", "Read and write requests together in the same batch is not supported.")
	// Two statements on one item refuse the whole batch before any runs,
	// reads as well as writes, a number key compared as a number.
	for _, dup := range [][]types.BatchStatementRequest{
		{stmt(q(`INSERT INTO "%s" VALUE {'pk': 'd1'}`)), stmt(q(`UPDATE "%s" SET n = 1 WHERE pk = ?`), avS("d1"))},
		{stmt(q(`DELETE FROM "%s" WHERE pk = 'd1'`)), stmt(q(`DELETE FROM "%s" WHERE pk = 'd1' AND n = 1`))},
		{stmt(q(`SELECT * FROM "%s" WHERE pk = 'new'`)), stmt(q(`SELECT pk FROM "%s" WHERE pk = 'new'`))},
	} {
		_, err = c.BatchExecuteStatement(ctxT(t), &dynamodb.BatchExecuteStatementInput{Statements: dup})
		wantAPIError(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	}
	if it := getItem(t, c, tb, item{"pk": avS("d1")}); it != nil {
		t.Errorf("a refused batch wrote %s", itemText(it))
	}
	many := make([]types.BatchStatementRequest, 26)
	for i := range many {
		many[i] = stmt(q(`SELECT * FROM "%s" WHERE pk = 'a'`))
	}
	_, err = c.BatchExecuteStatement(ctxT(t), &dynamodb.BatchExecuteStatementInput{Statements: many})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '[...]' at 'statements' failed to satisfy constraint: Member must have length less than or equal to 25")
}

func capacityText(cc []types.ConsumedCapacity) string {
	var parts []string
	for _, c := range cc {
		p := fmt.Sprintf("%s:%v", aws.ToString(c.TableName), aws.ToFloat64(c.CapacityUnits))
		if c.Table != nil {
			p += fmt.Sprintf(" table %v", aws.ToFloat64(c.Table.CapacityUnits))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func tx(ss ...string) []types.ParameterizedStatement {
	out := make([]types.ParameterizedStatement, len(ss))
	for i, s := range ss {
		out[i] = types.ParameterizedStatement{Statement: aws.String(s)}
	}
	return out
}

func TestPartiQLExecuteTransaction(t *testing.T) {
	_, c := startClient(t)
	tb := tableName("pq-tx")
	createHashTable(t, c, tb, "S")
	q := func(s string) string { return fmt.Sprintf(s, tb) }
	putItem(t, c, tb, item{"pk": avS("a"), "n": avN("1")})

	// All or nothing: the failed EXISTS cancels the INSERT.
	_, err := c.ExecuteTransaction(ctxT(t), &dynamodb.ExecuteTransactionInput{TransactStatements: tx(
		q(`INSERT INTO "%s" VALUE {'pk': 'b'}`),
		q(`EXISTS(SELECT * FROM "%s" WHERE pk = 'a' AND n = 2)`),
	)})
	rs := canceled(t, err, "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]")
	if got := reasonText(rs); got != "None | ConditionalCheckFailed:The conditional request failed" {
		t.Errorf("reasons: %s", got)
	}
	if it := getItem(t, c, tb, item{"pk": avS("b")}); it != nil {
		t.Fatalf("a cancelled transaction wrote %s", itemText(it))
	}
	// ReturnValuesOnConditionCheckFailure of a statement puts the item in its reason.
	_, err = c.ExecuteTransaction(ctxT(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{{
		Statement:                           aws.String(q(`UPDATE "%s" SET n = 3 WHERE pk = 'a' AND n = 2`)),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}})
	rs = canceled(t, err, "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]")
	if got := reasonText(rs); got != `ConditionalCheckFailed:The conditional request failed:{"n":{"N":"1"},"pk":{"S":"a"}}` {
		t.Errorf("reasons: %s", got)
	}
	// An INSERT of an existing key.
	_, err = c.ExecuteTransaction(ctxT(t), &dynamodb.ExecuteTransactionInput{TransactStatements: tx(q(`INSERT INTO "%s" VALUE {'pk': 'a'}`))})
	rs = canceled(t, err, "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]")
	if got := reasonText(rs); got != "ValidationError:Duplicate primary key exists in table" {
		t.Errorf("reasons: %s", got)
	}

	// Success, then the same ClientRequestToken again is answered without a second write.
	in := &dynamodb.ExecuteTransactionInput{ClientRequestToken: aws.String("tok-1"), TransactStatements: tx(
		q(`UPDATE "%s" SET n = n + 1 WHERE pk = 'a'`),
		q(`INSERT INTO "%s" VALUE {'pk': 'c'}`),
	)}
	for i := 0; i < 2; i++ {
		if _, err := c.ExecuteTransaction(ctxT(t), in); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if it := getItem(t, c, tb, item{"pk": avS("a")}); itemText(it) != `{"n":{"N":"2"},"pk":{"S":"a"}}` {
		t.Errorf("after the idempotent retry: %s", itemText(it))
	}
	in.TransactStatements = tx(q(`DELETE FROM "%s" WHERE pk = 'a'`))
	_, err = c.ExecuteTransaction(ctxT(t), in)
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")

	// Reads.
	out, err := c.ExecuteTransaction(ctxT(t), &dynamodb.ExecuteTransactionInput{TransactStatements: tx(
		q(`SELECT n FROM "%s" WHERE pk = 'a'`), q(`SELECT * FROM "%s" WHERE pk = 'zz'`),
	), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	// Transactional reads cost 2 units per item read, absent ones included.
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
	if len(out.ConsumedCapacity) != 1 || aws.ToString(out.ConsumedCapacity[0].TableName) != tb || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 4 {
		t.Errorf("ConsumedCapacity: %+v", out.ConsumedCapacity)
	}
	if len(out.Responses) != 2 || itemText(out.Responses[0].Item) != `{"n":{"N":"2"}}` || out.Responses[1].Item != nil {
		t.Errorf("Responses: %+v", out.Responses)
	}

	for _, tc := range []struct {
		stmts []types.ParameterizedStatement
		msg   string
	}{
		{tx(q(`UPDATE "%s" SET n = 1 WHERE pk = 'a' RETURNING ALL NEW *`)), "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction."},
		{tx(q(`SELECT * FROM "%s" WHERE`)), "Validation failed in TransactStatements[0]: Statement wasn't well formed, can't be processed: Unexpected term"},
		{tx(q(`SELECT * FROM "%s" WHERE n = 1`)), "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause."},
		// Reads and writes do not mix, checked before any statement is
		// planned (DynamoDB Local's PARTIQL_TRANSACT_REQUEST_MIXED_OPERATION,
		// also recorded against DynamoDB by https://github.com/nubo-db/dynoxide's
		// tests/execute_transaction.rs).
		{tx(q(`SELECT * FROM "%s" WHERE pk = 'a'`), q(`DELETE FROM "%s" WHERE pk = 'a'`)), "ExecuteTransaction API does not support both read and write operations in the same request."},
		{tx(q(`DELETE FROM "%s" WHERE n = 1`), q(`SELECT * FROM "%s" WHERE pk = 'a'`)), "ExecuteTransaction API does not support both read and write operations in the same request."},
		{tx(q(`EXISTS(SELECT * FROM "%s" WHERE pk = 'a')`), q(`SELECT * FROM "%s" WHERE pk = 'a'`)), "ExecuteTransaction API does not support both read and write operations in the same request."},
		// An EXISTS needs a condition besides the key (recorded against
		// DynamoDB in eu-west-2 by https://github.com/hectorvent/floci's
		// DynamoDbPartiQLDocumentedSyntaxIntegrationTest).
		{tx(q(`EXISTS(SELECT * FROM "%s" WHERE pk = 'a')`), q(`UPDATE "%s" SET n = 1 WHERE pk = 'b'`)), "Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional condition"},
	} {
		stmts := tc.stmts
		_, err := c.ExecuteTransaction(ctxT(t), &dynamodb.ExecuteTransactionInput{TransactStatements: stmts})
		wantAPIError(t, err, "ValidationException", tc.msg)
	}
}
