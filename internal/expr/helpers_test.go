package expr

import (
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/item"
)

// Shorthands for test values.
var (
	S   = item.S
	N   = item.N
	B   = item.B
	L   = item.L
	SS  = item.SS
	NS  = item.NS
	BS  = item.BS
	Bo  = item.Bool
	Nul = item.Null
)

func M(kv ...any) item.AttributeValue {
	m := map[string]item.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(item.AttributeValue)
	}
	return item.M(m)
}

func It(kv ...any) item.Item {
	it := item.Item{}
	for i := 0; i < len(kv); i += 2 {
		it[kv[i].(string)] = kv[i+1].(item.AttributeValue)
	}
	return it
}

type vals = map[string]item.AttributeValue
type names = map[string]string

// errMsg returns the ValidationException message of err, or "" for nil.
func errMsg(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := err.(*ddberr.Error)
	if !ok {
		t.Fatalf("error %v is not a *ddberr.Error", err)
	}
	if e.Name() != "ValidationException" {
		t.Fatalf("error %v is not a ValidationException", err)
	}
	return e.Message
}

func itemEqual(a, b item.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !item.Equal(v, w) || v.Type == item.TypeL && !listExactlyEqual(v, w) {
			return false
		}
	}
	return true
}

// listExactlyEqual also compares set member order inside lists (Equal
// ignores set order, which tests of list element order must not).
func listExactlyEqual(a, b item.AttributeValue) bool {
	if len(a.L) != len(b.L) {
		return false
	}
	for i := range a.L {
		if !item.Equal(a.L[i], b.L[i]) {
			return false
		}
	}
	return true
}
