package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Principal is who makes a request, as the Principal element of a
// resource-based policy names it
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html).
type Principal struct {
	// ARN is the caller's ARN: arn:aws:iam::ACCOUNT:root for an account's
	// root user, arn:aws:iam::ACCOUNT:user/NAME, or
	// arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION.
	ARN string
	// Account is the caller's 12-digit account ID.
	Account string
	// Delegated says that an Allow naming the caller's account (ACCOUNT or
	// arn:aws:iam::ACCOUNT:root) grants the caller: true when the caller
	// acts on another account's resource, where such an Allow delegates
	// to the caller's account and its identity policies decide the rest.
	// In the resource's own account an Allow naming the account grants its
	// root user only: IAM users and roles need an identity policy
	// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html).
	Delegated bool
}

// parsePrincipal reads a Principal or NotPrincipal element: "*", or an
// object whose "AWS" member is an account ID, an IAM ARN or "*" (one or a
// list), or whose "Service" member names services. Account IDs become
// arn:aws:iam::ID:root and services "service:NAME" (they never match a
// caller of this server). nil means the element is absent.
func parsePrincipal(raw json.RawMessage, elem string) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var star string
	if json.Unmarshal(raw, &star) == nil {
		if star != "*" {
			return nil, fmt.Errorf("%s must be \"*\" or an object", elem)
		}
		return []string{"*"}, nil
	}
	var m map[string]stringList
	if err := json.Unmarshal(raw, &m); err != nil || len(m) == 0 {
		return nil, fmt.Errorf("%s must be \"*\" or an object of AWS or Service principals", elem)
	}
	var out []string
	for kind, values := range m {
		for _, v := range values {
			switch kind {
			case "AWS":
				p, err := awsPrincipal(v)
				if err != nil {
					return nil, err
				}
				out = append(out, p)
			case "Service":
				out = append(out, "service:"+v)
			default:
				return nil, fmt.Errorf("%s type %q is not supported", elem, kind)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s names no principal", elem)
	}
	return out, nil
}

// awsPrincipal normalizes one AWS principal.
func awsPrincipal(v string) (string, error) {
	switch {
	case v == "*":
		return v, nil
	case IsAccountID(v):
		return "arn:aws:iam::" + v + ":root", nil
	case strings.ContainsAny(v, "*?"):
		// IAM matches principals exactly: a wildcard inside an ARN would
		// match no one, and a Deny naming it would silently deny nothing.
		return "", errors.New("invalid principal: " + v + " (a wildcard may only stand alone, as \"*\"; use a condition on aws:PrincipalArn)")
	case strings.HasPrefix(v, "arn:aws:iam::") || strings.HasPrefix(v, "arn:aws:sts::"):
		parts := strings.SplitN(v, ":", 6)
		if len(parts) == 6 && IsAccountID(parts[4]) && parts[5] != "" {
			return v, nil
		}
	}
	return "", errors.New("invalid principal: " + v)
}

// IsAccountID reports whether s is an AWS account ID: twelve decimal
// digits (https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-identifiers.html).
func IsAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appliesTo reports whether s applies to req's principal. Statements
// without Principal or NotPrincipal (identity-based policies) apply to
// everyone who holds them.
func (s *Statement) appliesTo(req Request) bool {
	deny := s.Effect == "Deny"
	switch {
	case s.Principal != nil:
		return namesPrincipal(s.Principal, req.Principal, deny)
	case s.NotPrincipal != nil:
		return !namesPrincipal(s.NotPrincipal, req.Principal, true)
	}
	return true
}

// namesPrincipal reports whether one of list names p. An account's root
// ARN names every principal of the account in a Deny (broad reads
// widen denials only) and in an Allow only when p.Delegated or p is the
// root user itself.
func namesPrincipal(list []string, p Principal, deny bool) bool {
	if p.ARN == "" {
		return false
	}
	root := "arn:aws:iam::" + p.Account + ":root"
	for _, e := range list {
		switch {
		case e == "*", e == p.ARN:
			return true
		case e == root:
			if deny || p.Delegated || p.ARN == root {
				return true
			}
		case sessionOfRole(p.ARN, e):
			return true
		}
	}
	return false
}

// sessionOfRole reports whether arn is a session of role (an
// arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION of
// arn:aws:iam::ACCOUNT:role/[PATH/]ROLE), which a policy naming the role
// applies to.
func sessionOfRole(arn, role string) bool {
	tail, ok := strings.CutPrefix(arn, "arn:aws:sts::")
	if !ok {
		return false
	}
	acct, rest, ok := strings.Cut(tail, ":assumed-role/")
	if !ok {
		return false
	}
	name, _, ok := strings.Cut(rest, "/")
	if !ok {
		return false
	}
	path, ok := strings.CutPrefix(role, "arn:aws:iam::"+acct+":role/")
	return ok && (path == name || strings.HasSuffix(path, "/"+name))
}
