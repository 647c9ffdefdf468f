package partiql

import (
	"sort"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/item"
)

// render prints a statement in a canonical PartiQL-like form, for tests.
func render(st *Statement) string {
	var b strings.Builder
	if st.Kind == Exists {
		b.WriteString("EXISTS ")
	}
	switch st.Kind {
	case Select, Exists:
		b.WriteString("SELECT ")
		if st.Star {
			b.WriteString("*")
		}
		for i, p := range st.Projection {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(p.String())
		}
		b.WriteString(" FROM " + table(st))
	case Insert:
		b.WriteString("INSERT INTO " + table(st) + " VALUE " + exprText(st.Value))
	case Update:
		b.WriteString("UPDATE " + table(st))
		for _, a := range st.Actions {
			if a.Value == nil {
				b.WriteString(" REMOVE " + a.Path.String())
			} else {
				b.WriteString(" SET " + a.Path.String() + " = " + exprText(a.Value))
			}
		}
	case Delete:
		b.WriteString("DELETE FROM " + table(st))
	}
	if st.Where != nil {
		b.WriteString(" WHERE " + exprText(st.Where))
	}
	for i, o := range st.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(",")
		}
		b.WriteString(o.Name)
		if o.Desc {
			b.WriteString(" DESC")
		}
	}
	if st.Returning != "" {
		b.WriteString(" RETURNING " + string(st.Returning))
	}
	return b.String()
}

func table(st *Statement) string {
	if st.Index != "" {
		return st.Table + "." + st.Index
	}
	return st.Table
}

func list(xs []Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = exprText(x)
	}
	return strings.Join(parts, ",")
}

func exprText(x Expr) string {
	switch x := x.(type) {
	case *PathExpr:
		return x.Path.String()
	case *Lit:
		switch x.V.Type {
		case item.TypeS:
			return "'" + x.V.S + "'"
		case item.TypeN:
			return x.V.S
		case item.TypeBOOL:
			if x.V.Bool {
				return "true"
			}
			return "false"
		}
		return "NULL"
	case *Param:
		return "?" + strconv.Itoa(x.N)
	case *Missing:
		return "MISSING"
	case *ListExpr:
		return "[" + list(x.Elems) + "]"
	case *BagExpr:
		return "<<" + list(x.Elems) + ">>"
	case *MapExpr:
		parts := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			parts[i] = "'" + k + "':" + exprText(x.Vals[i])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *Binary:
		return "(" + exprText(x.L) + " " + x.Op.String() + " " + exprText(x.R) + ")"
	case *Not:
		return "NOT " + exprText(x.X)
	case *Between:
		return "(" + exprText(x.X) + " BETWEEN " + exprText(x.Lo) + " AND " + exprText(x.Hi) + ")"
	case *In:
		return "(" + exprText(x.X) + " IN [" + list(x.List) + "])"
	case *Is:
		not := ""
		if x.Not {
			not = "NOT "
		}
		return "(" + exprText(x.X) + " IS " + not + x.Type + ")"
	case *Call:
		return x.Name + "(" + list(x.Args) + ")"
	}
	return "?"
}

// sortedNames renders a plan's names and values deterministically.
func namesText(pl *Plan) string {
	var parts []string
	for k, v := range pl.Names {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	var vals []string
	for k, v := range pl.Values {
		b, _ := v.MarshalJSON()
		vals = append(vals, k+"="+string(b))
	}
	sort.Strings(vals)
	return strings.Join(parts, " ") + " | " + strings.Join(vals, " ")
}
