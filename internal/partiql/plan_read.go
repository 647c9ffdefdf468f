package partiql

import (
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// planSelect plans a SELECT as DynamoDB does: equality on the full primary
// key (and nothing else) is a GetItem; an equality on the partition key,
// with at most one sort-key condition, is a Query (on the index when one is
// named) with the other conditions as its filter; anything else is a Scan
// with the WHERE as its filter.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
func planSelect(st *Statement, sch Schema, r *renderer, pl *Plan) error {
	keys := sch.KeyNames
	if st.Index != "" {
		k, ok := sch.Indexes[st.Index]
		if !ok {
			return ddberr.Validation("The table does not have the specified index")
		}
		keys, pl.Index = k, st.Index
		if err := checkIndexRead(st, sch, keys); err != nil {
			return err
		}
	}
	if len(st.Projection) > 0 {
		parts := make([]string, len(st.Projection))
		for i, p := range st.Projection {
			parts[i] = r.path(p)
		}
		pl.Projection = strings.Join(parts, ", ")
	}
	conj := conjuncts(st.Where, nil)
	ok, err := planQuery(st, keys, conj, r, pl)
	if err != nil || ok {
		return err
	}
	if len(st.OrderBy) > 0 {
		if st.Where == nil {
			return ddberr.Validation("Must have WHERE clause in the statement when using ORDER BY clause.")
		}
		if inOn(conj, keys.Hash) && !orderNames(st, keys.Hash) {
			return ddberr.Validation("Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.")
		}
		return ddberr.Validation("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.")
	}
	pl.Operation = OpScan
	if st.Where != nil {
		pl.Filter, err = r.cond(st.Where)
	}
	return err
}

// planQuery plans a GetItem or Query when the WHERE has an equality on the
// partition key; ok is false when it has none.
func planQuery(st *Statement, keys KeyNames, conj []Expr, r *renderer, pl *Plan) (bool, error) {
	if keys.multi() {
		return planMultiQuery(st, keys, conj, r, pl)
	}
	hashAt, rangeAt := -1, -1
	var hashV item.AttributeValue
	for i, c := range conj {
		v, ok, err := keyEquality(c, keys.Hash, r.params)
		if err != nil {
			return false, err
		}
		if ok && hashAt < 0 {
			hashAt, hashV = i, v
		} else if rangeAt < 0 && keys.Range != "" && isRangeCondition(c, keys.Range) {
			rangeAt = i
		}
	}
	if hashAt < 0 {
		return false, nil
	}
	var rest []Expr
	for i, c := range conj {
		if i != hashAt && i != rangeAt {
			if mentions(c, keys.Hash) || keys.Range != "" && mentions(c, keys.Range) {
				return false, nil // DynamoDB filters cannot name key attributes: scan instead
			}
			rest = append(rest, c)
		}
	}
	if err := planOrder(st, keys, pl); err != nil {
		return false, err
	}
	if st.Index == "" && len(rest) == 0 && len(st.OrderBy) == 0 {
		if key, ok := fullKey(keys, hashV, conj, rangeAt, r.params); ok {
			pl.Operation, pl.Key = OpGetItem, key
			return true, nil
		}
	}
	pl.Operation = OpQuery
	kc := r.name(keys.Hash) + " = " + r.value(hashV)
	if rangeAt >= 0 {
		s, err := r.cond(conj[rangeAt])
		if err != nil {
			return false, err
		}
		kc += " AND " + s
	}
	pl.KeyCondition = kc
	var err error
	pl.Filter, err = andAll(r, rest)
	return true, err
}

// fullKey returns the primary key when the WHERE pins it with equalities.
func fullKey(keys KeyNames, hashV item.AttributeValue, conj []Expr, rangeAt int, params []item.AttributeValue) (item.Item, bool) {
	key := item.Item{keys.Hash: hashV}
	if keys.Range == "" {
		return key, true
	}
	if rangeAt < 0 {
		return nil, false
	}
	v, ok, _ := keyEquality(conj[rangeAt], keys.Range, params)
	if !ok {
		return nil, false
	}
	key[keys.Range] = v
	return key, true
}

// isRangeCondition reports whether x is a condition a key condition
// expression allows on the sort key: a comparison other than <> with a
// value, BETWEEN two values, or begins_with with a value.
func isRangeCondition(x Expr, name string) bool {
	switch x := x.(type) {
	case *Binary:
		if x.Op == OpNe || x.Op > OpGe {
			return false
		}
		return isAttr(x.L, name) && isValue(x.R) || isAttr(x.R, name) && isValue(x.L)
	case *Between:
		return isAttr(x.X, name) && isValue(x.Lo) && isValue(x.Hi)
	case *Call:
		return x.Name == "begins_with" && len(x.Args) == 2 && isAttr(x.Args[0], name) && isValue(x.Args[1])
	}
	return false
}

// planOrder checks ORDER BY names only key attributes and sets the
// direction of the Query: the direction given for the sort key; when the
// ORDER BY names only the partition key of a key with a sort key, the items
// come in descending sort-key order whatever its direction, as DynamoDB
// answers (recorded against DynamoDB in eu-west-2 by
// https://github.com/hectorvent/floci's DynamoDbPartiQLDocumentedSyntaxIntegrationTest).
func planOrder(st *Statement, keys KeyNames, pl *Plan) error {
	namesRange := false
	for _, o := range st.OrderBy {
		if !keys.isKey(o.Name) {
			return ddberr.Validation("Attribute " + o.Name + " in ORDER BY clause must be part of the primary key")
		}
		if o.Name == keys.Range || keys.Range == "" || len(st.OrderBy) == 1 {
			pl.Descending = o.Desc
		}
		namesRange = namesRange || o.Name == keys.Range
	}
	if len(st.OrderBy) > 0 && keys.Range != "" && !keys.multi() && !namesRange {
		pl.Descending = true
	}
	return nil
}

// planMultiQuery plans a Query of an index with a multi-attribute key: it
// needs an equality on every partition key attribute; the other conditions
// become its filter, unless they name a key attribute (then it is a Scan).
func planMultiQuery(st *Statement, keys KeyNames, conj []Expr, r *renderer, pl *Plan) (bool, error) {
	hashes := append([]string{keys.Hash}, keys.MoreHash...)
	vals := make([]item.AttributeValue, len(hashes))
	used := make([]bool, len(conj))
	for i, h := range hashes {
		found := false
		for j, c := range conj {
			v, ok, err := keyEquality(c, h, r.params)
			if err != nil {
				return false, err
			}
			if ok && !used[j] {
				vals[i], used[j], found = v, true, true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	keyAttrs := append(append(append([]string{}, hashes...), keys.Range), keys.MoreRange...)
	var rest []Expr
	for j, c := range conj {
		if used[j] {
			continue
		}
		for _, k := range keyAttrs {
			if mentions(c, k) {
				return false, nil
			}
		}
		rest = append(rest, c)
	}
	if err := planOrder(st, keys, pl); err != nil {
		return false, err
	}
	parts := make([]string, len(hashes))
	for i, h := range hashes {
		parts[i] = r.name(h) + " = " + r.value(vals[i])
	}
	pl.Operation, pl.KeyCondition = OpQuery, strings.Join(parts, " AND ")
	var err error
	pl.Filter, err = andAll(r, rest)
	return true, err
}

// inOn reports whether a top-level conjunct is an IN on the attribute name.
func inOn(conj []Expr, name string) bool {
	for _, c := range conj {
		if in, ok := c.(*In); ok && isAttr(in.X, name) {
			return true
		}
	}
	return false
}

// orderNames reports whether the ORDER BY names the attribute.
func orderNames(st *Statement, name string) bool {
	for _, o := range st.OrderBy {
		if o.Name == name {
			return true
		}
	}
	return false
}
