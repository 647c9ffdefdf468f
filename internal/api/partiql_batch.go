package api

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/partiql"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// BatchExecuteStatement: up to 25 statements, all reads (each naming a full
// primary key) or all writes, each run on its own; a statement's failure is
// an Error in its entry of Responses, not a failure of the request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.batching.html

const maxBatchStatements = 25

type batchExecuteStatementInput struct {
	Statements             []batchStatementRequest
	ReturnConsumedCapacity *string
}

var batchExecuteStatementRules = rules[batchExecuteStatementInput]{
	statementsRule("statements", maxBatchStatements,
		func(in *batchExecuteStatementInput) []batchStatementRequest { return in.Statements },
		func(s *batchStatementRequest) *parameterizedStatement { return &s.parameterizedStatement }),
	enumRule("returnConsumedCapacity", func(in *batchExecuteStatementInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
}

// batchStatementError is BatchStatementError: Code is the error's name
// without "Exception" ("ValidationError" for a ValidationException).
type batchStatementError struct {
	Code    string
	Message string `json:"Message,omitempty"`
}

type batchStatementResponse struct {
	TableName string               `json:"TableName,omitempty"`
	Item      json.RawMessage      `json:"Item,omitempty"`
	Error     *batchStatementError `json:"Error,omitempty"`
}

type batchExecuteStatementOutput struct {
	Responses        []batchStatementResponse
	ConsumedCapacity []json.RawMessage `json:"ConsumedCapacity,omitempty"`
}

func (e *Engine) batchExecuteStatement(ctx context.Context, r *protocol.Request) (any, error) {
	in, err := decodeChecked(r.Body, batchExecuteStatementRules)
	if err != nil {
		return nil, err
	}
	stmts := make([]batchStatement, len(in.Statements))
	reads, writes := 0, 0
	for i, s := range in.Statements {
		st, err := parseStatement(*s.Statement, s.Parameters)
		stmts[i] = batchStatement{st: st, err: err}
		switch {
		case err != nil, st.Kind == partiql.Exists: // refused on its own
		case st.Kind == partiql.Select:
			reads++
		default:
			writes++
		}
	}
	// DynamoDB Local's PARTIQL_BATCH_MIXED_READ_WRITE.
	if reads > 0 && writes > 0 {
		return nil, ddberr.Validation("Read and write requests together in the same batch is not supported.")
	}
	if err := e.planBatch(ctx, r, in.Statements, stmts); err != nil {
		return nil, err
	}
	out := &batchExecuteStatementOutput{Responses: make([]batchStatementResponse, len(in.Statements))}
	for i, s := range in.Statements {
		resp, cc, err := e.runBatchStatement(ctx, r, stmts[i], s, in.ReturnConsumedCapacity)
		if err != nil {
			return nil, err
		}
		out.Responses[i] = resp
		if cc != nil {
			out.ConsumedCapacity = append(out.ConsumedCapacity, cc)
		}
	}
	out.ConsumedCapacity = mergeCapacity(out.ConsumedCapacity)
	return out, nil
}

// batchStatement is a statement of a batch as parsed and planned; err is
// its own failure, reported in its entry of Responses.
type batchStatement struct {
	st  *partiql.Statement
	pl  *partiql.Plan
	err error
}

// planBatch plans every parsed statement of a batch, then refuses the whole
// batch when two statements name one item, as BatchGetItem and
// BatchWriteItem do: DynamoDB runs a batch's statements as one of those.
// A failure of a statement's own (a missing table, a WHERE without the
// full key) stays in its entry; a server error fails the request.
func (e *Engine) planBatch(ctx context.Context, r *protocol.Request, reqs []batchStatementRequest, stmts []batchStatement) error {
	seen := map[string]bool{}
	for i := range stmts {
		b := &stmts[i]
		if b.err != nil {
			continue
		}
		if b.st.Kind == partiql.Exists {
			b.err = ddberr.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
			continue
		}
		t, err := e.lookup(ctx, e.account(r), b.st.Table, lookupData)
		if err == nil {
			b.pl, err = partiql.PlanStatement(b.st, reqs[i].Parameters, schemaForPlan(t))
		}
		if err != nil {
			if de := ddberr.As(err); de == nil || de.Status >= 500 {
				return err
			}
			b.err = err
			continue
		}
		if b.st.Kind == partiql.Select && (b.pl.Operation != partiql.OpGetItem || b.pl.Index != "") {
			b.err = ddberr.Validation("Select statements within BatchExecuteStatement must specify the primary key in the where clause.")
			continue
		}
		target := batchTarget(b.pl, t)
		if seen[target] {
			return ddberr.Validation("Provided list of item keys contains duplicates")
		}
		seen[target] = true
	}
	return nil
}

// batchTarget identifies the item a statement's plan reads or writes: its
// table and primary key.
func batchTarget(pl *partiql.Plan, t *storage.Table) string {
	key := pl.Key
	if pl.Operation == partiql.OpPutItem {
		key = item.Item{}
		for _, el := range t.KeySchema {
			if v, ok := pl.Item[el.AttributeName]; ok {
				key[el.AttributeName] = v
			}
		}
	}
	return strconv.Quote(pl.Table) + keyString(key)
}

// runBatchStatement runs one planned statement of a batch. Client errors
// become the entry's Error; other errors fail the request. A statement that
// ran and failed (ConditionalCheckFailed, DuplicateItem, ResourceNotFound)
// keeps its TableName, one refused as invalid (ValidationError) has none.
// ReturnValuesOnConditionCheckFailure is accepted and has no effect: DynamoDB
// returns no Item in a batch entry whatever it says. A statement whose
// condition failed is still charged (failedWriteCapacity).
func (e *Engine) runBatchStatement(ctx context.Context, r *protocol.Request, b batchStatement, s batchStatementRequest, capacity *string) (batchStatementResponse, json.RawMessage, error) {
	var resp batchStatementResponse
	if b.err != nil {
		return statementFailure(resp, b.st, b.err)
	}
	res, err := e.runPlan(ctx, r, b.pl, runOptions{consistent: s.ConsistentRead, capacity: capacity})
	if err != nil {
		resp, _, err := statementFailure(resp, b.st, err)
		return resp, failedWriteCapacity(b.pl, resp.Error, capacity), err
	}
	resp.TableName, resp.Item = b.st.Table, res.single
	return resp, res.consumed, nil
}

// statementFailure puts a client error into a batch entry, with the
// statement's table unless the error is a ValidationError; a server error
// (not a DynamoDB client error) is returned instead.
func statementFailure(resp batchStatementResponse, st *partiql.Statement, err error) (batchStatementResponse, json.RawMessage, error) {
	de := ddberr.As(err)
	if de == nil || de.Status >= 500 {
		return resp, nil, err
	}
	code := strings.TrimSuffix(de.Name(), "Exception")
	if code == "Validation" {
		code = "ValidationError"
	}
	resp.Error = &batchStatementError{Code: code, Message: de.Message}
	if code != "ValidationError" && st != nil {
		resp.TableName = st.Table
	}
	return resp, nil, nil
}

// failedWriteCapacity is what a batch write statement whose condition
// failed (ConditionalCheckFailed, DuplicateItem) is charged: the write it
// attempted, one unit per KB of an INSERT's item and one unit otherwise, on
// its table's total and on no Table or index arm (as recorded against
// DynamoDB in eu-west-2 by https://github.com/nubo-db/dynoxide's
// tests/batch_statement_member_fields.rs, B10). nil when nothing is charged.
func failedWriteCapacity(pl *partiql.Plan, failure *batchStatementError, capacity *string) json.RawMessage {
	if capacityMode(capacity) == capNone || pl == nil || failure == nil || failure.Code != "ConditionalCheckFailed" && failure.Code != "DuplicateItem" {
		return nil
	}
	units := 1.0
	if pl.Operation == partiql.OpPutItem {
		units = writeUnits(item.Size(pl.Item))
	}
	b, _ := json.Marshal(map[string]any{"TableName": pl.Table, "CapacityUnits": units})
	return b
}

// mergeCapacity sums the ConsumedCapacity of statements on the same table.
func mergeCapacity(list []json.RawMessage) []json.RawMessage {
	if len(list) < 2 {
		return list
	}
	type entry struct {
		order int
		m     map[string]any
	}
	byTable := map[string]*entry{}
	var out []json.RawMessage
	for _, raw := range list {
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		name, _ := m["TableName"].(string)
		if e, ok := byTable[name]; ok {
			addCapacity(e.m, m)
			continue
		}
		byTable[name] = &entry{order: len(byTable), m: m}
	}
	ordered := make([]map[string]any, len(byTable))
	for _, e := range byTable {
		ordered[e.order] = e.m
	}
	for _, m := range ordered {
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	return out
}

// addCapacity adds the numeric members of src (and of its nested Table
// member) into dst.
func addCapacity(dst, src map[string]any) {
	for k, v := range src {
		switch v := v.(type) {
		case float64:
			d, _ := dst[k].(float64)
			dst[k] = d + v
		case map[string]any:
			if d, ok := dst[k].(map[string]any); ok {
				addCapacity(d, v)
			} else {
				dst[k] = v
			}
		}
	}
}
