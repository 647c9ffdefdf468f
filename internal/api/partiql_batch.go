package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/partiql"
	"github.com/extenddb/extenddb/internal/protocol"
)

// BatchExecuteStatement: up to 25 statements, all reads (each naming a full
// primary key) or all writes, each run on its own; a statement's failure is
// an Error in its entry of Responses, not a failure of the request.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.multiplestatements.batching.html

const maxBatchStatements = 25

type batchStatementRequest struct {
	Statement                           *string               `json:"Statement"`
	Parameters                          []item.AttributeValue `json:"Parameters"`
	ConsistentRead                      *bool                 `json:"ConsistentRead"`
	ReturnValuesOnConditionCheckFailure *string               `json:"ReturnValuesOnConditionCheckFailure"`
}

type batchExecuteStatementInput struct {
	Statements             []batchStatementRequest `json:"Statements"`
	ReturnConsumedCapacity *string                 `json:"ReturnConsumedCapacity"`
}

// batchStatementError is BatchStatementError: Code is the error's name
// without "Exception" ("ValidationError" for a ValidationException).
type batchStatementError struct {
	Code    string    `json:"Code"`
	Message string    `json:"Message,omitempty"`
	Item    item.Item `json:"Item,omitempty"`
}

type batchStatementResponse struct {
	TableName string               `json:"TableName,omitempty"`
	Item      json.RawMessage      `json:"Item,omitempty"`
	Error     *batchStatementError `json:"Error,omitempty"`
}

type batchExecuteStatementOutput struct {
	Responses        []batchStatementResponse `json:"Responses"`
	ConsumedCapacity []json.RawMessage        `json:"ConsumedCapacity,omitempty"`
}

func batchExecuteStatement(e *Engine, ctx context.Context, r *protocol.Request) (any, error) {
	var in batchExecuteStatementInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraints
	if c.notNull(in.Statements != nil, "statements") {
		c.listLen(len(in.Statements), true, "statements", 1, maxBatchStatements, func() string { return "[...]" })
	}
	for i, s := range in.Statements {
		statementConstraints(&c, s.Statement, "statements."+itoa(i+1)+".member.statement")
		c.enum(s.ReturnValuesOnConditionCheckFailure, "statements."+itoa(i+1)+".member.returnValuesOnConditionCheckFailure", enumReturnValuesOnFailure...)
	}
	c.enum(in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnConsumedCapacity...)
	if err := c.err(); err != nil {
		return nil, err
	}
	parsed := make([]*partiql.Statement, len(in.Statements))
	errs := make([]error, len(in.Statements))
	reads, writes := 0, 0
	for i, s := range in.Statements {
		parsed[i], errs[i] = parseStatement(*s.Statement, s.Parameters)
		switch {
		case errs[i] != nil:
		case parsed[i].Kind == partiql.Select:
			reads++
		default:
			writes++
		}
	}
	if reads > 0 && writes > 0 {
		return nil, ddberr.Validation("Unsupported operation: A batch must contain either only read statements or only write statements")
	}
	out := &batchExecuteStatementOutput{Responses: make([]batchStatementResponse, len(in.Statements))}
	for i, s := range in.Statements {
		resp, cc, err := e.batchStatement(ctx, r, parsed[i], errs[i], s, in.ReturnConsumedCapacity)
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

// batchStatement runs one statement of a batch. Client errors become the
// entry's Error (with no TableName, as DynamoDB answers); other errors fail
// the request.
func (e *Engine) batchStatement(ctx context.Context, r *protocol.Request, st *partiql.Statement, perr error, s batchStatementRequest, capacity *string) (batchStatementResponse, json.RawMessage, error) {
	var resp batchStatementResponse
	if perr != nil {
		return statementFailure(resp, perr)
	}
	if st.Kind == partiql.Exists {
		return statementFailure(resp, ddberr.Validation("EXISTS can only be used in ExecuteTransaction write requests."))
	}
	pl, err := e.planStatement(ctx, r, st, s.Parameters)
	if err != nil {
		return statementFailure(resp, err)
	}
	if st.Kind == partiql.Select && (pl.Operation != partiql.OpGetItem || pl.Index != "") {
		return statementFailure(resp, ddberr.Validation("Select statements within BatchExecuteStatement must specify the primary key in the where clause."))
	}
	res, err := e.runPlan(ctx, r, pl, runOptions{consistent: s.ConsistentRead, capacity: capacity, onFailure: s.ReturnValuesOnConditionCheckFailure})
	if err != nil {
		return statementFailure(resp, err)
	}
	resp.TableName, resp.Item = st.Table, res.single
	return resp, res.consumed, nil
}

// statementFailure puts a client error into a batch entry; a server error
// (not a DynamoDB client error) is returned instead.
func statementFailure(resp batchStatementResponse, err error) (batchStatementResponse, json.RawMessage, error) {
	de := ddberr.As(err)
	if de == nil || de.Status >= 500 {
		return resp, nil, err
	}
	code := strings.TrimSuffix(de.Name(), "Exception")
	if code == "Validation" {
		code = "ValidationError"
	}
	resp.Error = &batchStatementError{Code: code, Message: de.Message}
	if it, ok := de.Extra["Item"].(item.Item); ok {
		resp.Error.Item = it
	}
	return resp, nil, nil
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
			}
		}
	}
}
