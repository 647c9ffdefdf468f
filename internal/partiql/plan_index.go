package partiql

import (
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// IndexProjection is what a secondary index carries besides its and the
// table's key attributes.
type IndexProjection struct {
	Global bool
	// Type is "ALL", "KEYS_ONLY" or "INCLUDE"; NonKey lists INCLUDE's
	// attributes.
	Type   string
	NonKey []string
}

// carries reports whether an index with key keys and projection ip holds the
// top-level attribute name, on a table with key table.
func (ip IndexProjection) carries(name string, keys, table KeyNames) bool {
	if ip.Type == "ALL" || keys.isKey(name) || table.isKey(name) {
		return true
	}
	for _, n := range ip.NonKey {
		if n == name {
			return true
		}
	}
	return false
}

// checkIndexRead applies DynamoDB's rules for what a SELECT on an index may
// name: a global secondary index cannot fetch attributes it does not
// project, so a projection naming one is refused (a local one reads them
// from the table); and a read keyed on the index's partition key (an
// equality or IN on it, ANDed with the rest) may not filter on attributes
// the index does not project, on either kind of index. An unkeyed read is a
// scan of the index, whose filter simply matches nothing there.
// Recorded against DynamoDB in eu-west-2 by https://github.com/nubo-db/dynoxide's
// tests/partiql_index_qualifier.rs.
func checkIndexRead(st *Statement, sch Schema, keys KeyNames) error {
	ip, ok := sch.Projections[st.Index]
	if !ok {
		return nil
	}
	if ip.Global {
		var missing []string
		for _, p := range st.Projection {
			missing = addMissing(missing, p[0].Name, ip, keys, sch.KeyNames)
		}
		if len(missing) > 0 {
			return ddberr.Validation("One or more parameter values were invalid: Global secondary index " + st.Index + " does not project [" + strings.Join(missing, ", ") + "]")
		}
	}
	if !keyedOn(st.Where, keys.Hash) {
		return nil
	}
	var missing []string
	walkPaths(st.Where, func(p Path) { missing = addMissing(missing, p[0].Name, ip, keys, sch.KeyNames) })
	if len(missing) > 0 {
		return ddberr.Validation("One or more parameter values were invalid: Secondary index " + st.Index + " does not project one or more filter attributes: [" + strings.Join(missing, ", ") + "]")
	}
	return nil
}

// addMissing appends name to missing when the index does not carry it and
// it is not listed yet.
func addMissing(missing []string, name string, ip IndexProjection, keys, table KeyNames) []string {
	if ip.carries(name, keys, table) {
		return missing
	}
	for _, m := range missing {
		if m == name {
			return missing
		}
	}
	return append(missing, name)
}

// keyedOn reports whether a top-level conjunct of where is an equality or
// an IN on the attribute hash.
func keyedOn(where Expr, hash string) bool {
	for _, c := range conjuncts(where, nil) {
		switch c := c.(type) {
		case *Binary:
			if c.Op == OpEq && (isAttr(c.L, hash) && isValue(c.R) || isAttr(c.R, hash) && isValue(c.L)) {
				return true
			}
		case *In:
			if isAttr(c.X, hash) {
				return true
			}
		}
	}
	return false
}

// walkPaths calls f for every document path x reads, in order.
func walkPaths(x Expr, f func(Path)) {
	switch x := x.(type) {
	case *PathExpr:
		f(x.Path)
	case *Binary:
		walkPaths(x.L, f)
		walkPaths(x.R, f)
	case *Not:
		walkPaths(x.X, f)
	case *Between:
		walkPaths(x.X, f)
		walkPaths(x.Lo, f)
		walkPaths(x.Hi, f)
	case *In:
		walkPaths(x.X, f)
		for _, e := range x.List {
			walkPaths(e, f)
		}
	case *Is:
		walkPaths(x.X, f)
	case *Call:
		for _, a := range x.Args {
			walkPaths(a, f)
		}
	}
}
