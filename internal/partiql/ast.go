package partiql

import (
	"strconv"

	"github.com/extenddb/extenddb/internal/item"
)

// Kind is a statement's kind.
type Kind uint8

// The statement kinds of DynamoDB's PartiQL. Exists is EXISTS(SELECT ...),
// a condition check allowed only in ExecuteTransaction write requests.
const (
	Select Kind = iota + 1
	Insert
	Update
	Delete
	Exists
)

func (k Kind) String() string {
	return [...]string{"", "SELECT", "INSERT", "UPDATE", "DELETE", "EXISTS"}[k]
}

// Returning is the RETURNING clause as the ReturnValues of the engine's
// write: "" (none), "ALL_OLD", "ALL_NEW", "UPDATED_OLD" or "UPDATED_NEW".
type Returning string

// Statement is one parsed PartiQL statement.
type Statement struct {
	Kind  Kind
	Table string // the table name as written (quotes removed)
	Index string // SELECT FROM "table"."index"; empty otherwise

	Star       bool   // SELECT *
	Projection []Path // SELECT a, b.c (when not Star)
	Where      Expr   // nil when there is no WHERE
	OrderBy    []Order

	Value Expr // INSERT's VALUE (a *MapExpr)

	Actions []Action // UPDATE's SET and REMOVE, in statement order

	Returning Returning

	// Params is the number of ? placeholders; Parameters must hold at least
	// this many values.
	Params int
}

// Order is one ORDER BY term.
type Order struct {
	Name string
	Desc bool
}

// Action is one UPDATE assignment: SET Path = Value, or REMOVE Path when
// Value is nil.
type Action struct {
	Path  Path
	Value Expr
}

// Step is one step of a document path: a map key (Name) or, when IsIndex, a
// list index.
type Step struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is an attribute name followed by map and list steps: a.b[2]."c d".
type Path []Step

// String renders the path as PartiQL.
func (p Path) String() string {
	s := ""
	for i, st := range p {
		switch {
		case st.IsIndex:
			s += "[" + strconv.Itoa(st.Index) + "]"
		case i == 0:
			s += st.Name
		default:
			s += "." + st.Name
		}
	}
	return s
}

// Expr is a node of a WHERE condition, of a SET value or of a literal.
type Expr interface{ node() }

// Op is a binary operator.
type Op uint8

// Binary operators: comparisons, logic and arithmetic.
const (
	OpEq Op = iota + 1
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd
	OpOr
	OpAdd
	OpSub
)

var opText = [...]string{"", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "+", "-"}

func (o Op) String() string { return opText[o] }

type (
	// PathExpr is a document path operand.
	PathExpr struct{ Path Path }
	// Lit is a scalar literal: a string, a number (canonical text), a
	// boolean or NULL.
	Lit struct{ V item.AttributeValue }
	// Param is the N-th (0-based) ? placeholder.
	Param struct{ N int }
	// Missing is the MISSING literal.
	Missing struct{}
	// ListExpr is a [list] literal.
	ListExpr struct{ Elems []Expr }
	// MapExpr is a {'key': value} literal (a tuple in PartiQL's words).
	MapExpr struct {
		Keys []string
		Vals []Expr
	}
	// BagExpr is a <<bag>> literal: a string or number set.
	BagExpr struct{ Elems []Expr }
	// Binary is L Op R.
	Binary struct {
		Op   Op
		L, R Expr
	}
	// Not is NOT X.
	Not struct{ X Expr }
	// Between is X BETWEEN Lo AND Hi.
	Between struct{ X, Lo, Hi Expr }
	// In is X IN [list].
	In struct {
		X    Expr
		List []Expr
	}
	// Is is X IS [NOT] Type, Type one of MISSING, NULL, BOOLEAN, STRING,
	// NUMERIC, BLOB, LIST, STRUCT, TUPLE (upper case).
	Is struct {
		X    Expr
		Not  bool
		Type string
	}
	// Call is a function call; Name is lower case. At is where its name
	// is, "line:column:length" (1-based, in characters), as DynamoDB's
	// messages name a position.
	Call struct {
		Name string
		Args []Expr
		At   string
	}
	// SubSelect is the SELECT inside EXISTS(...).
	SubSelect struct{ Stmt *Statement }
)

func (*PathExpr) node()  {}
func (*Lit) node()       {}
func (*Param) node()     {}
func (*Missing) node()   {}
func (*ListExpr) node()  {}
func (*MapExpr) node()   {}
func (*BagExpr) node()   {}
func (*Binary) node()    {}
func (*Not) node()       {}
func (*Between) node()   {}
func (*In) node()        {}
func (*Is) node()        {}
func (*Call) node()      {}
func (*SubSelect) node() {}
