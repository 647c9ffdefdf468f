package partiql

import (
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// renderer writes PartiQL conditions and updates in DynamoDB's expression
// language, collecting ExpressionAttributeNames and ExpressionAttributeValues
// (#n0, :v0, ...) so that every name is safe from the reserved words.
type renderer struct {
	params []item.AttributeValue
	names  map[string]string // placeholder -> name
	byName map[string]string // name -> placeholder
	values map[string]item.AttributeValue
}

func newRenderer(params []item.AttributeValue) *renderer {
	return &renderer{params: params, names: map[string]string{}, byName: map[string]string{}, values: map[string]item.AttributeValue{}}
}

func (r *renderer) name(n string) string {
	if ph, ok := r.byName[n]; ok {
		return ph
	}
	ph := "#n" + strconv.Itoa(len(r.names))
	r.names[ph] = n
	r.byName[n] = ph
	return ph
}

func (r *renderer) value(v item.AttributeValue) string {
	ph := ":v" + strconv.Itoa(len(r.values))
	r.values[ph] = v
	return ph
}

func (r *renderer) path(p Path) string {
	var b strings.Builder
	for i, st := range p {
		switch {
		case st.IsIndex:
			b.WriteString("[" + strconv.Itoa(st.Index) + "]")
		case i == 0:
			b.WriteString(r.name(st.Name))
		default:
			b.WriteString("." + r.name(st.Name))
		}
	}
	return b.String()
}

// operand renders a comparison operand: a path, a value or size(path).
func (r *renderer) operand(x Expr) (string, error) {
	switch x := x.(type) {
	case *PathExpr:
		return r.path(x.Path), nil
	case *Call:
		if x.Name == "size" {
			p, err := r.pathArg(x, 0, 1)
			if err != nil {
				return "", err
			}
			return "size(" + p + ")", nil
		}
		return "", errUnsupportedFunction(x.Name)
	case *Missing:
		return "", ddberr.Validation("MISSING must be compared using IS operator")
	}
	return r.valueOperand(x, "Unsupported operation: ")
}

// valueOperand renders x, which must be a value (a literal or a
// parameter), as a placeholder; when it is not, the refusal is the
// message refused followed by a description of x.
func (r *renderer) valueOperand(x Expr, refused string) (string, error) {
	if !isValue(x) {
		return "", ddberr.Validation(refused + describe(x))
	}
	v, err := Value(x, r.params)
	if err != nil {
		return "", err
	}
	return r.value(v), nil
}

// pathArg renders argument i of a call that must be a path, checking the
// call has n arguments.
func (r *renderer) pathArg(c *Call, i, n int) (string, error) {
	if len(c.Args) != n {
		return "", ddberr.Validation("Incorrect number of arguments for function: " + c.Name)
	}
	p, ok := c.Args[i].(*PathExpr)
	if !ok {
		return "", ddberr.Validation("The first argument to " + c.Name + " must be a path")
	}
	return r.path(p.Path), nil
}

func errUnsupportedFunction(name string) error {
	return ddberr.Validation("Unsupported operator in Condition Expression. Operator: " + name)
}

func describe(x Expr) string {
	switch x.(type) {
	case *Binary:
		return "Binary"
	case *Not:
		return "Not"
	case *Between:
		return "Between"
	case *In:
		return "In"
	case *Is:
		return "IsType"
	}
	return "Expression"
}

// cond renders a condition.
func (r *renderer) cond(x Expr) (string, error) {
	switch x := x.(type) {
	case *Binary:
		return r.binary(x)
	case *Not:
		s, err := r.cond(x.X)
		return "(NOT " + s + ")", err
	case *Between:
		return r.join(" BETWEEN ", []Expr{x.X, x.Lo, x.Hi}, " AND ")
	case *In:
		return r.in(x)
	case *Is:
		return r.is(x)
	case *Call:
		return r.callCond(x)
	}
	return "", ddberr.Validation("WHERE clause must contain an expression that resolves to a boolean")
}

// join renders a BETWEEN b AND c.
func (r *renderer) join(sep1 string, xs []Expr, sep2 string) (string, error) {
	s, err := r.operands(xs)
	if err != nil {
		return "", err
	}
	return "(" + s[0] + sep1 + s[1] + sep2 + s[2] + ")", nil
}

// operands renders each of xs as an operand.
func (r *renderer) operands(xs []Expr) ([]string, error) {
	out := make([]string, len(xs))
	for i, x := range xs {
		s, err := r.operand(x)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func (r *renderer) binary(x *Binary) (string, error) {
	if x.Op == OpAdd || x.Op == OpSub {
		return "", ddberr.Validation("WHERE clause must contain an expression that resolves to a boolean")
	}
	render := r.operand
	if x.Op == OpAnd || x.Op == OpOr {
		render = r.cond
	}
	l, err := render(x.L)
	if err != nil {
		return "", err
	}
	rr, err := render(x.R)
	if err != nil {
		return "", err
	}
	if x.Op == OpAnd || x.Op == OpOr {
		return "(" + l + " " + x.Op.String() + " " + rr + ")", nil
	}
	return l + " " + x.Op.String() + " " + rr, nil
}

func (r *renderer) in(x *In) (string, error) {
	if _, ok := x.X.(*PathExpr); !ok {
		return "", errBadIn()
	}
	l, _ := r.operand(x.X)
	parts, err := r.operands(x.List)
	if err != nil {
		return "", err
	}
	return l + " IN (" + strings.Join(parts, ", ") + ")", nil
}

// isTypeDescriptors maps IS types to attribute_type's descriptors.
var isTypeDescriptors = map[string]string{
	"BOOLEAN": "BOOL", "BLOB": "B", "STRING": "S", "NUMERIC": "N", "STRUCT": "M", "TUPLE": "M", "LIST": "L", "NULL": "NULL",
}

// is renders IS [NOT] MISSING as attribute_(not_)exists and the other types
// as attribute_type: a missing attribute IS NOT NULL (and is not NULL), as
// DynamoDB answers.
func (r *renderer) is(x *Is) (string, error) {
	pe, ok := x.X.(*PathExpr)
	if !ok {
		return "", ddberr.Validation("The left hand side argument to IS must be a Variable Reference, Literal, or Path")
	}
	p := r.path(pe.Path)
	var s string
	switch x.Type {
	case "MISSING":
		if x.Not {
			return "attribute_exists(" + p + ")", nil
		}
		return "attribute_not_exists(" + p + ")", nil
	default:
		s = "attribute_type(" + p + ", " + r.value(item.AttributeValue{Type: item.TypeS, S: isTypeDescriptors[x.Type]}) + ")"
	}
	if x.Not {
		return "(NOT " + s + ")", nil
	}
	return s, nil
}

// callCond renders a function used as a condition.
func (r *renderer) callCond(c *Call) (string, error) {
	switch c.Name {
	case "exists", "missing":
		p, err := r.pathArg(c, 0, 1)
		if err != nil {
			return "", err
		}
		if c.Name == "exists" {
			return "attribute_exists(" + p + ")", nil
		}
		return "attribute_not_exists(" + p + ")", nil
	case "begins_with", "contains", "attribute_type":
		p, err := r.pathArg(c, 0, 2)
		if err != nil {
			return "", err
		}
		if c.Name == "attribute_type" {
			if err := checkTypeName(c.Args[1], r.params); err != nil {
				return "", err
			}
		}
		v, err := r.operand(c.Args[1])
		if err != nil {
			return "", err
		}
		return c.Name + "(" + p + ", " + v + ")", nil
	}
	return "", errUnsupportedFunction(c.Name)
}

// checkTypeName refuses an attribute_type whose type is a string that names
// no DynamoDB type, in DynamoDB's words (its list in DynamoDB's order).
func checkTypeName(x Expr, params []item.AttributeValue) error {
	if !isValue(x) {
		return nil
	}
	v, err := Value(x, params)
	if err != nil || v.Type != item.TypeS {
		return nil
	}
	switch v.S {
	case "N", "BS", "L", "B", "NULL", "M", "S", "SS", "NS", "BOOL":
		return nil
	}
	return ddberr.Validation("Invalid attribute type name found; type: " + v.S + ", valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}")
}
