package expr

import (
	"encoding/base64"

	"github.com/extenddb/extenddb/internal/item"
)

// binder resolves a syntax tree against a request's ExpressionAttributeNames
// and ExpressionAttributeValues, and runs DynamoDB's semantic checks. Each
// check class keeps its first failure; the caller reports the classes in
// DynamoDB's order (the order in which DynamoDB's validation passes run).
type binder struct {
	kind   Kind
	names  map[string]string
	values map[string]item.AttributeValue
	usage  *Usage

	errReserved, errName, errValue, errRef string
	errUnknownFn, errMisuse                string
	errOperand, errDistinct, errFunction   string
}

func set(dst *string, msg string) {
	if *dst == "" {
		*dst = msg
	}
}

// resolve returns what placeholder ph stands for in m (the request's
// ExpressionAttributeNames or ExpressionAttributeValues) and records it
// used; an undefined one is recorded as the first error of its kind (in
// errKind, the message undefined followed by ph) and of either kind.
func resolve[V any](b *binder, m map[string]V, ph string, use func(string), errKind *string, undefined string) V {
	v, ok := m[ph]
	if !ok {
		msg := undefined + ph
		set(errKind, msg)
		set(&b.errRef, msg)
		return v
	}
	use(ph)
	return v
}

// first returns the first non-empty message, as a ValidationException.
func (b *binder) first(msgs ...string) error {
	for _, m := range msgs {
		if m != "" {
			return b.kind.errf("%s", m)
		}
	}
	return nil
}

// bindPath resolves a path's #names and checks its identifiers against the
// reserved words.
func (b *binder) bindPath(raw []rawElem) Path {
	p := make(Path, len(raw))
	for i, e := range raw {
		switch {
		case e.isIndex:
			p[i] = PathElem{Index: e.index, IsIndex: true}
		case e.isName:
			name := resolve(b, b.names, e.text, b.usage.useName, &b.errName,
				"An expression attribute name used in the document path is not defined; attribute name: ")
			p[i] = PathElem{Name: name}
		default:
			if IsReserved(e.text) {
				set(&b.errReserved, "Attribute name is a reserved keyword; reserved keyword: "+e.text)
			}
			p[i] = PathElem{Name: e.text}
		}
	}
	return p
}

// bind returns a resolved copy of n.
func (b *binder) bind(n *node) *node {
	c := &node{kind: n.kind, op: n.op, fn: n.fn, ph: n.ph, parens: n.parens}
	switch n.kind {
	case nPath:
		c.path = b.bindPath(n.raw)
	case nValue:
		c.val = resolve(b, b.values, n.ph, b.usage.useValue, &b.errValue,
			"An expression attribute value used in expression is not defined; attribute value: ")
	}
	if len(n.args) > 0 {
		c.args = make([]*node, len(n.args))
		for i, a := range n.args {
			c.args[i] = b.bind(a)
		}
	}
	return c
}

// staticType is the type an operand is known to have before evaluation.
func staticType(n *node) (item.Type, bool) {
	switch n.kind {
	case nValue:
		return n.val.Type, n.val.Type != item.TypeInvalid
	case nPlus, nMinus:
		return item.TypeN, true
	case nFunc:
		switch n.fn {
		case "size":
			return item.TypeN, true
		case "list_append":
			return item.TypeL, true
		case "if_not_exists":
			if len(n.args) == 2 {
				return staticType(n.args[1])
			}
		}
	}
	return item.TypeInvalid, false
}

var funcArity = map[string]int{
	"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
	"begins_with": 2, "contains": 2, "size": 1,
	"if_not_exists": 2, "list_append": 2,
}

func isConditionFunc(name string) bool { return isBoolFunc(name) || name == "size" }
func isUpdateFunc(name string) bool    { return name == "if_not_exists" || name == "list_append" }

// checkFuncName records misuse of a function name in the current kind of
// expression.
func (b *binder) checkFuncName(n *node) {
	update := b.kind == KindUpdate
	switch {
	case update && isUpdateFunc(n.fn), !update && isConditionFunc(n.fn):
	case update && isConditionFunc(n.fn):
		set(&b.errUnknownFn, "The function is not allowed in an update expression; function: "+n.fn)
	case !update && isUpdateFunc(n.fn):
		set(&b.errUnknownFn, "The function is not allowed in a condition expression; function: "+n.fn)
	default:
		set(&b.errUnknownFn, "Invalid function name; function: "+n.fn)
	}
}

func operandTypeMsg(fn string, t item.Type) string {
	return "Incorrect operand type for operator or function; operator or function: " + fn + ", operand type: " + t.String()
}

// checkDistinct records DynamoDB's error when the first operand of op is a
// path repeated among the remaining operands.
func (b *binder) checkDistinct(op string, args []*node) {
	if len(args) < 2 || args[0].kind != nPath {
		return
	}
	for _, a := range args[1:] {
		if a.kind == nPath && a.path.Equal(args[0].path) {
			set(&b.errDistinct, "The first operand must be distinct from the remaining operands for this operator or function; operator: "+op+", first operand: "+args[0].path.String())
			return
		}
	}
}

// checkFunc checks a function's operand count and operand types.
func (b *binder) checkFunc(n *node) {
	want, known := funcArity[n.fn]
	if !known {
		return
	}
	if len(n.args) != want {
		set(&b.errOperand, "Incorrect number of operands for operator or function; operator or function: "+n.fn+", number of operands: "+itoa(len(n.args)))
		return
	}
	if want == 2 && n.fn != "if_not_exists" && n.fn != "list_append" {
		b.checkDistinct(n.fn, n.args)
	}
	switch n.fn {
	case "attribute_exists", "attribute_not_exists", "if_not_exists":
		if n.args[0].kind != nPath {
			set(&b.errFunction, "Operator or function requires a document path; operator or function: "+n.fn)
		}
	case "begins_with":
		for _, a := range n.args {
			if t, ok := staticType(a); ok && t != item.TypeS && t != item.TypeB {
				set(&b.errFunction, operandTypeMsg(n.fn, t))
				return
			}
		}
	case "attribute_type":
		t, ok := staticType(n.args[1])
		if !ok {
			set(&b.errFunction, "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}")
			return
		}
		if t != item.TypeS {
			set(&b.errFunction, operandTypeMsg(n.fn, t))
			return
		}
		if _, ok := item.TypeFromString(n.args[1].val.S); !ok {
			set(&b.errFunction, "Invalid attribute type name found; type: "+n.args[1].val.S+", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}")
		}
	case "size":
		if t, ok := staticType(n.args[0]); ok && (t == item.TypeN || t == item.TypeBOOL || t == item.TypeNULL) {
			set(&b.errFunction, operandTypeMsg(n.fn, t))
		}
	case "list_append":
		for _, a := range n.args {
			if a.kind == nValue && a.val.Type != item.TypeL && a.val.Type != item.TypeInvalid {
				set(&b.errFunction, operandTypeMsg(n.fn, a.val.Type))
				return
			}
		}
	}
}

// checkArith checks the operands of SET's + and -: literal values must be numbers.
func (b *binder) checkArith(n *node) {
	op := "+"
	if n.kind == nMinus {
		op = "-"
	}
	for _, a := range n.args {
		if a.kind == nValue && a.val.Type != item.TypeN && a.val.Type != item.TypeInvalid {
			set(&b.errFunction, operandTypeMsg(op, a.val.Type))
			return
		}
	}
}

// avText renders a scalar value as DynamoDB's BETWEEN messages do: {N:1}.
func avText(v item.AttributeValue) string {
	s := v.S
	if v.Type == item.TypeB {
		s = base64.StdEncoding.EncodeToString(v.B)
	}
	return "AttributeValue: {" + v.Type.String() + ":" + s + "}"
}

// checkBetween checks literal bounds: same type, lower <= upper.
func (b *binder) checkBetween(lo, hi *node) {
	if lo.kind != nValue || hi.kind != nValue || lo.val.Type == item.TypeInvalid || hi.val.Type == item.TypeInvalid {
		return
	}
	bounds := "lower bound operand: " + avText(lo.val) + ", upper bound operand: " + avText(hi.val)
	if lo.val.Type != hi.val.Type {
		set(&b.errFunction, "The BETWEEN operator requires same data type for lower and upper bounds; "+bounds)
		return
	}
	if c, ok := compareScalar(lo.val, hi.val); ok && c > 0 {
		set(&b.errFunction, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "+bounds)
	}
}

// checkOrderable records DynamoDB's operand type error for an ordering
// comparison (<, <=, >, >=, BETWEEN) with a literal operand that is not a
// string, number or binary, and reports whether all literal operands are
// orderable. A path whose value is not orderable is no error: the
// comparison is false for that item.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Comparators
func (b *binder) checkOrderable(op string, args []*node) bool {
	for _, a := range args {
		t, ok := staticType(a)
		if ok && t != item.TypeS && t != item.TypeN && t != item.TypeB {
			set(&b.errFunction, operandTypeMsg(op, t))
			return false
		}
	}
	return true
}

// checkCond runs the condition checks on a bound tree. top is true where a
// condition (not a value) is expected.
func (b *binder) checkCond(n *node, top bool) {
	if top && n.kind == nFunc && !isBoolFunc(n.fn) {
		set(&b.errMisuse, "The function is not allowed to be used this way in an expression; function: "+n.fn)
	}
	switch n.kind {
	case nAnd, nOr, nNot:
		for _, a := range n.args {
			b.checkCond(a, true)
		}
		return
	case nCompare, nBetween, nIn:
		for _, a := range n.args {
			if a.kind == nFunc && a.fn != "size" {
				set(&b.errMisuse, "The function is not allowed to be used this way in an expression; function: "+a.fn)
			}
		}
		switch n.kind {
		case nCompare:
			b.checkDistinct(compOpText[n.op], n.args)
			if n.op != opEq && n.op != opNe {
				b.checkOrderable(compOpText[n.op], n.args)
			}
		case nBetween:
			b.checkDistinct("BETWEEN", n.args)
			if b.checkOrderable("BETWEEN", n.args) {
				b.checkBetween(n.args[1], n.args[2])
			}
		case nIn:
			b.checkDistinct("IN", n.args)
		}
	case nFunc:
		b.checkFuncName(n)
		for _, a := range n.args {
			if a.kind == nFunc && a.fn != "size" {
				set(&b.errMisuse, "The function is not allowed to be used this way in an expression; function: "+a.fn)
			}
		}
		b.checkFunc(n)
	}
	for _, a := range n.args {
		b.checkCond(a, false)
	}
}

// checkValue runs the update checks on a bound SET operand tree.
func (b *binder) checkValue(n *node) {
	switch n.kind {
	case nFunc:
		b.checkFuncName(n)
		b.checkFunc(n)
	case nPlus, nMinus:
		b.checkArith(n)
	}
	for _, a := range n.args {
		b.checkValue(a)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
