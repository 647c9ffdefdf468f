package item

import (
	"slices"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// MaxNestingLevel is how deep DynamoDB nests documents: a top-level attribute
// is level 1 and a value inside a map or list one level deeper than its
// container. A value at level 33 is rejected. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
const MaxNestingLevel = 32

// DynamoDB's validation messages for attribute values (the sources are cited
// by the test cases).
const (
	msgEmptyValue     = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	msgMultipleTypes  = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	msgNullNotTrue    = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	msgEmptySS        = "One or more parameter values were invalid: An string set  may not be empty"
	msgEmptyNS        = "One or more parameter values were invalid: An number set  may not be empty"
	msgEmptyBS        = "One or more parameter values were invalid: Binary sets should not be empty"
	msgDuplicateNS    = "Input collection contains duplicates"
	msgNestingTooDeep = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
)

// setMessage is the message on a decoded set: none after the decoder's
// error err, else empty when it has no members, else dup's message for a
// repeated member ("" when none is).
func setMessage[E any](members []E, err error, empty string, dup func([]E) string) string {
	switch {
	case err != nil:
		return ""
	case len(members) == 0:
		return empty
	}
	return dup(members)
}

// duplicateSS is DynamoDB's message for a String Set with a repeated
// member, which lists the whole collection; "" when no member repeats.
func duplicateSS(ss []string) string {
	if !hasDuplicateStrings(ss) {
		return ""
	}
	n := len("One or more parameter values were invalid: Input collection [] contains duplicates.")
	for _, s := range ss {
		n += len(s) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, "One or more parameter values were invalid: Input collection ["...)
	for i, s := range ss {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, s...)
	}
	b = append(b, "] contains duplicates."...)
	return string(b)
}

// duplicateNS is DynamoDB's message for a Number Set with a repeated
// member; "" when no member repeats.
func duplicateNS(ns []string) string {
	if !hasDuplicateStrings(ns) {
		return ""
	}
	return msgDuplicateNS
}

// duplicateBS is DynamoDB's message for a Binary Set with a repeated
// member, listing the members in base64 (the missing space before "of" is
// DynamoDB's); "" when no member repeats.
func duplicateBS(bs [][]byte) string {
	if !hasDuplicateBytes(bs) {
		return ""
	}
	b := []byte("One or more parameter values were invalid: Input collection [")
	for i, v := range bs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendBase64(b, v)
	}
	b = append(b, "]of type BS contains duplicates."...)
	return string(b)
}

// hasDuplicateStrings reports whether ss repeats a member.
func hasDuplicateStrings(ss []string) bool {
	if len(ss) <= 16 {
		for i := 1; i < len(ss); i++ {
			if slices.Contains(ss[:i], ss[i]) {
				return true
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(ss))
	for _, s := range ss {
		if _, ok := seen[s]; ok {
			return true
		}
		seen[s] = struct{}{}
	}
	return false
}

// hasDuplicateBytes reports whether bs repeats a member.
func hasDuplicateBytes(bs [][]byte) bool {
	if len(bs) <= 16 {
		for i := 1; i < len(bs); i++ {
			for j := 0; j < i; j++ {
				if string(bs[i]) == string(bs[j]) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, len(bs))
	for _, b := range bs {
		if _, ok := seen[string(b)]; ok {
			return true
		}
		seen[string(b)] = struct{}{}
	}
	return false
}

// Validate returns the first invalid part of v as a ValidationException, or
// nil. It reports what decoding found (a TypeInvalid value carries DynamoDB's
// message; a zero AttributeValue is "Supplied AttributeValue is empty...")
// and the structural faults a value built in code can have: an empty set, an
// unknown type, nesting deeper than MaxNestingLevel. It does not re-parse
// numbers or search sets for duplicates; decoding has done that, and code
// building values must keep numbers canonical and sets unique.
func Validate(v AttributeValue) error {
	if msg := invalidMessage(v, 1); msg != "" {
		return ddberr.Validation(msg)
	}
	return nil
}

// ValidateItem validates every value of it. When several are invalid the one
// with the smallest attribute name is reported, so the answer is the same on
// every call.
func ValidateItem(it Item) error {
	bad, msg := "", ""
	for name, v := range it {
		if m := invalidMessage(v, 1); m != "" && (msg == "" || name < bad) {
			bad, msg = name, m
		}
	}
	if msg != "" {
		return ddberr.Validation(msg)
	}
	return nil
}

// invalidMessage is Validate's message for v at nesting level level, or "".
func invalidMessage(v AttributeValue, level int) string {
	switch v.Type {
	case TypeInvalid:
		if v.S == "" {
			return msgEmptyValue
		}
		return v.S
	case TypeS, TypeN, TypeB, TypeBOOL, TypeNULL:
		return ""
	case TypeSS:
		if len(v.SS) == 0 {
			return msgEmptySS
		}
	case TypeNS:
		if len(v.SS) == 0 {
			return msgEmptyNS
		}
	case TypeBS:
		if len(v.BS) == 0 {
			return msgEmptyBS
		}
	case TypeL:
		if len(v.L) > 0 && level >= MaxNestingLevel {
			return msgNestingTooDeep
		}
		for i := range v.L {
			if msg := invalidMessage(v.L[i], level+1); msg != "" {
				return msg
			}
		}
	case TypeM:
		if len(v.M) > 0 && level >= MaxNestingLevel {
			return msgNestingTooDeep
		}
		for _, e := range v.M {
			if msg := invalidMessage(e, level+1); msg != "" {
				return msg
			}
		}
	default:
		return msgEmptyValue
	}
	return ""
}
