package partiql

import (
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// splitKey takes the equalities on every key attribute out of a write's
// WHERE; the rest are the write's condition.
func splitKey(st *Statement, sch Schema, params []item.AttributeValue) (item.Item, []Expr, error) {
	key := item.Item{}
	var rest []Expr
	for _, c := range conjuncts(st.Where, nil) {
		taken := false
		for _, k := range []string{sch.Hash, sch.Range} {
			if k == "" {
				continue
			}
			v, ok, err := keyEquality(c, k, params)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				if _, dup := key[k]; dup {
					return nil, nil, ddberr.Validation("Multiple conditions on same key " + k + ". Only single item Update/Insert/Delete are supported")
				}
				key[k] = v
				taken = true
				break
			}
		}
		if !taken {
			rest = append(rest, c)
		}
	}
	if _, ok := key[sch.Hash]; !ok {
		return nil, nil, errNoKeyEquality()
	}
	if _, ok := key[sch.Range]; sch.Range != "" && !ok {
		return nil, nil, errNoKeyEquality()
	}
	return key, rest, nil
}

// planWrite plans UPDATE, DELETE and EXISTS: the WHERE names the full key;
// its other conditions become the write's condition.
//
// UPDATE requires the item to exist (it is not an upsert): its condition
// starts with attribute_exists of the partition key. DELETE of an absent
// item is a no-op even when the other conditions could not hold.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html
func planWrite(st *Statement, sch Schema, r *renderer, pl *Plan) error {
	key, rest, err := splitKey(st, sch, r.params)
	if err != nil {
		return err
	}
	pl.Key = key
	pl.ReturnValues = string(st.Returning)
	cond, err := andAll(r, rest)
	if err != nil {
		return err
	}
	exists := func() string { return "attribute_exists(" + r.name(sch.Hash) + ")" }
	switch st.Kind {
	case Update:
		pl.Operation = OpUpdateItem
		pl.Condition = joinAnd(exists(), cond)
		pl.Update, err = renderUpdate(st.Actions, r)
		return err
	case Delete:
		pl.Operation = OpDeleteItem
		if cond != "" {
			pl.Condition = "attribute_not_exists(" + r.name(sch.Hash) + ") OR (" + cond + ")"
		}
	case Exists:
		if cond == "" {
			return ddberr.Validation("EXISTS() must contain a single item read with additional condition")
		}
		pl.Operation = OpConditionOnly
		pl.Condition = joinAnd(exists(), cond)
	}
	return nil
}

func joinAnd(a, b string) string {
	if b == "" {
		return a
	}
	return a + " AND (" + b + ")"
}

// renderUpdate renders UPDATE's actions as an UpdateExpression: SET
// assignments (values, paths, + and -, list_append), SET x = set_add(x, <<..>>)
// as ADD and set_delete as DELETE, and REMOVE.
func renderUpdate(actions []Action, r *renderer) (string, error) {
	var sets, removes, adds, deletes []string
	for _, a := range actions {
		p := r.path(a.Path)
		if a.Value == nil {
			removes = append(removes, p)
			continue
		}
		if c, ok := a.Value.(*Call); ok && (c.Name == "set_add" || c.Name == "set_delete") {
			v, err := setOperand(c, a.Path, r)
			if err != nil {
				return "", err
			}
			if c.Name == "set_add" {
				adds = append(adds, p+" "+v)
			} else {
				deletes = append(deletes, p+" "+v)
			}
			continue
		}
		v, err := updateValue(a.Value, r)
		if err != nil {
			return "", err
		}
		sets = append(sets, p+" = "+v)
	}
	var parts []string
	for _, c := range []struct {
		kw   string
		list []string
	}{{"SET", sets}, {"REMOVE", removes}, {"ADD", adds}, {"DELETE", deletes}} {
		if len(c.list) > 0 {
			parts = append(parts, c.kw+" "+strings.Join(c.list, ", "))
		}
	}
	return strings.Join(parts, " "), nil
}

// setOperand checks set_add/set_delete(target, <<...>>) and renders the set.
func setOperand(c *Call, target Path, r *renderer) (string, error) {
	fn := strings.ToUpper(strings.TrimPrefix(c.Name, "set_"))
	if len(c.Args) != 2 {
		return "", ddberr.Validation("SET_" + fn + " must have exactly two arguments")
	}
	if p, ok := c.Args[0].(*PathExpr); !ok || p.Path.String() != target.String() {
		return "", ddberr.Validation("The first argument to SET_" + fn + " must equal the assignment value at " + c.At)
	}
	if !isValue(c.Args[1]) {
		return "", ddberr.Validation("The second argument to SET_" + fn + " must be a value with type SET")
	}
	v, err := Value(c.Args[1], r.params)
	if err != nil {
		return "", err
	}
	if v.Type != item.TypeSS && v.Type != item.TypeNS && v.Type != item.TypeBS {
		return "", ddberr.Validation("The second argument to SET_" + fn + " must be a value with type SET")
	}
	return r.value(v), nil
}

// updateValue renders the right side of a SET.
func updateValue(x Expr, r *renderer) (string, error) {
	switch x := x.(type) {
	case *Binary:
		if x.Op != OpAdd && x.Op != OpSub {
			return "", ddberr.Validation("Unsupported operator in Update Expression. Operator: " + x.Op.String())
		}
		l, err := updateValue(x.L, r)
		if err != nil {
			return "", err
		}
		rr, err := updateValue(x.R, r)
		if err != nil {
			return "", err
		}
		return l + " " + x.Op.String() + " " + rr, nil
	case *Call:
		if x.Name != "list_append" {
			return "", ddberr.Validation("Unsupported operator in Update Expression. Operator: " + x.Name)
		}
		if len(x.Args) != 2 {
			return "", ddberr.Validation("Incorrect number of arguments for function: list_append")
		}
		for _, arg := range x.Args {
			// A function's operands are paths, values or functions, never
			// arithmetic (the UpdateExpression grammar).
			if b, ok := arg.(*Binary); ok {
				return "", ddberr.Validation("Unsupported operator in Update Expression. Operator: " + b.Op.String())
			}
		}
		a, err := updateValue(x.Args[0], r)
		if err != nil {
			return "", err
		}
		b, err := updateValue(x.Args[1], r)
		if err != nil {
			return "", err
		}
		return "list_append(" + a + ", " + b + ")", nil
	case *PathExpr:
		return r.path(x.Path), nil
	}
	return r.valueOperand(x, "Unsupported operator in Update Expression. Operator: ")
}
