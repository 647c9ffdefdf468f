package api

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/partiql"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// PartiQL operations: ExecuteStatement here, BatchExecuteStatement and
// ExecuteTransaction in partiql_batch.go and partiql_tx.go, the running of
// plans in partiql_run.go. A statement is parsed and planned
// by internal/partiql into one of the engine's own operations (GetItem,
// Query, Scan, PutItem, UpdateItem, DeleteItem, TransactGetItems,
// TransactWriteItems), which then runs through its ordinary handler, so
// PartiQL shares every semantic of the expression API.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html

// maxStatementChars is the length limit of Statement.
const maxStatementChars = 8192

// parameterizedStatement is ParameterizedStatement, the members every
// PartiQL statement has; BatchStatementRequest and ExecuteStatement's
// request add to it.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ParameterizedStatement.html
type parameterizedStatement struct {
	Statement                           *string
	Parameters                          []item.AttributeValue
	ReturnValuesOnConditionCheckFailure *string
}

// batchStatementRequest is BatchStatementRequest, a statement of
// BatchExecuteStatement.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchStatementRequest.html
type batchStatementRequest struct {
	parameterizedStatement
	ConsistentRead *bool
}

// executeStatementInput is ExecuteStatement's request.
type executeStatementInput struct {
	batchStatementRequest
	NextToken              *string
	ReturnConsumedCapacity *string
	Limit                  *int64
}

// executeStatementRules are ExecuteStatement's member constraints, in
// DynamoDB's order.
var executeStatementRules = rules[executeStatementInput]{
	func(in *executeStatementInput, c *constraints) { statementConstraints(c, in.Statement, "statement") },
	func(in *executeStatementInput, c *constraints) {
		c.listLen(len(in.Parameters), in.Parameters != nil, "parameters", 1, 0, func() string { return "[]" })
	},
	minRule("limit", func(in *executeStatementInput) *int64 { return in.Limit }, 1),
	enumRule("returnConsumedCapacity", func(in *executeStatementInput) *string { return in.ReturnConsumedCapacity }, enumReturnConsumedCapacity),
	enumRule("returnValuesOnConditionCheckFailure", func(in *executeStatementInput) *string { return in.ReturnValuesOnConditionCheckFailure }, enumReturnValuesOnFailure),
}

// executeStatementOutput is ExecuteStatement's response, its items as the
// engine's operation encoded them. Items is always present (empty for a
// write without RETURNING).
type executeStatementOutput struct {
	items     json.RawMessage // a JSON array of items (Query, Scan)
	single    json.RawMessage // one item (GetItem, RETURNING); empty if none
	nextToken string
	lastKey   json.RawMessage
	consumed  json.RawMessage
}

// AppendJSON implements protocol.Appender.
func (o *executeStatementOutput) AppendJSON(b []byte) []byte {
	b = append(b, `{"Items":`...)
	switch {
	case len(o.items) > 0:
		b = append(b, o.items...)
	case len(o.single) > 0:
		b = append(append(append(b, '['), o.single...), ']')
	default:
		b = append(b, "[]"...)
	}
	if o.nextToken != "" {
		b = append(append(append(b, `,"NextToken":"`...), o.nextToken...), '"')
	}
	if len(o.lastKey) > 0 {
		b = append(append(b, `,"LastEvaluatedKey":`...), o.lastKey...)
	}
	if len(o.consumed) > 0 {
		b = append(append(b, `,"ConsumedCapacity":`...), o.consumed...)
	}
	return append(b, '}')
}

func (e *Engine) executeStatement(ctx context.Context, r *protocol.Request) (any, error) {
	in, err := decodeChecked(r.Body, executeStatementRules)
	if err != nil {
		return nil, err
	}
	st, err := parseStatement(*in.Statement, in.Parameters)
	if err != nil {
		return nil, err
	}
	if st.Kind == partiql.Exists {
		return nil, ddberr.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	pl, t, err := e.planStatement(ctx, r, st, in.Parameters)
	if err != nil {
		return nil, err
	}
	if err := checkConsistentIndexRead(pl, t, in.ConsistentRead); err != nil {
		return nil, err
	}
	opts := runOptions{consistent: in.ConsistentRead, capacity: in.ReturnConsumedCapacity, onFailure: in.ReturnValuesOnConditionCheckFailure, limit: in.Limit}
	if in.NextToken != nil {
		if opts.startKey, err = decodeNextToken(*in.NextToken); err != nil {
			return nil, err
		}
		if err := checkStartKey(pl, t, opts.startKey); err != nil {
			return nil, err
		}
	}
	return e.runPlan(ctx, r, pl, opts)
}

// statementConstraints checks a Statement member: present, 1..8192 characters.
func statementConstraints(c *constraints, s *string, path string) {
	if c.notNull(s != nil, path) {
		c.lenRange(s, path, 1, maxStatementChars)
	}
}

// statementsRule is the statement list of BatchExecuteStatement or
// ExecuteTransaction at path: present, 1 to max entries, each with its
// Statement and ReturnValuesOnConditionCheckFailure checked.
func statementsRule[T, S any](path string, max int, list func(*T) []S, member func(*S) *parameterizedStatement) rule[T] {
	return func(in *T, c *constraints) {
		stmts := list(in)
		if c.notNull(stmts != nil, path) {
			c.listLen(len(stmts), true, path, 1, max, func() string { return "[...]" })
		}
		for i := range stmts {
			s, p := member(&stmts[i]), path+"."+itoa(i+1)+".member."
			statementConstraints(c, s.Statement, p+"statement")
			c.enum(s.ReturnValuesOnConditionCheckFailure, p+"returnValuesOnConditionCheckFailure", enumReturnValuesOnFailure...)
		}
	}
}

// parseStatement parses a statement and checks its Parameters.
func parseStatement(src string, params []item.AttributeValue) (*partiql.Statement, error) {
	st, err := partiql.ParseCached(src)
	if err != nil {
		return nil, err
	}
	for i := range params {
		if err := item.Validate(params[i]); err != nil {
			return nil, err
		}
	}
	return st, partiql.CheckParams(st, len(params))
}

// planStatement resolves the statement's table and plans it; it returns
// the table too, for the checks of the plan against it.
func (e *Engine) planStatement(ctx context.Context, r *protocol.Request, st *partiql.Statement, params []item.AttributeValue) (*partiql.Plan, *storage.Table, error) {
	t, err := e.lookup(ctx, e.account(r), st.Table, lookupData)
	if err != nil {
		return nil, nil, err
	}
	pl, err := partiql.PlanStatement(st, params, schemaForPlan(t))
	return pl, t, err
}

// checkConsistentIndexRead refuses a strongly consistent read of a global
// secondary index in the words of DynamoDB's PartiQL layer (DynamoDB Local's
// PartiQL message table).
func checkConsistentIndexRead(pl *partiql.Plan, t *storage.Table, consistent *bool) error {
	if pl.Index == "" || consistent == nil || !*consistent {
		return nil
	}
	for _, ix := range t.Indexes {
		if ix.IndexName == pl.Index && ix.Global {
			return ddberr.Validation("Strongly consistent read is not supported on Global Secondary Indexes")
		}
	}
	return nil
}

// schemaForPlan is a table's key and its indexes' keys, as the planner needs them.
func schemaForPlan(t *storage.Table) partiql.Schema {
	keys := func(ks []storage.KeyElement) partiql.KeyNames {
		var k partiql.KeyNames
		for _, el := range ks {
			switch {
			case el.KeyType == "HASH" && k.Hash == "":
				k.Hash = el.AttributeName
			case el.KeyType == "HASH":
				k.MoreHash = append(k.MoreHash, el.AttributeName)
			case k.Range == "":
				k.Range = el.AttributeName
			default:
				k.MoreRange = append(k.MoreRange, el.AttributeName)
			}
		}
		return k
	}
	s := partiql.Schema{KeyNames: keys(t.KeySchema), Indexes: map[string]partiql.KeyNames{}, Types: map[string]string{}, Projections: map[string]partiql.IndexProjection{}}
	for _, d := range t.AttributeDefinitions {
		s.Types[d.AttributeName] = d.AttributeType
	}
	for _, ix := range t.Indexes {
		s.Indexes[ix.IndexName] = keys(ix.KeySchema)
		s.Projections[ix.IndexName] = partiql.IndexProjection{Global: ix.Global, Type: ix.Projection.ProjectionType, NonKey: ix.Projection.NonKeyAttributes}
	}
	return s
}

// nextTokenPrefix marks this server's NextTokens.
const nextTokenPrefix = "xdb1:"

// encodeNextToken wraps a LastEvaluatedKey (JSON) as an opaque NextToken.
func encodeNextToken(k json.RawMessage) string {
	return base64.StdEncoding.EncodeToString(append([]byte(nextTokenPrefix), k...))
}

// decodeNextToken reverses encodeNextToken; anything else is DynamoDB's
// "Invalid NextToken".
func decodeNextToken(s string) (item.Item, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) < len(nextTokenPrefix) || string(b[:len(nextTokenPrefix)]) != nextTokenPrefix {
		return nil, ddberr.Validation("Invalid NextToken")
	}
	var k item.Item
	if err := json.Unmarshal(b[len(nextTokenPrefix):], &k); err != nil || len(k) == 0 {
		return nil, ddberr.Validation("Invalid NextToken")
	}
	return k, nil
}

// checkStartKey refuses, as "Invalid NextToken", a token whose key is not a
// key of what a Query or Scan plan reads: the table's key attributes, and
// the index's when it reads an index, each of its defined type and not
// empty, and nothing else. A token can only have been altered or minted for
// another statement then; DynamoDB's tokens are opaque.
func checkStartKey(pl *partiql.Plan, t *storage.Table, k item.Item) error {
	if pl.Operation != partiql.OpQuery && pl.Operation != partiql.OpScan {
		return nil
	}
	want := map[string]bool{}
	for _, el := range t.KeySchema {
		want[el.AttributeName] = true
	}
	for _, ix := range t.Indexes {
		if ix.IndexName == pl.Index {
			for _, el := range ix.KeySchema {
				want[el.AttributeName] = true
			}
		}
	}
	types := map[string]string{}
	for _, d := range t.AttributeDefinitions {
		types[d.AttributeName] = d.AttributeType
	}
	if len(k) != len(want) {
		return ddberr.Validation("Invalid NextToken")
	}
	for name, v := range k {
		empty := v.Type == item.TypeS && v.S == "" || v.Type == item.TypeB && len(v.B) == 0
		if !want[name] || v.Type.String() != types[name] || empty {
			return ddberr.Validation("Invalid NextToken")
		}
	}
	return nil
}
