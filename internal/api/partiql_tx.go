package api

import (
	"context"
	"encoding/json"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/partiql"
	"github.com/extenddb/extenddb/internal/protocol"
)

// ExecuteTransaction: up to 100 statements, all reads (SELECTs naming a
// full primary key) run as TransactGetItems, or all writes (INSERT, UPDATE,
// DELETE and EXISTS condition checks) run as TransactWriteItems, with its
// all-or-nothing semantics, ClientRequestToken idempotency and
// CancellationReasons.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.transactions.html

type executeTransactionInput struct {
	TransactStatements     []parameterizedStatement
	ClientRequestToken     *string
	ReturnConsumedCapacity *string
}

var executeTransactionRules = rules[executeTransactionInput]{
	statementsRule("transactStatements", maxTransactItems,
		func(in *executeTransactionInput) []parameterizedStatement { return in.TransactStatements },
		func(s *parameterizedStatement) *parameterizedStatement { return s }),
	lengthRule("clientRequestToken", func(in *executeTransactionInput) *string { return in.ClientRequestToken }, 1, maxClientTokenChars, false),
	enumRule("returnConsumedCapacity", func(in *executeTransactionInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
}

type itemResponse struct {
	Item json.RawMessage `json:"Item,omitempty"`
}

type executeTransactionOutput struct {
	Responses        []itemResponse  `json:"Responses,omitempty"`
	ConsumedCapacity json.RawMessage `json:"ConsumedCapacity,omitempty"`
}

func (e *Engine) executeTransaction(ctx context.Context, r *protocol.Request) (any, error) {
	in, err := decodeChecked(r.Body, executeTransactionRules)
	if err != nil {
		return nil, err
	}
	plans, err := e.planTransaction(ctx, r, in.TransactStatements)
	if err != nil {
		return nil, err
	}
	if plans[0].Operation == partiql.OpGetItem {
		return e.runTxGet(ctx, r, plans, in.ReturnConsumedCapacity)
	}
	return e.runTxWrite(ctx, r, plans, in)
}

// inStatement wraps a statement's error as DynamoDB does for transactions:
// "Validation failed in TransactStatements[i]: <message>". A missing table
// stays ResourceNotFoundException.
func inStatement(i int, err error) error {
	de := ddberr.As(err)
	if de.Name() == "ResourceNotFoundException" || de.Status >= 500 {
		return err
	}
	return ddberr.Validation("Validation failed in TransactStatements[" + itoa(i) + "]: " + de.Message)
}

// planTransaction parses every statement and checks the rules of
// transactions (no RETURNING, reads on tables only, reads and writes not
// mixed) before it plans any, as DynamoDB does; then it plans each, reads
// needing the full primary key.
func (e *Engine) planTransaction(ctx context.Context, r *protocol.Request, stmts []parameterizedStatement) ([]*partiql.Plan, error) {
	parsed := make([]*partiql.Statement, len(stmts))
	for i, s := range stmts {
		st, err := parseStatement(*s.Statement, s.Parameters)
		if err != nil {
			return nil, inStatement(i, err)
		}
		if st.Returning != "" {
			return nil, inStatement(i, ddberr.Validation("RETURNING clause is not supported in ExecuteTransaction."))
		}
		if i > 0 && (st.Kind == partiql.Select) != (parsed[0].Kind == partiql.Select) {
			return nil, ddberr.Validation("ExecuteTransaction API does not support both read and write operations in the same request.")
		}
		if st.Kind == partiql.Select && st.Index != "" {
			return nil, inStatement(i, ddberr.Validation("Reads on indices are not supported within transactions."))
		}
		parsed[i] = st
	}
	plans := make([]*partiql.Plan, len(stmts))
	for i, st := range parsed {
		pl, _, err := e.planStatement(ctx, r, st, stmts[i].Parameters)
		if err != nil {
			return nil, inStatement(i, err)
		}
		if st.Kind == partiql.Select && pl.Operation != partiql.OpGetItem {
			return nil, inStatement(i, ddberr.Validation("Select statements within ExecuteTransaction must specify the primary key in the where clause."))
		}
		plans[i] = pl
	}
	return plans, nil
}

// statementTxMember is a plan as a TransactGetItems or TransactWriteItems
// member; onFailure is the statement's ReturnValuesOnConditionCheckFailure.
func statementTxMember(pl *partiql.Plan, onFailure *string) map[string]any {
	m := nativeRequest(pl, runOptions{onFailure: onFailure})
	delete(m, "ReturnValues")
	action := map[string]string{
		partiql.OpGetItem: "Get", partiql.OpPutItem: "Put", partiql.OpUpdateItem: "Update",
		partiql.OpDeleteItem: "Delete", partiql.OpConditionOnly: "ConditionCheck",
	}[pl.Operation]
	return map[string]any{action: m}
}

func (e *Engine) runTxGet(ctx context.Context, r *protocol.Request, plans []*partiql.Plan, capacity *string) (any, error) {
	items := make([]any, len(plans))
	for i, pl := range plans {
		items[i] = statementTxMember(pl, nil)
	}
	body := map[string]any{"TransactItems": items}
	if capacity != nil {
		body["ReturnConsumedCapacity"] = *capacity
	}
	out, err := e.callNative(ctx, r, "TransactGetItems", body)
	if err != nil {
		return nil, err
	}
	res := &executeTransactionOutput{Responses: make([]itemResponse, len(out.Responses)), ConsumedCapacity: out.ConsumedCapacity}
	for i, rr := range out.Responses {
		res.Responses[i] = itemResponse{Item: rr.Item}
	}
	return res, nil
}

func (e *Engine) runTxWrite(ctx context.Context, r *protocol.Request, plans []*partiql.Plan, in *executeTransactionInput) (any, error) {
	items := make([]any, len(plans))
	for i, pl := range plans {
		items[i] = statementTxMember(pl, in.TransactStatements[i].ReturnValuesOnConditionCheckFailure)
	}
	body := map[string]any{"TransactItems": items}
	if in.ClientRequestToken != nil {
		body["ClientRequestToken"] = *in.ClientRequestToken
	}
	if in.ReturnConsumedCapacity != nil {
		body["ReturnConsumedCapacity"] = *in.ReturnConsumedCapacity
	}
	out, err := e.callNative(ctx, r, "TransactWriteItems", body)
	if err != nil {
		return nil, insertCancellations(plans, err)
	}
	return &executeTransactionOutput{ConsumedCapacity: out.ConsumedCapacity}, nil
}

// insertCancellations rewords the cancellation reason of an INSERT whose key
// exists, as DynamoDB does: a ValidationError "Duplicate primary key exists
// in table" rather than a failed condition.
func insertCancellations(plans []*partiql.Plan, err error) error {
	de := ddberr.As(err)
	reasons, ok := de.Extra["CancellationReasons"].([]cancellationReason)
	if !ok || len(reasons) != len(plans) {
		return err
	}
	changed := false
	for i, pl := range plans {
		if pl.Insert && reasons[i].Code == "ConditionalCheckFailed" {
			reasons[i] = cancellationReason{Code: "ValidationError", Message: ddberr.DuplicateItem().Message}
			changed = true
		}
	}
	if !changed {
		return err
	}
	return transactionCanceled(reasons)
}
