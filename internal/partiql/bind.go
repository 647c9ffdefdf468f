package partiql

import (
	"strconv"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// CheckParams checks a request's Parameters against the statement's ?
// placeholders. Too few is DynamoDB's error; extra values are ignored, as
// DynamoDB ignores them.
func CheckParams(st *Statement, n int) error {
	if n < st.Params {
		return ddberr.Validation("Number of parameters in request and statement don't match.")
	}
	return nil
}

// errNotLiteral marks an expression that is not a value (a path, a
// condition, a call); callers turn it into the message of their context.
var errNotLiteral = ddberr.Validation("Unsupported operation: expression is not a value")

// Value evaluates a literal expression — a scalar, a ? parameter, a [list],
// a {map} or a <<bag>> — to an AttributeValue. Number literals are checked
// and canonicalised as DynamoDB stores them; errors name where in the value
// they are ("... under root.a[1]").
func Value(x Expr, params []item.AttributeValue) (item.AttributeValue, error) {
	return valueAt(x, params, "root")
}

func valueAt(x Expr, params []item.AttributeValue, at string) (item.AttributeValue, error) {
	switch x := x.(type) {
	case *Lit:
		if x.V.Type != item.TypeN {
			return x.V, nil
		}
		n, err := item.ParseNumber(x.V.S)
		if err != nil {
			return item.AttributeValue{}, ddberr.Validation(ddberr.As(err).Message + " under " + at)
		}
		return item.AttributeValue{Type: item.TypeN, S: n}, nil
	case *Param:
		if x.N >= len(params) {
			return item.AttributeValue{}, ddberr.Validation("Number of parameters in request and statement don't match.")
		}
		return params[x.N], nil
	case *ListExpr:
		l := make([]item.AttributeValue, len(x.Elems))
		for i, e := range x.Elems {
			v, err := valueAt(e, params, at+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return v, err
			}
			l[i] = v
		}
		return item.AttributeValue{Type: item.TypeL, L: l}, nil
	case *MapExpr:
		return mapValue(x, params, at)
	case *BagExpr:
		return bagValue(x, params, at)
	case *Missing:
		return item.AttributeValue{}, ddberr.Validation("MISSING must be compared using IS operator")
	}
	return item.AttributeValue{}, errNotLiteral
}

func mapValue(x *MapExpr, params []item.AttributeValue, at string) (item.AttributeValue, error) {
	m := make(map[string]item.AttributeValue, len(x.Keys))
	for i, k := range x.Keys {
		if _, dup := m[k]; dup {
			return item.AttributeValue{}, ddberr.Validation("Duplicate keys in tuple. Key: " + k + " under " + at)
		}
		v, err := valueAt(x.Vals[i], params, at+"."+k)
		if err != nil {
			return v, err
		}
		m[k] = v
	}
	return item.AttributeValue{Type: item.TypeM, M: m}, nil
}

// bagValue turns <<...>> into a string, number or binary set.
func bagValue(x *BagExpr, params []item.AttributeValue, at string) (item.AttributeValue, error) {
	if len(x.Elems) == 0 {
		return item.AttributeValue{}, ddberr.Validation("Empty bags are not supported")
	}
	var out item.AttributeValue
	for i, e := range x.Elems {
		v, err := valueAt(e, params, at+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return v, err
		}
		want := map[item.Type]item.Type{item.TypeS: item.TypeSS, item.TypeN: item.TypeNS, item.TypeB: item.TypeBS}[v.Type]
		if want == 0 || i > 0 && want != out.Type {
			return item.AttributeValue{}, ddberr.Validation("Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags")
		}
		out.Type = want
		if v.Type == item.TypeB {
			out.BS = append(out.BS, v.B)
		} else {
			out.SS = append(out.SS, v.S)
		}
	}
	return out, nil
}

// isValue reports whether x is a literal expression Value can evaluate.
func isValue(x Expr) bool {
	switch x.(type) {
	case *Lit, *Param, *ListExpr, *MapExpr, *BagExpr:
		return true
	}
	return false
}
