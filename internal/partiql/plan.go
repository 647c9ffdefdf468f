package partiql

import (
	"slices"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// KeyNames are the key attribute names of a table or index; Range is empty
// for a partition key alone. MoreHash and MoreRange hold the further
// attributes of a multi-attribute partition or sort key (global secondary
// indexes), in key schema order.
type KeyNames struct {
	Hash, Range         string
	MoreHash, MoreRange []string
}

// multi reports whether the key has several partition or sort key attributes.
func (k KeyNames) multi() bool { return len(k.MoreHash) > 0 || len(k.MoreRange) > 0 }

// isKey reports whether name is one of the key's attributes.
func (k KeyNames) isKey(name string) bool {
	if name == "" {
		return false
	}
	return name == k.Hash || name == k.Range || slices.Contains(k.MoreHash, name) || slices.Contains(k.MoreRange, name)
}

// Schema is what the planner needs of a table: its key and its indexes' keys.
type Schema struct {
	KeyNames
	Indexes map[string]KeyNames
	// Types are the table's AttributeDefinitions: key attribute name to
	// "S", "N" or "B".
	Types map[string]string
	// Projections are the indexes' projections, by index name.
	Projections map[string]IndexProjection
}

// The engine operations a statement becomes.
const (
	OpGetItem       = "GetItem"
	OpQuery         = "Query"
	OpScan          = "Scan"
	OpPutItem       = "PutItem"
	OpUpdateItem    = "UpdateItem"
	OpDeleteItem    = "DeleteItem"
	OpConditionOnly = "ConditionCheck"
)

// Plan is a statement as one of the engine's operations, with its
// expressions in DynamoDB's expression language. Empty strings are absent
// members.
type Plan struct {
	Operation string
	Table     string
	Index     string
	Key       item.Item // GetItem, UpdateItem, DeleteItem, ConditionCheck
	Item      item.Item // PutItem

	KeyCondition, Filter, Condition, Update, Projection string

	Names  map[string]string
	Values map[string]item.AttributeValue

	ReturnValues string // UpdateItem and DeleteItem
	Descending   bool   // Query: ORDER BY ... DESC
	// Insert marks a PutItem from INSERT: a failed condition means the key
	// exists (DuplicateItemException).
	Insert bool
}

// PlanStatement turns a parsed statement into an engine operation on a
// table with schema sch. params are the request's Parameters (already
// checked with CheckParams).
func PlanStatement(st *Statement, params []item.AttributeValue, sch Schema) (*Plan, error) {
	r := newRenderer(params)
	pl := &Plan{Table: st.Table}
	var err error
	switch st.Kind {
	case Select:
		err = planSelect(st, sch, r, pl)
	case Insert:
		err = planInsert(st, sch, r, pl)
	case Update, Delete:
		err = planWrite(st, sch, r, pl)
	case Exists:
		if st.Index != "" {
			return nil, ddberr.Validation("FROM clause may only contain a single table name in data manipulation statements")
		}
		err = planWrite(st, sch, r, pl)
	}
	if err != nil {
		return nil, err
	}
	if len(r.names) > 0 {
		pl.Names = r.names
	}
	if len(r.values) > 0 {
		pl.Values = r.values
	}
	return pl, nil
}

// conjuncts flattens the top-level ANDs of a condition.
func conjuncts(x Expr, out []Expr) []Expr {
	if b, ok := x.(*Binary); ok && b.Op == OpAnd {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	if x == nil {
		return out
	}
	return append(out, x)
}

// keyEquality returns the value of a conjunct "name = value" (either way
// round) on the top-level attribute name.
func keyEquality(x Expr, name string, params []item.AttributeValue) (item.AttributeValue, bool, error) {
	b, ok := x.(*Binary)
	if !ok || b.Op != OpEq {
		return item.AttributeValue{}, false, nil
	}
	l, rr := b.L, b.R
	if isValue(l) {
		l, rr = rr, l
	}
	if !isAttr(l, name) || !isValue(rr) {
		return item.AttributeValue{}, false, nil
	}
	v, err := Value(rr, params)
	return v, err == nil, err
}

// isAttr reports whether x is the top-level attribute name.
func isAttr(x Expr, name string) bool {
	p, ok := x.(*PathExpr)
	return ok && len(p.Path) == 1 && !p.Path[0].IsIndex && p.Path[0].Name == name
}

// mentions reports whether x refers to the top-level attribute name.
func mentions(x Expr, name string) bool {
	switch x := x.(type) {
	case *PathExpr:
		return x.Path[0].Name == name
	case *Binary:
		return mentions(x.L, name) || mentions(x.R, name)
	case *Not:
		return mentions(x.X, name)
	case *Between:
		return mentions(x.X, name) || mentions(x.Lo, name) || mentions(x.Hi, name)
	case *In:
		return mentions(x.X, name)
	case *Is:
		return mentions(x.X, name)
	case *Call:
		for _, a := range x.Args {
			if mentions(a, name) {
				return true
			}
		}
	}
	return false
}

// andAll renders conditions joined by AND; "" when there are none.
func andAll(r *renderer, xs []Expr) (string, error) {
	parts := make([]string, 0, len(xs))
	for _, x := range xs {
		s, err := r.cond(x)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " AND "), nil
}

// planInsert: INSERT is a PutItem conditioned on the key being absent.
func planInsert(st *Statement, sch Schema, r *renderer, pl *Plan) error {
	v, err := Value(st.Value, r.params)
	if err != nil {
		return err
	}
	for _, k := range []string{sch.Hash, sch.Range} {
		if k == "" {
			continue
		}
		kv, ok := v.M[k]
		if !ok {
			return ddberr.Validation("Key attribute should be present in the item: Key " + k)
		}
		if want := sch.Types[k]; want != "" && kv.Type.String() != want {
			return ddberr.Validation("Key attribute's data type should match its data type in table's schema: Key " + k)
		}
	}
	pl.Operation, pl.Item, pl.Insert = OpPutItem, v.M, true
	pl.Condition = "attribute_not_exists(" + r.name(sch.Hash) + ")"
	return nil
}
