package auth

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/internal/policy"
)

// UserPolicy is an inline identity policy of a user.
type UserPolicy struct {
	Account  string
	User     string
	Name     string
	Document string
}

func policyID(account, user, name string) string {
	return "policy#" + account + "#" + user + "#" + name
}

// PutUserPolicy attaches (or replaces) the policy name of a user; the
// document must parse (policy.Parse).
func (s *Store) PutUserPolicy(ctx context.Context, account, user, name, doc string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("policy name %q: 1 to 64 letters, digits and +=,.@_-", name)
	}
	if _, err := policy.Parse([]byte(doc)); err != nil {
		return err
	}
	var u User
	if err := s.get(ctx, "user#"+account+"#"+user, &u); err != nil {
		return fmt.Errorf("user %s of account %s: %w", user, account, err)
	}
	return s.putPolicy(ctx, account, user, name, doc)
}

func (s *Store) putPolicy(ctx context.Context, account, owner, name, doc string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("policy name %q: 1 to 64 letters, digits and +=,.@_-", name)
	}
	d, err := policy.Parse([]byte(doc))
	if err != nil {
		return err
	}
	for _, st := range d.Statement {
		if st.Principal != nil || st.NotPrincipal != nil {
			// As IAM refuses it (MalformedPolicyDocument): the principal of
			// an identity-based policy is the identity it is attached to.
			return fmt.Errorf("an identity-based policy must not specify a Principal or NotPrincipal")
		}
	}
	return s.put(ctx, policyID(account, owner, name), UserPolicy{Account: account, User: owner, Name: name, Document: doc}, false)
}

// DeleteUserPolicy detaches a user's policy.
func (s *Store) DeleteUserPolicy(ctx context.Context, account, user, name string) error {
	return s.del(ctx, policyID(account, user, name))
}

// ListUserPolicies returns a user's policies, by name.
func (s *Store) ListUserPolicies(ctx context.Context, account, user string) ([]UserPolicy, error) {
	mine := func(p *UserPolicy) bool { return p.Account == account && p.User == user }
	return list(ctx, s, "policy#"+account+"#"+user+"#", mine, func(p UserPolicy) string { return p.Name })
}

// principal is what authorization needs to know about a key's user.
type principal struct {
	arn      string
	root     bool
	policies []*policy.Document
	profile  policyProfile // of policies (fastpath.go)
}

// loadPrincipal reads the user of a key and its parsed policies.
func (s *Store) loadPrincipal(ctx context.Context, k AccessKey) (principal, error) {
	var p principal
	owner := k.User
	if k.Role != "" {
		if _, err := s.GetRole(ctx, k.Account, k.Role); err != nil {
			return principal{}, err
		}
		p.arn = "arn:aws:sts::" + k.Account + ":assumed-role/" + k.Role + "/" + k.Session
		owner = rolePolicyOwner(k.Role)
	} else {
		var u User
		if err := s.get(ctx, "user#"+k.Account+"#"+k.User, &u); err != nil {
			return principal{}, err
		}
		p = principal{arn: u.ARN(), root: u.Root}
		if u.Root {
			return p, nil
		}
	}
	ps, err := s.ListUserPolicies(ctx, k.Account, owner)
	if err != nil {
		return principal{}, err
	}
	for _, up := range ps {
		d, err := policy.Parse([]byte(up.Document))
		if err != nil {
			// Stored documents parsed when put, but a newer parser may
			// refuse one. Skipping it could drop a Deny and widen access:
			// it denies everything until it is replaced.
			d = denyAll()
		}
		p.policies = append(p.policies, d)
	}
	p.profile = profileOf(p.policies)
	return p, nil
}

// denyAll stands for a stored policy that no longer parses.
func denyAll() *policy.Document {
	return &policy.Document{Statement: []policy.Statement{{Effect: "Deny", Action: []string{"*"}, Resource: []string{"*"}}}}
}
