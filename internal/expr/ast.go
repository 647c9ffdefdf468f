package expr

import (
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/item"
)

// PathElem is one step of a document path: a map key (or top-level
// attribute name) or a list index.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path such as a.b[1].c, its elements resolved (#names
// replaced by the attribute names they stand for). See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.Attributes.html
type Path []PathElem

// String renders p the way DynamoDB's messages do: "[a, b, [1], c]".
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.IsIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		} else {
			b.WriteString(e.Name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Equal reports whether p and q name the same document path.
func (p Path) Equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Attr returns the single-element path naming top-level attribute name.
func Attr(name string) Path { return Path{{Name: name}} }

// nodeKind tells what a node of the expression tree is.
type nodeKind uint8

const (
	// Operands.
	nPath              nodeKind = iota // document path
	nValue                             // :value
	nFunc                              // function call; name in fn
	nPlus                              // a + b (update SET)
	nMinus                             // a - b (update SET)
	nCompare                           // args[0] op args[1]
	nBetween                           // args[0] BETWEEN args[1] AND args[2]
	nIn                                // args[0] IN (args[1:]...)
	nAnd                               // args[0] AND args[1]
	nOr                                // args[0] OR args[1]
	nNot                               // NOT args[0]
	nLegacyNotContains                 // legacy NOT_CONTAINS: attribute present and not containing
)

// compOp is a comparison operator.
type compOp uint8

const (
	opEq compOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var compOpText = [...]string{"=", "<>", "<", "<=", ">", ">="}

// rawElem is a path element as written: an identifier, a #name or an index.
type rawElem struct {
	text    string // identifier or #name as written
	index   int
	isIndex bool
	isName  bool // #name placeholder
}

// node is one node of a parsed expression. The syntax tree (from the parser)
// holds placeholders as written; binding copies it with names and values
// resolved (path and val filled in).
type node struct {
	kind   nodeKind
	op     compOp
	fn     string    // function name for nFunc
	raw    []rawElem // nPath as written
	ph     string    // nValue placeholder as written (":v")
	path   Path      // nPath, resolved
	val    item.AttributeValue
	args   []*node
	parens bool // operand written inside parentheses
}

// isBoolFunc reports whether name is a condition function returning a boolean.
func isBoolFunc(name string) bool {
	switch name {
	case "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains":
		return true
	}
	return false
}

// isCondition reports whether n yields a boolean (rather than a value).
func (n *node) isCondition() bool {
	switch n.kind {
	case nCompare, nBetween, nIn, nAnd, nOr, nNot, nLegacyNotContains:
		return true
	case nFunc:
		return isBoolFunc(n.fn)
	}
	return false
}

// walk calls f for n and every node below it, depth first, in source order.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, a := range n.args {
		a.walk(f)
	}
}
