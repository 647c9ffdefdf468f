package expr

import (
	"bytes"
	"strings"

	"github.com/extenddb/extenddb/internal/item"
)

// compareScalar orders two S, N or B values of the same type (item.Compare).
// See https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Comparators
func compareScalar(a, b item.AttributeValue) (int, bool) { return item.Compare(a, b) }

// lookup returns the value at path p in it.
func lookup(it item.Item, p Path) (item.AttributeValue, bool) {
	if len(p) == 0 || p[0].IsIndex {
		return item.AttributeValue{}, false
	}
	v, ok := it[p[0].Name]
	if !ok {
		return v, false
	}
	for _, e := range p[1:] {
		if e.IsIndex {
			if v.Type != item.TypeL || e.Index >= len(v.L) {
				return item.AttributeValue{}, false
			}
			v = v.L[e.Index]
		} else {
			if v.Type != item.TypeM {
				return item.AttributeValue{}, false
			}
			if v, ok = v.M[e.Name]; !ok {
				return v, false
			}
		}
	}
	return v, true
}

// sizeOf is the size() function: UTF-16 code units of a string, bytes of a
// binary, elements of a set or list, entries of a map. ok is false for N,
// BOOL and NULL. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html#Expressions.OperatorsAndFunctions.Functions
func sizeOf(v item.AttributeValue) (int, bool) {
	switch v.Type {
	case item.TypeS:
		n := 0
		for _, r := range v.S {
			if r >= 0x10000 {
				n += 2 // a surrogate pair in UTF-16
			} else {
				n++
			}
		}
		return n, true
	case item.TypeB:
		return len(v.B), true
	case item.TypeSS, item.TypeNS:
		return len(v.SS), true
	case item.TypeBS:
		return len(v.BS), true
	case item.TypeL:
		return len(v.L), true
	case item.TypeM:
		return len(v.M), true
	}
	return 0, false
}

// contains is the contains() function: a substring of a string, a
// subsequence of a binary, a member of a set (of the operand's type) or an
// element of a list.
func contains(hay, needle item.AttributeValue) bool {
	switch hay.Type {
	case item.TypeS:
		return needle.Type == item.TypeS && strings.Contains(hay.S, needle.S)
	case item.TypeB:
		return needle.Type == item.TypeB && bytes.Contains(hay.B, needle.B)
	case item.TypeSS:
		return needle.Type == item.TypeS && containsString(hay.SS, needle.S)
	case item.TypeNS:
		if needle.Type != item.TypeN {
			return false
		}
		for _, m := range hay.SS {
			if item.CompareNumbers(m, needle.S) == 0 {
				return true
			}
		}
		return false
	case item.TypeBS:
		if needle.Type != item.TypeB {
			return false
		}
		for _, m := range hay.BS {
			if bytes.Equal(m, needle.B) {
				return true
			}
		}
		return false
	case item.TypeL:
		for _, e := range hay.L {
			if item.Equal(e, needle) {
				return true
			}
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, m := range ss {
		if m == s {
			return true
		}
	}
	return false
}

// beginsWith is the begins_with() function on S and B values.
func beginsWith(v, prefix item.AttributeValue) bool {
	switch {
	case v.Type == item.TypeS && prefix.Type == item.TypeS:
		return strings.HasPrefix(v.S, prefix.S)
	case v.Type == item.TypeB && prefix.Type == item.TypeB:
		return bytes.HasPrefix(v.B, prefix.B)
	}
	return false
}
