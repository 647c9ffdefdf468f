package expr

// TopLevelNames returns the top-level attribute names of the document
// paths c reads (a.b[1] reads a), each once, in expression order. It
// serves the condition key dynamodb:Attributes
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html),
// Query's refusal of a filter on a key attribute ("Filter Expression can
// only contain non-primary key attributes") and the reads that decode
// only the attributes a filter needs.
func (c *Condition) TopLevelNames() []string {
	if c == nil || c.root == nil {
		return nil
	}
	return c.root.appendTopLevelNames(nil)
}

// appendTopLevelNames appends to out the top-level names of the paths in
// the tree of n that out does not hold yet.
func (n *node) appendTopLevelNames(out []string) []string {
	if n.kind == nPath && len(n.path) > 0 {
		out = appendName(out, n.path[0].Name)
	}
	for _, a := range n.args {
		out = a.appendTopLevelNames(out)
	}
	return out
}

// TopLevelNames returns the top-level attribute names u writes (its
// target paths) and reads (the operands of SET, as in SET a = b + :v), each
// once, in expression order.
func (u *Update) TopLevelNames() []string {
	var out []string
	for _, a := range u.actions {
		if len(a.path) > 0 {
			out = appendName(out, a.path[0].Name)
		}
		if a.value != nil {
			out = a.value.appendTopLevelNames(out)
		}
	}
	return out
}

// TopLevelNames returns the top-level attribute names p projects, each
// once, in expression order.
func (p *Projection) TopLevelNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, path := range p.paths {
		if len(path) == 0 {
			continue
		}
		if n := path[0].Name; !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func appendName(out []string, name string) []string {
	for _, n := range out {
		if n == name {
			return out
		}
	}
	return append(out, name)
}
