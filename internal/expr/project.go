package expr

import (
	"sort"

	"github.com/extenddb/extenddb/internal/item"
)

// Projection is a parsed ProjectionExpression (or legacy AttributesToGet):
// the document paths to return. Immutable and safe for concurrent use.
type Projection struct {
	paths []Path
	tree  *projNode
}

// ParseProjection parses a ProjectionExpression: document paths separated by
// commas, resolving #name placeholders and recording their use. Overlapping
// paths ("a" and "a.b") and conflicting paths ("a.b" and "a[0]") are
// rejected with DynamoDB's messages. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html
func ParseProjection(expression string, names map[string]string, usage *Usage) (*Projection, error) {
	return (*Cache)(nil).ParseProjection(expression, names, usage)
}

// ParseProjection is the package's ParseProjection through the cache.
func (c *Cache) ParseProjection(expression string, names map[string]string, usage *Usage) (*Projection, error) {
	syn, err := c.syntax(KindProjection, expression)
	if err != nil {
		return nil, err
	}
	b := &binder{kind: KindProjection, names: names, usage: usage}
	paths := make([]Path, len(syn.paths))
	for i, n := range syn.paths {
		paths[i] = b.bindPath(n.raw)
	}
	overlap, conflict := checkOverlaps(paths)
	if err := b.first(b.errReserved, b.errName, overlap, conflict); err != nil {
		return nil, err
	}
	return NewProjection(paths...), nil
}

// NewProjection returns the projection of the given paths; AttributesToGet
// is NewProjection(Attr(name)...).
func NewProjection(paths ...Path) *Projection {
	p := &Projection{paths: paths, tree: &projNode{}}
	for _, path := range paths {
		p.tree.add(path)
	}
	return p
}

// Paths returns the projected document paths in request order.
func (p *Projection) Paths() []Path { return p.paths }

// Project returns the parts of it the projection selects (nil if none). Map
// entries keep their nesting; the selected elements of a list form a new
// list in index order. Selected values are shared with it, not copied.
func (p *Projection) Project(it item.Item) item.Item {
	if p == nil {
		return it
	}
	return p.tree.projectItem(it)
}

// Project returns the parts of it at paths, as ProjectionExpression does.
func Project(it item.Item, paths []Path) item.Item {
	return NewProjection(paths...).Project(it)
}

// projNode is a trie of projected paths.
type projNode struct {
	whole   bool
	names   map[string]*projNode
	indexes map[int]*projNode
	order   []int // sorted keys of indexes
}

func (n *projNode) add(p Path) {
	for _, e := range p {
		if n.whole {
			return
		}
		var c *projNode
		if e.IsIndex {
			if n.indexes == nil {
				n.indexes = map[int]*projNode{}
			}
			if c = n.indexes[e.Index]; c == nil {
				c = &projNode{}
				n.indexes[e.Index] = c
				n.order = append(n.order, e.Index)
				sort.Ints(n.order)
			}
		} else {
			if n.names == nil {
				n.names = map[string]*projNode{}
			}
			if c = n.names[e.Name]; c == nil {
				c = &projNode{}
				n.names[e.Name] = c
			}
		}
		n = c
	}
	n.whole = true
	n.names, n.indexes, n.order = nil, nil, nil
}

func (n *projNode) projectItem(it item.Item) item.Item {
	var out item.Item
	for name, c := range n.names {
		v, ok := it[name]
		if !ok {
			continue
		}
		if v, ok = c.project(v); ok {
			if out == nil {
				out = make(item.Item, len(n.names))
			}
			out[name] = v
		}
	}
	return out
}

func (n *projNode) project(v item.AttributeValue) (item.AttributeValue, bool) {
	if n.whole {
		return v, true
	}
	switch {
	case v.Type == item.TypeM && len(n.names) > 0:
		var m map[string]item.AttributeValue
		for name, c := range n.names {
			cv, ok := v.M[name]
			if !ok {
				continue
			}
			if cv, ok = c.project(cv); ok {
				if m == nil {
					m = make(map[string]item.AttributeValue, len(n.names))
				}
				m[name] = cv
			}
		}
		if m != nil {
			return item.M(m), true
		}
	case v.Type == item.TypeL && len(n.indexes) > 0:
		var l []item.AttributeValue
		for _, ix := range n.order {
			if ix >= len(v.L) {
				break
			}
			if cv, ok := n.indexes[ix].project(v.L[ix]); ok {
				l = append(l, cv)
			}
		}
		if l != nil {
			return item.L(l...), true
		}
	}
	return item.AttributeValue{}, false
}

// checkOverlaps compares every path with the ones before it and returns
// DynamoDB's messages for the first overlapping pair (one path a prefix of
// the other) and the first conflicting pair (a map key where the other has a
// list index), as
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
// and the projection page describe.
func checkOverlaps(paths []Path) (overlap, conflict string) {
	for j := 1; j < len(paths); j++ {
		for i := 0; i < j; i++ {
			a, b := paths[i], paths[j]
			rel := 1 // overlap unless a difference is found
			for k := 0; k < len(a) && k < len(b); k++ {
				if a[k].IsIndex != b[k].IsIndex {
					rel = 2
					break
				}
				if a[k] != b[k] {
					rel = 0
					break
				}
			}
			pair := "must remove or rewrite one of these paths; path one: " + a.String() + ", path two: " + b.String()
			switch rel {
			case 1:
				set(&overlap, "Two document paths overlap with each other; "+pair)
			case 2:
				set(&conflict, "Two document paths conflict with each other; "+pair)
			}
		}
	}
	return overlap, conflict
}
