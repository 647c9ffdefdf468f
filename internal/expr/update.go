package expr

import (
	"sort"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// DynamoDB's messages for updates that fail against the item, from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
// (messages as the service returns them; see the tests for sources).
const (
	msgIncorrectType  = "An operand in the update expression has an incorrect data type"
	msgMissingOperand = "The provided expression refers to an attribute that does not exist in the item"
	msgInvalidPath    = "The document path provided in the update expression is invalid for update"
	msgLegacyMismatch = "Type mismatch for attribute to update"
)

// Update is a parsed UpdateExpression (or legacy AttributeUpdates). It is
// immutable and safe for concurrent use.
type Update struct {
	actions []boundAction // source order
	paths   []Path        // target paths, source order
	legacy  bool          // AttributeUpdates semantics and messages
}

type boundAction struct {
	kind  actionKind
	path  Path
	value *node
}

var typeWords = map[item.Type]string{
	item.TypeS: "STRING", item.TypeN: "NUMBER", item.TypeB: "BINARY", item.TypeNULL: "NULL",
	item.TypeBOOL: "BOOLEAN", item.TypeL: "LIST", item.TypeM: "MAP",
}

// ParseUpdate parses an UpdateExpression: SET (with +, -, list_append and
// if_not_exists), REMOVE, ADD and DELETE clauses, each at most once. Errors
// are ValidationExceptions prefixed "Invalid UpdateExpression: ", e.g.
//
//	Invalid UpdateExpression: The "SET" section can only be used once in an update expression;
//	Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]
//	Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING
//
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
func ParseUpdate(expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage) (*Update, error) {
	return (*Cache)(nil).ParseUpdate(expression, names, values, usage)
}

// ParseUpdate is the package's ParseUpdate through the cache.
func (c *Cache) ParseUpdate(expression string, names map[string]string, values map[string]item.AttributeValue, usage *Usage) (*Update, error) {
	syn, err := c.syntax(KindUpdate, expression)
	if err != nil {
		return nil, err
	}
	b := &binder{kind: KindUpdate, names: names, values: values, usage: usage}
	u := &Update{actions: make([]boundAction, len(syn.actions)), paths: make([]Path, len(syn.actions))}
	var errAddDel string
	for i, a := range syn.actions {
		ba := boundAction{kind: a.kind, path: b.bindPath(a.target.raw)}
		if a.value != nil {
			ba.value = b.bind(a.value)
		}
		switch a.kind {
		case actSet:
			b.checkValue(ba.value)
		case actAdd, actDelete:
			t := ba.value.val.Type
			ok := t == item.TypeSS || t == item.TypeNS || t == item.TypeBS || t == item.TypeN && a.kind == actAdd
			if w := typeWords[t]; !ok && w != "" {
				set(&errAddDel, "Incorrect operand type for operator or function; operator: "+actionNames[a.kind]+", operand type: "+w)
			}
		}
		u.actions[i] = ba
		u.paths[i] = ba.path
	}
	overlap, conflict := checkOverlaps(u.paths)
	section := ""
	if syn.dupClause != "" {
		section = "The \"" + syn.dupClause + "\" section can only be used once in an update expression;"
	}
	redundant := ""
	if syn.redundant {
		redundant = "The expression has redundant parentheses;"
	}
	if err := b.first(redundant, b.errReserved, b.errUnknownFn, section, b.errName, b.errValue, overlap, conflict, errAddDel, b.errOperand, b.errFunction); err != nil {
		return nil, err
	}
	return u, nil
}

// Paths returns the document paths the update writes, in expression order.
func (u *Update) Paths() []Path { return u.paths }

// Updated returns the parts of it at the update's target paths: pass the old
// item for ReturnValues UPDATED_OLD and the new one for UPDATED_NEW. A
// top-level target yields the whole attribute; a nested one (SET a.b = :v)
// yields only that element ({a: {M: {b: ...}}}), as DynamoDB returns them.
// See https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues
func (u *Update) Updated(it item.Item) item.Item { return Project(it, u.paths) }

// RemovesOnly reports whether the update has actions and every one of them
// only takes something away: REMOVE, DELETE from a set, or AttributeUpdates'
// DELETE. DynamoDB does not create a missing item for such an update; an
// update with no actions at all still creates one holding only the key.
func (u *Update) RemovesOnly() bool {
	for _, a := range u.actions {
		if a.kind != actRemove && a.kind != actDelete {
			return false
		}
	}
	return len(u.actions) > 0
}

// CheckKeyUpdate returns DynamoDB's error when the update writes (at any
// depth) one of the key attributes:
//
//	One or more parameter values were invalid: Cannot update attribute a. This attribute is part of the key
func (u *Update) CheckKeyUpdate(keyAttributes ...string) error {
	for _, p := range u.paths {
		for _, k := range keyAttributes {
			if p[0].Name == k {
				return ddberr.Validation("%s", "One or more parameter values were invalid: Cannot update attribute "+k+". This attribute is part of the key")
			}
		}
	}
	return nil
}

// pathLess orders paths element by element, list indexes numerically.
func pathLess(a, b Path) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		x, y := a[k], b[k]
		if x.IsIndex != y.IsIndex {
			return y.IsIndex
		}
		if x.IsIndex {
			if x.Index != y.Index {
				return x.Index < y.Index
			}
		} else if x.Name != y.Name {
			return x.Name < y.Name
		}
	}
	return len(a) < len(b)
}

// Apply returns the item that results from applying the update to old (an
// empty or nil Item when the item does not exist). old is not modified; the
// result shares unmodified values with it.
//
// All SET operands are evaluated against old before anything is written.
// SET, ADD and DELETE actions are then applied in path order (list indexes
// ascending: assigning past the end of a list appends), and REMOVE actions
// last in reverse path order, so removed list indexes refer to the list as
// it was and the remaining elements shift down.
func (u *Update) Apply(old item.Item) (item.Item, error) {
	vals := make([]item.AttributeValue, len(u.actions))
	for i, a := range u.actions {
		if a.kind != actSet {
			continue
		}
		v, err := u.evalValue(a.value, old)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	order := make([]int, len(u.actions))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := u.actions[order[x]], u.actions[order[y]]
		ra, rb := a.kind == actRemove, b.kind == actRemove
		if ra != rb {
			return rb
		}
		if ra {
			return pathLess(b.path, a.path)
		}
		return pathLess(a.path, b.path)
	})
	out := make(item.Item, len(old)+len(u.actions))
	for k, v := range old {
		out[k] = v
	}
	for _, i := range order {
		a := u.actions[i]
		var err error
		switch a.kind {
		case actSet:
			err = setPath(out, a.path, vals[i])
		case actRemove:
			err = removePath(out, a.path)
		case actAdd:
			err = u.add(out, a.path, a.value.val)
		case actDelete:
			err = u.del(out, a.path, a.value.val)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (u *Update) typeErr() error {
	if u.legacy {
		return ddberr.Validation(msgLegacyMismatch)
	}
	return ddberr.Validation(msgIncorrectType)
}

// evalOperands computes the two operands of n (a + or -, or list_append)
// against the old item, left first.
func (u *Update) evalOperands(n *node, old item.Item) (a, b item.AttributeValue, err error) {
	if a, err = u.evalValue(n.args[0], old); err != nil {
		return a, b, err
	}
	b, err = u.evalValue(n.args[1], old)
	return a, b, err
}

// evalValue computes a SET operand against the old item.
func (u *Update) evalValue(n *node, old item.Item) (item.AttributeValue, error) {
	switch n.kind {
	case nValue:
		return n.val, nil
	case nPath:
		v, ok := lookup(old, n.path)
		if !ok {
			return v, ddberr.Validation(msgMissingOperand)
		}
		return v, nil
	case nPlus, nMinus:
		a, b, err := u.evalOperands(n, old)
		if err != nil {
			return item.AttributeValue{}, err
		}
		if a.Type != item.TypeN || b.Type != item.TypeN {
			return a, u.typeErr()
		}
		var s string
		if n.kind == nPlus {
			s, err = item.AddNumbers(a.S, b.S)
		} else {
			s, err = item.SubtractNumbers(a.S, b.S)
		}
		return item.N(s), err
	case nFunc:
		switch n.fn {
		case "if_not_exists":
			if v, ok := lookup(old, n.args[0].path); ok {
				return v, nil
			}
			return u.evalValue(n.args[1], old)
		case "list_append":
			a, b, err := u.evalOperands(n, old)
			if err != nil {
				return item.AttributeValue{}, err
			}
			if a.Type != item.TypeL || b.Type != item.TypeL {
				return a, u.typeErr()
			}
			l := make([]item.AttributeValue, 0, len(a.L)+len(b.L))
			return item.L(append(append(l, a.L...), b.L...)...), nil
		}
	}
	return item.AttributeValue{}, u.typeErr()
}

// parentOf returns the value holding the last element of p, or ok=false when
// p is top-level. A missing or mistyped container is msgInvalidPath.
func parentOf(it item.Item, p Path) (item.AttributeValue, bool, error) {
	if len(p) == 1 {
		return item.AttributeValue{}, false, nil
	}
	v, ok := lookup(it, p[:len(p)-1])
	last := p[len(p)-1]
	if !ok || last.IsIndex && v.Type != item.TypeL || !last.IsIndex && v.Type != item.TypeM {
		return v, true, ddberr.Validation(msgInvalidPath)
	}
	return v, true, nil
}

// setPath writes v at p, copying every container on the way (copy-on-write).
// An index past the end of a list appends.
func setPath(it item.Item, p Path, v item.AttributeValue) error {
	if len(p) == 1 {
		it[p[0].Name] = v
		return nil
	}
	top, ok := it[p[0].Name]
	if !ok {
		return ddberr.Validation(msgInvalidPath)
	}
	nv, err := setIn(top, p[1:], v)
	if err != nil {
		return err
	}
	it[p[0].Name] = nv
	return nil
}

func setIn(c item.AttributeValue, rest Path, v item.AttributeValue) (item.AttributeValue, error) {
	e := rest[0]
	if e.IsIndex {
		if c.Type != item.TypeL {
			return c, ddberr.Validation(msgInvalidPath)
		}
		l := append(make([]item.AttributeValue, 0, len(c.L)+1), c.L...)
		if len(rest) == 1 {
			if e.Index >= len(l) {
				l = append(l, v)
			} else {
				l[e.Index] = v
			}
			return item.L(l...), nil
		}
		if e.Index >= len(l) {
			return c, ddberr.Validation(msgInvalidPath)
		}
		child, err := setIn(l[e.Index], rest[1:], v)
		if err != nil {
			return c, err
		}
		l[e.Index] = child
		return item.L(l...), nil
	}
	if c.Type != item.TypeM {
		return c, ddberr.Validation(msgInvalidPath)
	}
	m := make(map[string]item.AttributeValue, len(c.M)+1)
	for k, x := range c.M {
		m[k] = x
	}
	if len(rest) == 1 {
		m[e.Name] = v
		return item.M(m), nil
	}
	child, ok := m[e.Name]
	if !ok {
		return c, ddberr.Validation(msgInvalidPath)
	}
	child, err := setIn(child, rest[1:], v)
	if err != nil {
		return c, err
	}
	m[e.Name] = child
	return item.M(m), nil
}

// removePath deletes the element at p; later list elements shift down. A
// missing final element is not an error; a missing or mistyped container is.
func removePath(it item.Item, p Path) error {
	if len(p) == 1 {
		delete(it, p[0].Name)
		return nil
	}
	parent, _, err := parentOf(it, p)
	if err != nil {
		return err
	}
	last := p[len(p)-1]
	var nv item.AttributeValue
	if last.IsIndex {
		if last.Index >= len(parent.L) {
			return nil
		}
		l := make([]item.AttributeValue, 0, len(parent.L)-1)
		l = append(append(l, parent.L[:last.Index]...), parent.L[last.Index+1:]...)
		nv = item.L(l...)
	} else {
		if _, ok := parent.M[last.Name]; !ok {
			return nil
		}
		m := make(map[string]item.AttributeValue, len(parent.M))
		for k, x := range parent.M {
			if k != last.Name {
				m[k] = x
			}
		}
		nv = item.M(m)
	}
	return setPath(it, p[:len(p)-1], nv)
}

func isSet(t item.Type) bool { return t == item.TypeSS || t == item.TypeNS || t == item.TypeBS }

// add is ADD: number addition or set union; a missing attribute is created.
// Legacy AttributeUpdates ADD also appends lists.
func (u *Update) add(it item.Item, p Path, v item.AttributeValue) error {
	if _, _, err := parentOf(it, p); err != nil {
		return err
	}
	cur, ok := lookup(it, p)
	if !ok {
		return setPath(it, p, v)
	}
	if cur.Type != v.Type {
		return u.typeErr()
	}
	switch {
	case v.Type == item.TypeN:
		s, err := item.AddNumbers(cur.S, v.S)
		if err != nil {
			return err
		}
		return setPath(it, p, item.N(s))
	case isSet(v.Type):
		return setPath(it, p, setUnion(cur, v))
	case v.Type == item.TypeL && u.legacy:
		l := make([]item.AttributeValue, 0, len(cur.L)+len(v.L))
		return setPath(it, p, item.L(append(append(l, cur.L...), v.L...)...))
	}
	return u.typeErr()
}

// del is DELETE: set difference; an emptied set removes the attribute.
func (u *Update) del(it item.Item, p Path, v item.AttributeValue) error {
	if _, _, err := parentOf(it, p); err != nil {
		return err
	}
	cur, ok := lookup(it, p)
	if !ok {
		return nil
	}
	if cur.Type != v.Type || !isSet(v.Type) {
		return u.typeErr()
	}
	d := setDifference(cur, v)
	if len(d.SS) == 0 && len(d.BS) == 0 {
		return removePath(it, p)
	}
	return setPath(it, p, d)
}

func setUnion(a, b item.AttributeValue) item.AttributeValue {
	out := item.AttributeValue{Type: a.Type}
	if a.Type == item.TypeBS {
		seen := make(map[string]bool, len(a.BS)+len(b.BS))
		for _, x := range append(append([][]byte(nil), a.BS...), b.BS...) {
			if !seen[string(x)] {
				seen[string(x)] = true
				out.BS = append(out.BS, x)
			}
		}
		return out
	}
	seen := make(map[string]bool, len(a.SS)+len(b.SS))
	for _, x := range append(append([]string(nil), a.SS...), b.SS...) {
		if !seen[x] {
			seen[x] = true
			out.SS = append(out.SS, x)
		}
	}
	return out
}

func setDifference(a, b item.AttributeValue) item.AttributeValue {
	out := item.AttributeValue{Type: a.Type}
	if a.Type == item.TypeBS {
		drop := make(map[string]bool, len(b.BS))
		for _, x := range b.BS {
			drop[string(x)] = true
		}
		for _, x := range a.BS {
			if !drop[string(x)] {
				out.BS = append(out.BS, x)
			}
		}
		return out
	}
	drop := make(map[string]bool, len(b.SS))
	for _, x := range b.SS {
		drop[x] = true
	}
	for _, x := range a.SS {
		if !drop[x] {
			out.SS = append(out.SS, x)
		}
	}
	return out
}
