// Package policy parses IAM-style policy documents and evaluates them for a
// request: Effect, Action/NotAction, Resource/NotResource with wildcards,
// and Condition blocks, with IAM's rule that an explicit Deny wins over any
// Allow and that nothing is allowed unless a statement allows it.
//
// It is pure (no I/O). See
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
// and https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html.
package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxDocumentBytes bounds a policy document (IAM's managed policy limit is
// 6,144 characters; DynamoDB's resource-based policies 20 KB).
const MaxDocumentBytes = 20 << 10

// Document is a parsed policy.
type Document struct {
	Version   string
	Statement []Statement
}

// Statement is one statement of a policy.
type Statement struct {
	Sid         string
	Effect      string // "Allow" or "Deny"
	Action      []string
	NotAction   []string
	Resource    []string
	NotResource []string
	// Condition maps an operator (e.g. "StringEquals",
	// "ForAllValues:StringLike", "IpAddressIfExists") to condition keys
	// and their values.
	Condition map[string]map[string][]string
	// Principal and NotPrincipal are the principals a statement of a
	// resource-based policy applies to (principal.go); both nil in an
	// identity-based policy, whose principal is the identity it is
	// attached to.
	Principal, NotPrincipal []string
}

// strings is a JSON value that may be one string or an array of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var xs []any
		if err := json.Unmarshal(b, &xs); err != nil {
			return err
		}
		for _, x := range xs {
			s, err := scalar(x)
			if err != nil {
				return err
			}
			*l = append(*l, s)
		}
		return nil
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	s, err := scalar(x)
	if err != nil {
		return err
	}
	*l = stringList{s}
	return nil
}

// scalar renders a condition value: strings as they are, booleans and
// numbers as their JSON text.
func scalar(x any) (string, error) {
	switch v := x.(type) {
	case string:
		return v, nil
	case bool:
		return fmt.Sprint(v), nil
	case float64:
		return fmt.Sprint(v), nil
	}
	return "", errors.New("expected a string or an array of strings")
}

type rawStatement struct {
	Sid          string
	Effect       string
	Principal    json.RawMessage
	NotPrincipal json.RawMessage
	Action       *stringList
	NotAction    *stringList
	Resource     *stringList
	NotResource  *stringList
	Condition    map[string]map[string]stringList
}

// Parse reads a policy document. Errors name what is malformed; a
// document that parses can always be evaluated.
func Parse(doc []byte) (*Document, error) {
	if len(doc) > MaxDocumentBytes {
		return nil, fmt.Errorf("policy document is larger than %d bytes", MaxDocumentBytes)
	}
	var raw struct {
		Version   string
		Statement json.RawMessage
	}
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, fmt.Errorf("policy document is not valid JSON: %w", err)
	}
	if err := checkElements(doc, documentElements); err != nil {
		return nil, fmt.Errorf("policy document: %w", err)
	}
	switch raw.Version {
	case "", "2012-10-17", "2008-10-17":
	default:
		return nil, fmt.Errorf("policy Version %q is not 2012-10-17 or 2008-10-17", raw.Version)
	}
	var elems []json.RawMessage
	st := bytes.TrimSpace(raw.Statement)
	switch {
	case len(st) == 0:
		return nil, errors.New("policy has no Statement")
	case st[0] == '[':
		if err := json.Unmarshal(st, &elems); err != nil {
			return nil, fmt.Errorf("policy Statement: %w", err)
		}
	default:
		elems = []json.RawMessage{st}
	}
	d := &Document{Version: raw.Version}
	for i, e := range elems {
		s, err := parseStatement(e)
		if err != nil {
			return nil, fmt.Errorf("policy Statement %d: %w", i+1, err)
		}
		d.Statement = append(d.Statement, s)
	}
	return d, nil
}

// The elements IAM's policy grammar allows, spelled as it spells them
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html).
var (
	documentElements  = []string{"Version", "Id", "Statement"}
	statementElements = []string{"Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction",
		"Resource", "NotResource", "Condition"}
)

// checkElements refuses a JSON object with a member not named in allowed,
// compared case-sensitively as IAM does: a misspelt "Condition" must not
// turn a conditional Allow into an unconditional one.
func checkElements(obj []byte, allowed []string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return errors.New("expected a JSON object")
	}
	for name := range m {
		known := false
		for _, a := range allowed {
			if name == a {
				known = true
				break
			}
		}
		if !known {
			return fmt.Errorf("unknown element %q (elements are %s)", name, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// parseStatement reads one statement object.
func parseStatement(e json.RawMessage) (Statement, error) {
	if err := checkElements(e, statementElements); err != nil {
		return Statement{}, err
	}
	var r rawStatement
	if err := json.Unmarshal(e, &r); err != nil {
		return Statement{}, err
	}
	return r.statement()
}

func (r rawStatement) statement() (Statement, error) {
	s := Statement{Sid: r.Sid, Effect: r.Effect}
	if s.Effect != "Allow" && s.Effect != "Deny" {
		return s, fmt.Errorf("Effect %q is not Allow or Deny", r.Effect)
	}
	if (r.Action == nil) == (r.NotAction == nil) {
		return s, errors.New("needs exactly one of Action and NotAction")
	}
	if (r.Resource == nil) == (r.NotResource == nil) {
		return s, errors.New("needs exactly one of Resource and NotResource")
	}
	if r.Action != nil {
		s.Action = *r.Action
	} else {
		s.NotAction = *r.NotAction
	}
	if r.Resource != nil {
		s.Resource = *r.Resource
	} else {
		s.NotResource = *r.NotResource
	}
	var err error
	if s.Principal, err = parsePrincipal(r.Principal, "Principal"); err != nil {
		return s, err
	}
	if s.NotPrincipal, err = parsePrincipal(r.NotPrincipal, "NotPrincipal"); err != nil {
		return s, err
	}
	for op, keys := range r.Condition {
		if _, _, _, err := parseOperator(op); err != nil {
			return s, err
		}
		if s.Condition == nil {
			s.Condition = map[string]map[string][]string{}
		}
		s.Condition[op] = map[string][]string{}
		for k, v := range keys {
			s.Condition[op][strings.ToLower(k)] = v
		}
	}
	return s, nil
}

// Decision is the outcome of an evaluation.
type Decision int

const (
	// ImplicitDeny: no statement allows the request.
	ImplicitDeny Decision = iota
	// Allow: a statement allows it and none denies it.
	Allow
	// ExplicitDeny: a Deny statement matches.
	ExplicitDeny
)

func (d Decision) String() string {
	return [...]string{"ImplicitDeny", "Allow", "ExplicitDeny"}[d]
}

// Request is what a decision is about.
type Request struct {
	Action   string // e.g. "dynamodb:GetItem"
	Resource string // e.g. "arn:aws:dynamodb:us-east-1:111122223333:table/T"
	// Context holds condition keys (lower case) and their values, e.g.
	// "aws:sourceip": {"203.0.113.7"}, "dynamodb:select": {"ALL_ATTRIBUTES"}.
	Context map[string][]string
	// Principal is who makes the request, matched against the Principal
	// and NotPrincipal of resource-based policies' statements
	// (principal.go); identity-based statements ignore it.
	Principal Principal
	// Unsupported names condition keys (lower case) the caller cannot
	// supply. A statement conditioned on one fails closed: an Allow does
	// not match, a Deny does, so a missing key never widens access (for
	// example ForAllValues, which holds for an absent key).
	Unsupported map[string]bool
}

// Evaluate decides req against the statements of docs: ExplicitDeny if
// any Deny statement matches, else Allow if any Allow statement matches,
// else ImplicitDeny.
func Evaluate(docs []*Document, req Request) Decision {
	d := ImplicitDeny
	for _, doc := range docs {
		for i := range doc.Statement {
			s := &doc.Statement[i]
			if !s.matches(req, doc.Version == "2012-10-17") || !s.appliesTo(req) {
				continue
			}
			if s.Effect == "Deny" {
				return ExplicitDeny
			}
			d = Allow
		}
	}
	return d
}

// matches reports whether s applies to req; vars says whether policy
// variables are read (Version 2012-10-17).
func (s *Statement) matches(req Request, vars bool) bool {
	if s.Action != nil && !anyMatch(s.Action, req.Action, true) {
		return false
	}
	if s.NotAction != nil && anyMatch(s.NotAction, req.Action, true) {
		return false
	}
	resource, notResource := s.Resource, s.NotResource
	if vars {
		resource, notResource = resolveList(resource, req.Context), resolveList(notResource, req.Context)
	}
	if resource != nil && !anyMatch(resource, req.Resource, false) {
		return false
	}
	if notResource != nil && anyMatch(notResource, req.Resource, false) {
		return false
	}
	for _, keys := range s.Condition {
		for key := range keys {
			if req.Unsupported[key] {
				return s.Effect == "Deny"
			}
		}
	}
	for op, keys := range s.Condition {
		for key, values := range keys {
			if vars {
				values = resolveAll(values, req.Context)
			}
			if !conditionHolds(op, values, req.Context[key], hasKey(req.Context, key)) {
				return false
			}
		}
	}
	return true
}

func hasKey(ctx map[string][]string, k string) bool {
	_, ok := ctx[k]
	return ok
}

func anyMatch(patterns []string, v string, foldCase bool) bool {
	asciiV := isASCII(v)
	for _, p := range patterns {
		switch {
		case !foldCase:
			if Match(p, v) {
				return true
			}
		case asciiV && isASCII(p):
			// Action names: compared without lower-casing copies.
			if match(p, v, true) {
				return true
			}
		case Match(strings.ToLower(p), strings.ToLower(v)):
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Match reports whether v matches pattern, where '*' matches any run of
// characters (none included) and '?' any one character.
func Match(pattern, v string) bool { return match(pattern, v, false) }

// match is Match, ignoring ASCII case when fold is set.
func match(pattern, v string, fold bool) bool {
	// Iterative wildcard matching with backtracking to the last '*'.
	p, s := 0, 0
	star, mark := -1, 0
	for s < len(v) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == v[s] || fold && lowerASCII(pattern[p]) == lowerASCII(v[s])):
			p++
			s++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, s
			p++
		case star >= 0:
			p = star + 1
			mark++
			s = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
