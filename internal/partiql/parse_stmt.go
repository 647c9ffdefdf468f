package partiql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// selectRest parses what follows SELECT.
func (p *parser) selectRest() (*Statement, error) {
	st := &Statement{Kind: Select}
	if err := p.projection(st); err != nil {
		return nil, err
	}
	if !p.acceptKw("FROM") {
		return nil, p.unexpected()
	}
	if err := p.tableHead(st, p.unexpected()); err != nil {
		return nil, err
	}
	if err := p.optional(st, "WHERE", p.where); err != nil {
		return nil, err
	}
	if err := p.optional(st, "ORDER", p.orderBy); err != nil {
		return nil, err
	}
	return st, nil
}

// tableHead parses a statement's table, missing being the error of its
// absence, and refuses an alias after it.
func (p *parser) tableHead(st *Statement, missing error) error {
	if err := p.tableRef(st, missing); err != nil {
		return err
	}
	return p.noAlias()
}

// optional parses clause when the next token is its keyword kw (consumed).
func (p *parser) optional(st *Statement, kw string, clause func(*Statement) error) error {
	if !p.acceptKw(kw) {
		return nil
	}
	return clause(st)
}

// where parses what follows WHERE into st.Where.
func (p *parser) where(st *Statement) error {
	w, err := p.condition()
	if err != nil {
		return err
	}
	st.Where = w
	return nil
}

// projection parses "*" or a list of paths.
func (p *parser) projection(st *Statement) error {
	err := p.commaSeparated(func() error {
		if p.accept(tkPunct, "*") {
			st.Star = true
			return nil
		}
		if t := p.peek(); t.kind == tkIdent && strings.EqualFold(t.text, "COUNT") && p.toks[p.i+1].kind == tkPunct && p.toks[p.i+1].text == "(" {
			return p.errAggregate(t)
		}
		path, err := p.path()
		if err != nil {
			return err
		}
		st.Projection = append(st.Projection, path)
		return nil
	})
	if err != nil {
		return err
	}
	if st.Star && len(st.Projection) > 0 {
		return ddberr.Validation("Other attributes should not be present in the projection when '*' is used.")
	}
	return nil
}

// errAggregate refuses COUNT(...) in a projection as DynamoDB does, with a
// bare message naming the token's 1-based line and column (in characters)
// and its length.
func (p *parser) errAggregate(t token) error {
	return ddberr.Validation("Unexpected path component at " + p.position(t))
}

// position is where token t is: "line:column:length", 1-based, counted in
// characters.
func (p *parser) position(t token) string {
	before := p.src[:t.pos]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("%d:%d:%d", line, col, utf8.RuneCountInString(t.text))
}

// orderBy parses what follows ORDER: BY name [ASC|DESC] {, ...}.
func (p *parser) orderBy(st *Statement) error {
	if !p.acceptKw("BY") {
		return p.unexpected()
	}
	return p.commaSeparated(func() error {
		name, ok := p.name()
		if !ok {
			return p.unexpected()
		}
		o := Order{Name: name}
		if p.acceptKw("DESC") {
			o.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		st.OrderBy = append(st.OrderBy, o)
		return nil
	})
}

// commaSeparated parses one or more elements with elem, separated by
// commas.
func (p *parser) commaSeparated(elem func() error) error {
	for {
		if err := elem(); err != nil {
			return err
		}
		if !p.accept(tkPunct, ",") {
			return nil
		}
	}
}

// insertRest parses what follows INSERT: INTO table VALUE {...}.
func (p *parser) insertRest() (*Statement, error) {
	st := &Statement{Kind: Insert}
	if !p.acceptKw("INTO") {
		return nil, p.unexpected()
	}
	if err := p.tableRef(st, Malformed(detailSimplePath)); err != nil {
		return nil, err
	}
	if !p.acceptKw("VALUE") {
		if p.kw("VALUES") {
			return nil, ddberr.Validation(`Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead`)
		}
		return nil, p.leftover()
	}
	v, err := p.expr()
	if err != nil {
		return nil, err
	}
	if _, ok := v.(*MapExpr); !ok {
		return nil, ddberr.Validation("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.")
	}
	st.Value = v
	if p.kw("RETURNING") {
		return nil, ddberr.Validation("RETURNING is not supported in INSERT")
	}
	return st, nil
}

// errNoKeyEquality is DynamoDB's refusal of a write whose WHERE does not pin
// every key attribute with an equality.
func errNoKeyEquality() error {
	return ddberr.Validation("Where clause does not contain a mandatory equality on all key attributes")
}

// updateRest parses what follows UPDATE: table SET/REMOVE ... WHERE ... [RETURNING ...].
func (p *parser) updateRest() (*Statement, error) {
	st := &Statement{Kind: Update}
	if err := p.tableHead(st, Malformed(detailSimplePath)); err != nil {
		return nil, err
	}
	if err := p.actions(st); err != nil {
		return nil, err
	}
	return p.writeTail(st)
}

// fromUpdateRest parses PartiQL's FROM-first form of UPDATE, what follows
// FROM: table [WHERE ...] SET/REMOVE ... [RETURNING ...].
func (p *parser) fromUpdateRest() (*Statement, error) {
	st := &Statement{Kind: Update}
	if err := p.tableHead(st, Malformed(detailSimplePath)); err != nil {
		return nil, err
	}
	if err := p.optional(st, "WHERE", p.where); err != nil {
		return nil, err
	}
	if err := p.actions(st); err != nil {
		return nil, err
	}
	if err := p.optional(st, "RETURNING", p.returning); err != nil {
		return nil, err
	}
	return st, nil
}

// actions parses one or more SET and REMOVE clauses of an UPDATE.
func (p *parser) actions(st *Statement) error {
	for {
		var err error
		switch {
		case p.acceptKw("SET"):
			err = p.setList(st)
		case p.acceptKw("REMOVE"):
			err = p.removeList(st)
		case len(st.Actions) == 0:
			return p.unexpected()
		default:
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// setList parses path = value {, path = value}.
func (p *parser) setList(st *Statement) error {
	return p.commaSeparated(func() error {
		path, err := p.path()
		if err != nil {
			return err
		}
		if !p.accept(tkOp, "=") {
			return p.unexpected()
		}
		v, err := p.additive()
		if err != nil {
			return err
		}
		st.Actions = append(st.Actions, Action{Path: path, Value: v})
		return nil
	})
}

// removeList parses path {, path}.
func (p *parser) removeList(st *Statement) error {
	return p.commaSeparated(func() error {
		path, err := p.path()
		if err != nil {
			return err
		}
		st.Actions = append(st.Actions, Action{Path: path})
		return nil
	})
}

// deleteRest parses what follows DELETE: FROM table WHERE ... [RETURNING ALL OLD *].
func (p *parser) deleteRest() (*Statement, error) {
	st := &Statement{Kind: Delete}
	if !p.acceptKw("FROM") {
		return nil, p.unexpected()
	}
	if err := p.tableHead(st, Malformed(detailSimplePath)); err != nil {
		return nil, err
	}
	return p.writeTail(st)
}

// writeTail parses the WHERE and RETURNING clauses of UPDATE and DELETE.
func (p *parser) writeTail(st *Statement) (*Statement, error) {
	if !p.acceptKw("WHERE") {
		if p.peek().kind == tkEOF || p.is(tkPunct, ";") {
			return nil, errNoKeyEquality()
		}
		return nil, p.leftover()
	}
	if err := p.where(st); err != nil {
		return nil, err
	}
	if err := p.optional(st, "RETURNING", p.returning); err != nil {
		return nil, err
	}
	return st, nil
}

// returning parses (ALL | MODIFIED) (OLD | NEW) *.
func (p *parser) returning(st *Statement) error {
	var which, age string
	switch {
	case p.acceptKw("ALL"):
		which = "ALL"
	case p.acceptKw("MODIFIED"):
		which = "MODIFIED"
	default:
		return p.unexpected()
	}
	switch {
	case p.acceptKw("OLD"):
		age = "OLD"
	case p.acceptKw("NEW"):
		age = "NEW"
	default:
		return p.unexpected()
	}
	if !p.accept(tkPunct, "*") {
		return ddberr.Validation("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
	}
	if st.Kind == Delete && (which != "ALL" || age != "OLD") {
		return ddberr.Validation("Invalid returning clause: RETURNING " + which + " " + age + " *. Only RETURNING ALL OLD * is allowed in DELETE statements.")
	}
	rv := map[string]Returning{"ALLOLD": "ALL_OLD", "ALLNEW": "ALL_NEW", "MODIFIEDOLD": "UPDATED_OLD", "MODIFIEDNEW": "UPDATED_NEW"}
	st.Returning = rv[which+age]
	return nil
}

// path parses a document path: name {. name | [n] | ['key']}.
func (p *parser) path() (Path, error) {
	first, ok := p.name()
	if !ok {
		if p.is(tkPunct, "[") {
			return nil, ddberr.Validation("A path cannot start with a list index")
		}
		return nil, p.unexpected()
	}
	path := Path{{Name: first}}
	for {
		switch {
		case p.accept(tkPunct, "."):
			if p.is(tkPunct, "*") {
				return nil, ddberr.Validation("Unpivot path component like a.*.b are not supported")
			}
			t := p.peek()
			if t.kind != tkIdent && t.kind != tkQuoted {
				return nil, Malformed(detailSimplePath)
			}
			p.i++
			path = append(path, Step{Name: t.text})
		case p.accept(tkPunct, "["):
			st, err := p.bracketStep()
			if err != nil {
				return nil, err
			}
			path = append(path, st)
		default:
			return path, nil
		}
	}
}

// bracketStep parses what follows '[' in a path: a list index or a quoted key.
func (p *parser) bracketStep() (Step, error) {
	t := p.next()
	var st Step
	switch {
	case t.kind == tkNumber && strings.Trim(t.text, "0123456789") == "":
		n := 0
		for _, c := range t.text {
			n = n*10 + int(c-'0')
			if n > 1<<24 {
				return st, ddberr.Validation("List index is not within the allowable range; index: [" + t.text + "]")
			}
		}
		st = Step{Index: n, IsIndex: true}
	case t.kind == tkString:
		st = Step{Name: t.text}
	case t.kind == tkPunct && t.text == "*":
		return st, ddberr.Validation("Wildcard path component like a[*].b are not supported")
	default:
		p.i--
		return st, p.unexpected()
	}
	if !p.accept(tkPunct, "]") {
		return st, p.unexpected()
	}
	return st, nil
}
