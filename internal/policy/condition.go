package policy

import (
	"fmt"
	"net/netip"
	"strings"
)

// parseOperator splits "ForAllValues:StringLikeIfExists" into its set
// qualifier ("", "ForAllValues" or "ForAnyValue"), base operator and
// IfExists flag, and refuses operators it does not know.
func parseOperator(op string) (set, base string, ifExists bool, err error) {
	base = op
	if q, rest, ok := strings.Cut(op, ":"); ok {
		if q != "ForAllValues" && q != "ForAnyValue" {
			return "", "", false, fmt.Errorf("condition operator %q: unknown qualifier %q", op, q)
		}
		set, base = q, rest
	}
	if b, ok := strings.CutSuffix(base, "IfExists"); ok && b != "" {
		base, ifExists = b, true
	}
	switch base {
	case "StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase",
		"StringLike", "StringNotLike", "IpAddress", "NotIpAddress", "Bool", "Null", "ArnEquals", "ArnLike",
		"ArnNotEquals", "ArnNotLike":
		return set, base, ifExists, nil
	}
	return "", "", false, fmt.Errorf("condition operator %q is not supported", op)
}

// negated reports whether an operator holds when no value matches.
func negated(base string) bool {
	switch base {
	case "StringNotEquals", "StringNotEqualsIgnoreCase", "StringNotLike", "NotIpAddress", "ArnNotEquals", "ArnNotLike":
		return true
	}
	return false
}

// conditionHolds evaluates one operator and key: want are the policy's
// values, got the request's (present says whether the key is in the
// request context at all).
func conditionHolds(op string, want, got []string, present bool) bool {
	set, base, ifExists, err := parseOperator(op)
	if err != nil {
		return false
	}
	if base == "Null" {
		// "true": the key must be absent; "false": present.
		for _, w := range want {
			if (w == "true") == !present {
				return true
			}
		}
		return false
	}
	if !present || len(got) == 0 {
		switch {
		case set == "ForAllValues":
			return true
		case set == "ForAnyValue":
			return false
		case ifExists:
			return true
		}
		return negated(base)
	}
	one := func(g string) bool { return valueMatches(base, want, g) }
	switch set {
	case "ForAllValues":
		for _, g := range got {
			if !one(g) {
				return false
			}
		}
		return true
	case "ForAnyValue":
		for _, g := range got {
			if one(g) {
				return true
			}
		}
		return false
	}
	return one(got[0])
}

// valueMatches is the operator applied to one request value: for a
// positive operator, any policy value matches; for a negated one, none
// does.
func valueMatches(base string, want []string, g string) bool {
	pos := base
	switch base {
	case "StringNotEquals":
		pos = "StringEquals"
	case "StringNotEqualsIgnoreCase":
		pos = "StringEqualsIgnoreCase"
	case "StringNotLike":
		pos = "StringLike"
	case "NotIpAddress":
		pos = "IpAddress"
	case "ArnNotEquals":
		pos = "ArnEquals"
	case "ArnNotLike":
		pos = "ArnLike"
	}
	hit := false
	for _, w := range want {
		if matchOne(pos, w, g) {
			hit = true
			break
		}
	}
	return hit != negated(base)
}

func matchOne(op, w, g string) bool {
	switch op {
	case "StringEquals", "ArnEquals":
		return w == g
	case "StringEqualsIgnoreCase":
		return strings.EqualFold(w, g)
	case "StringLike", "ArnLike":
		return Match(w, g)
	case "Bool":
		return strings.EqualFold(w, g)
	case "IpAddress":
		ip, err := netip.ParseAddr(g)
		if err != nil {
			return false
		}
		if p, err := netip.ParsePrefix(w); err == nil {
			return p.Contains(ip.Unmap())
		}
		a, err := netip.ParseAddr(w)
		return err == nil && a == ip.Unmap()
	}
	return false
}
