package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Role is an identity that users assume through STS AssumeRole. Trusted
// lists the account IDs whose principals may assume it (its own account
// when empty): the trust policy of an IAM role, reduced to accounts.
type Role struct {
	Account string
	Name    string
	Trusted []string `json:",omitempty"`
	Created time.Time
}

// ARN is the role's ARN, e.g. arn:aws:iam::111122223333:role/ci.
func (r Role) ARN() string { return "arn:aws:iam::" + r.Account + ":role/" + r.Name }

// Trusts reports whether principals of account may assume the role.
func (r Role) Trusts(account string) bool {
	if len(r.Trusted) == 0 {
		return account == r.Account
	}
	return slices.Contains(r.Trusted, account)
}

// rolePolicyOwner is the User field under which a role's policies are
// stored ("role/NAME", which no user name can be: '/' is not allowed).
func rolePolicyOwner(name string) string { return "role/" + name }

// CreateRole creates a role in an existing account.
func (s *Store) CreateRole(ctx context.Context, account, name string, trusted []string) (Role, error) {
	if !nameRE.MatchString(name) {
		return Role{}, fmt.Errorf("role name %q: 1 to 64 letters, digits and +=,.@_-", name)
	}
	for _, t := range trusted {
		if !accountIDRE.MatchString(t) {
			return Role{}, fmt.Errorf("trusted account %q is not 12 digits", t)
		}
	}
	if _, err := s.GetAccount(ctx, account); err != nil {
		return Role{}, fmt.Errorf("account %s: %w", account, err)
	}
	r := Role{Account: account, Name: name, Trusted: trusted, Created: time.Now().UTC()}
	if err := s.put(ctx, "role#"+account+"#"+name, r, true); err != nil {
		return Role{}, fmt.Errorf("role %s: %w", name, err)
	}
	return r, nil
}

// GetRole returns a role or ErrNotFound.
func (s *Store) GetRole(ctx context.Context, account, name string) (Role, error) {
	var r Role
	err := s.get(ctx, "role#"+account+"#"+name, &r)
	return r, err
}

// ListRoles returns the roles of an account, by name.
func (s *Store) ListRoles(ctx context.Context, account string) ([]Role, error) {
	return list(ctx, s, "role#"+account+"#", nil, func(r Role) string { return r.Name })
}

// DeleteRole deletes a role, its policies and its sessions, which stop
// working when their key is next read (KeyCacheTTL).
func (s *Store) DeleteRole(ctx context.Context, account, name string) error {
	pols, err := s.ListUserPolicies(ctx, account, rolePolicyOwner(name))
	if err != nil {
		return err
	}
	for _, p := range pols {
		if err := s.DeleteUserPolicy(ctx, account, rolePolicyOwner(name), p.Name); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	// Its sessions go with it: a role created again under the same name
	// must not revive them (IAM ties sessions to the role's unique ID).
	keys, err := s.ListAccessKeys(ctx, account, "")
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.Role != name {
			continue
		}
		if err := s.DeleteAccessKey(ctx, k.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return s.del(ctx, "role#"+account+"#"+name)
}

// PutRolePolicy attaches (or replaces) a policy of a role.
func (s *Store) PutRolePolicy(ctx context.Context, account, role, name, doc string) error {
	if _, err := s.GetRole(ctx, account, role); err != nil {
		return fmt.Errorf("role %s of account %s: %w", role, account, err)
	}
	return s.putPolicy(ctx, account, rolePolicyOwner(role), name, doc)
}

// SessionCredentials are temporary credentials issued by STS.
type SessionCredentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	Expiration      time.Time
}

// CreateSessionKey issues temporary credentials (an ASIA key, a secret and
// a session token) acting as base's user, or as role (with session name)
// when role is set, until now+ttl.
func (s *Store) CreateSessionKey(ctx context.Context, base AccessKey, role, session string, now time.Time, ttl time.Duration) (SessionCredentials, error) {
	c := SessionCredentials{
		AccessKeyID:     NewAccessKeyID("ASIA"),
		SecretAccessKey: randomString("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 40),
		SessionToken:    randomString("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 200),
		Expiration:      now.Add(ttl).UTC().Truncate(time.Second),
	}
	sum := sha256.Sum256([]byte(c.SessionToken))
	k := AccessKey{ID: c.AccessKeyID, Account: base.Account, User: base.User, Status: "Active", Created: now.UTC(),
		TokenHash: sum[:], Expires: c.Expiration, Role: role, Session: session}
	if role != "" {
		k.User = ""
	}
	k.Sealed = s.sealer.Seal([]byte(c.SecretAccessKey), []byte(k.ID))
	if err := s.put(ctx, "key#"+k.ID, k, true); err != nil {
		return SessionCredentials{}, err
	}
	return c, nil
}
