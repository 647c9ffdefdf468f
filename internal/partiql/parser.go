package partiql

import (
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// Maximum nesting of parentheses, literals and NOT in a statement; deeper
// statements are refused rather than risking the stack.
const maxDepth = 64

// Malformed is DynamoDB's ValidationException for a statement its parser
// cannot read: "Statement wasn't well formed, can't be processed: <detail>".
func Malformed(detail string) *ddberr.Error {
	return ddberr.Validation("Statement wasn't well formed, can't be processed: " + detail)
}

// The details DynamoDB gives after "can't be processed: ".
const (
	detailLeftover     = "Unexpected token after expression"
	detailTerm         = "Unexpected term"
	detailKeyword      = "Unexpected keyword"
	detailOperator     = "Unexpected operator"
	detailMissingRight = "Missing right-hand side expression of infix operator"
	detailSimplePath   = "Expected identifier for simple path"
	detailDML          = "Expected data manipulation"
	detailTypeName     = "Expected type name"
	detailRightParen   = "Expected right parenthesis"
)

// keywords are the reserved words the grammar uses; unquoted, they are never
// attribute names (double-quote them to use them as names).
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"BETWEEN": true, "IN": true, "IS": true, "MISSING": true, "NULL": true, "TRUE": true,
	"FALSE": true, "INSERT": true, "INTO": true, "VALUE": true, "VALUES": true, "UPDATE": true,
	"SET": true, "REMOVE": true, "DELETE": true, "RETURNING": true, "ORDER": true, "BY": true,
	"ASC": true, "DESC": true, "EXISTS": true, "AS": true, "AT": true, "LIMIT": true, "LIKE": true,
}

// operatorWords are the keywords that are infix operators; where a term
// should start, DynamoDB calls them an "Unexpected operator".
var operatorWords = map[string]bool{"IS": true, "LIKE": true, "AND": true, "OR": true, "BETWEEN": true, "IN": true}

type parser struct {
	src    string
	toks   []token
	i      int
	params int
	depth  int
}

// Parse parses one statement. Errors are *ddberr.Error ValidationExceptions
// with DynamoDB's messages.
func Parse(src string) (*Statement, error) {
	p := &parser{src: src, toks: lex(src)}
	st, err := p.statement()
	if err != nil {
		return nil, err
	}
	p.accept(tkPunct, ";")
	if t := p.peek(); t.kind != tkEOF {
		return nil, p.leftover()
	}
	st.Params = p.params
	if err := checkWriteTarget(st); err != nil {
		return nil, err
	}
	return st, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

// kw reports whether the next token is the keyword w (case-insensitive).
func (p *parser) kw(w string) bool {
	t := p.peek()
	return t.kind == tkIdent && strings.EqualFold(t.text, w)
}

// acceptKw consumes the keyword w when it is next.
func (p *parser) acceptKw(w string) bool {
	if p.kw(w) {
		p.i++
		return true
	}
	return false
}

func (p *parser) is(kind tokKind, text string) bool {
	t := p.peek()
	return t.kind == kind && t.text == text
}

func (p *parser) accept(kind tokKind, text string) bool {
	if p.is(kind, text) {
		p.i++
		return true
	}
	return false
}

// leftover is the error for a token the grammar has no place for, or the
// bare envelope when the statement could not be read at all.
func (p *parser) leftover() error {
	if p.peek().kind == tkBad {
		return Malformed("")
	}
	return Malformed(detailLeftover)
}

// unexpected describes the token where a term should have started.
func (p *parser) unexpected() error {
	t := p.peek()
	switch {
	case t.kind == tkBad:
		return Malformed("")
	case t.kind == tkIdent && operatorWords[strings.ToUpper(t.text)]:
		return Malformed(detailOperator)
	case t.kind == tkIdent && keywords[strings.ToUpper(t.text)]:
		return Malformed(detailKeyword)
	case t.kind == tkOp:
		return Malformed(detailOperator)
	}
	return Malformed(detailTerm)
}

func isKeyword(t token) bool { return t.kind == tkIdent && keywords[strings.ToUpper(t.text)] }

// statementKeywords are the keywords a statement starts with, each with
// the rule of what follows it (FROM starts PartiQL's FROM-first UPDATE).
var statementKeywords = [...]struct {
	keyword string
	rest    func(*parser) (*Statement, error)
}{
	{"SELECT", (*parser).selectRest},
	{"INSERT", (*parser).insertRest},
	{"UPDATE", (*parser).updateRest},
	{"DELETE", (*parser).deleteRest},
	{"FROM", (*parser).fromUpdateRest},
}

// statement parses SELECT, INSERT, UPDATE, DELETE or EXISTS(SELECT ...).
func (p *parser) statement() (*Statement, error) {
	for _, s := range statementKeywords {
		if p.acceptKw(s.keyword) {
			return s.rest(p)
		}
	}
	switch {
	case p.kw("EXISTS"):
		return p.existsStatement()
	case p.peek().kind == tkBad:
		return nil, Malformed("")
	}
	return nil, Malformed(detailDML)
}

// existsStatement parses EXISTS(SELECT ...), a transaction's condition check.
func (p *parser) existsStatement() (*Statement, error) {
	p.next()
	if !p.accept(tkPunct, "(") {
		return nil, p.unexpected()
	}
	if !p.acceptKw("SELECT") {
		return nil, Malformed(detailDML)
	}
	st, err := p.selectRest()
	if err != nil {
		return nil, err
	}
	if !p.accept(tkPunct, ")") {
		return nil, p.leftover()
	}
	st.Kind = Exists
	return st, nil
}

// name reads an identifier, quoted or not; ok is false when the next token
// is neither (or is a reserved word).
func (p *parser) name() (string, bool) {
	t := p.peek()
	switch {
	case t.kind == tkQuoted:
		p.i++
		return t.text, true
	case t.kind == tkIdent && !isKeyword(t):
		p.i++
		return t.text, true
	}
	return "", false
}

// tableRef reads "table" or "table"."index".
func (p *parser) tableRef(st *Statement, missing error) error {
	name, ok := p.name()
	if !ok {
		return missing
	}
	if name == "" {
		return errEmptyComponent()
	}
	st.Table = name
	if p.accept(tkPunct, ".") {
		idx, ok := p.name()
		if !ok {
			return Malformed(detailSimplePath)
		}
		if idx == "" {
			return errEmptyComponent()
		}
		st.Index = idx
		if p.is(tkPunct, ".") {
			return ddberr.Validation("A path may contain at most 2 components in the FROM clause")
		}
	}
	return nil
}

func errEmptyComponent() error {
	return ddberr.Validation("Path component cannot be an empty string")
}

// checkWriteTarget refuses a write that names an index, before the table is
// looked up, as DynamoDB does.
func checkWriteTarget(st *Statement) error {
	switch {
	case st.Index == "":
		return nil
	case st.Kind == Update || st.Kind == Delete:
		return ddberr.Validation("This operation is not supported on an index")
	case st.Kind == Insert:
		return ddberr.Validation("FROM clause may only contain a single table name in data manipulation statements")
	}
	return nil
}

// noAlias refuses an alias after a table reference.
func (p *parser) noAlias() error {
	t := p.peek()
	if p.kw("AS") || t.kind == tkQuoted || t.kind == tkIdent && !isKeyword(t) {
		return ddberr.Validation("Aliasing is not supported")
	}
	return nil
}
