package expr

import (
	"sort"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// Usage records which ExpressionAttributeNames and ExpressionAttributeValues
// the expressions of one request referenced, so that the caller can reject
// unused ones as DynamoDB does. One Usage serves all expressions of a
// request; a nil *Usage records nothing. Not safe for concurrent use.
//
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeNames.html
type Usage struct {
	names  map[string]struct{}
	values map[string]struct{}
}

// NewUsage returns an empty Usage.
func NewUsage() *Usage {
	return &Usage{names: map[string]struct{}{}, values: map[string]struct{}{}}
}

func (u *Usage) useName(ph string) {
	if u != nil {
		u.names[ph] = struct{}{}
	}
}

func (u *Usage) useValue(ph string) {
	if u != nil {
		u.values[ph] = struct{}{}
	}
}

// NameUsed reports whether the placeholder #name was referenced.
func (u *Usage) NameUsed(ph string) bool {
	if u == nil {
		return false
	}
	_, ok := u.names[ph]
	return ok
}

// ValueUsed reports whether the placeholder :value was referenced.
func (u *Usage) ValueUsed(ph string) bool {
	if u == nil {
		return false
	}
	_, ok := u.values[ph]
	return ok
}

// CheckUnused returns DynamoDB's ValidationException for entries of names or
// values that no expression referenced, names first:
//
//	Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}
//	Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}
//
// Keys are listed in sorted order.
func (u *Usage) CheckUnused(names map[string]string, values map[string]item.AttributeValue) error {
	if err := unusedKeys("ExpressionAttributeNames", names, u.NameUsed); err != nil {
		return err
	}
	return unusedKeys("ExpressionAttributeValues", values, u.ValueUsed)
}

// unusedKeys refuses the keys of m, the request's member, that used reports
// unreferenced, in sorted order.
func unusedKeys[V any](member string, m map[string]V, used func(string) bool) error {
	var unused []string
	for k := range m {
		if !used(k) {
			unused = append(unused, k)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	sort.Strings(unused)
	return ddberr.Validation("%s", "Value provided in "+member+" unused in expressions: keys: {"+strings.Join(unused, ", ")+"}")
}
