package item

import (
	"bytes"
	"strings"
)

// Equal is DynamoDB equality: same type and same value. Numbers compare
// numerically, sets as sets (irrespective of order), lists element by
// element and maps member by member. TypeInvalid values are never equal.
func Equal(a, b AttributeValue) bool { return equal(a, b) }

func equal(a, b AttributeValue) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case TypeS:
		return a.S == b.S
	case TypeN:
		return a.S == b.S || CompareNumbers(a.S, b.S) == 0
	case TypeB:
		return bytes.Equal(a.B, b.B)
	case TypeBOOL:
		return a.Bool == b.Bool
	case TypeNULL:
		return true
	case TypeM:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, av := range a.M {
			bv, ok := b.M[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case TypeL:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !equal(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case TypeSS:
		return sameStringSet(a.SS, b.SS, false)
	case TypeNS:
		return sameStringSet(a.SS, b.SS, true)
	case TypeBS:
		return sameBinarySet(a.BS, b.BS)
	}
	return false
}

// sameStringSet reports whether a and b hold the same members; numeric
// members are compared by value.
func sameStringSet(a, b []string, numeric bool) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) <= 16 {
		return containsAll(a, b, numeric) && containsAll(b, a, numeric)
	}
	key := func(s string) string {
		if numeric {
			if c, msg := canonicalNumber(s); msg == "" {
				return c
			}
		}
		return s
	}
	set := make(map[string]struct{}, len(a))
	for _, s := range a {
		set[key(s)] = struct{}{}
	}
	for _, s := range b {
		if _, ok := set[key(s)]; !ok {
			return false
		}
	}
	other := make(map[string]struct{}, len(b))
	for _, s := range b {
		other[key(s)] = struct{}{}
	}
	return len(other) == len(set)
}

// containsAll reports whether every member of sub is in set.
func containsAll(sub, set []string, numeric bool) bool {
outer:
	for _, s := range sub {
		for _, t := range set {
			if s == t || (numeric && CompareNumbers(s, t) == 0) {
				continue outer
			}
		}
		return false
	}
	return true
}

func sameBinarySet(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) <= 16 {
		return containsAllBytes(a, b) && containsAllBytes(b, a)
	}
	set := make(map[string]struct{}, len(a))
	for _, s := range a {
		set[string(s)] = struct{}{}
	}
	other := make(map[string]struct{}, len(b))
	for _, s := range b {
		if _, ok := set[string(s)]; !ok {
			return false
		}
		other[string(s)] = struct{}{}
	}
	return len(other) == len(set)
}

func containsAllBytes(sub, set [][]byte) bool {
outer:
	for _, s := range sub {
		for _, t := range set {
			if bytes.Equal(s, t) {
				continue outer
			}
		}
		return false
	}
	return true
}

// Compare orders two values of the same scalar key type as DynamoDB sorts
// them: S by UTF-8 bytes, N numerically, B by unsigned bytes. ok is false
// when the types differ or are not S, N or B.
func Compare(a, b AttributeValue) (int, bool) {
	if a.Type != b.Type {
		return 0, false
	}
	switch a.Type {
	case TypeS:
		return strings.Compare(a.S, b.S), true
	case TypeN:
		return CompareNumbers(a.S, b.S), true
	case TypeB:
		return bytes.Compare(a.B, b.B), true
	}
	return 0, false
}

// Clone returns a deep copy of v. Strings are immutable and shared.
func Clone(v AttributeValue) AttributeValue {
	c := v
	switch v.Type {
	case TypeB:
		c.B = cloneBytes(v.B)
	case TypeM:
		c.M = cloneMap(v.M)
	case TypeL:
		if v.L != nil {
			c.L = make([]AttributeValue, len(v.L))
			for i := range v.L {
				c.L[i] = Clone(v.L[i])
			}
		}
	case TypeSS, TypeNS:
		if v.SS != nil {
			c.SS = append([]string(nil), v.SS...)
		}
	case TypeBS:
		if v.BS != nil {
			c.BS = make([][]byte, len(v.BS))
			for i, b := range v.BS {
				c.BS[i] = cloneBytes(b)
			}
		}
	}
	return c
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func cloneMap(m map[string]AttributeValue) map[string]AttributeValue {
	if m == nil {
		return nil
	}
	c := make(map[string]AttributeValue, len(m))
	for k, v := range m {
		c[k] = Clone(v)
	}
	return c
}

// CloneItem returns a deep copy of it.
func CloneItem(it Item) Item { return cloneMap(it) }
