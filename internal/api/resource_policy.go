package api

import (
	"context"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/storage"
)

// Resource-based policies: PutResourcePolicy, GetResourcePolicy,
// DeleteResourcePolicy and CreateTable's ResourcePolicy, on tables and
// streams. The documents are stored with the table's catalog entry
// (storage.Table.ResourcePolicies) and deleted with it; internal/auth
// evaluates them.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutResourcePolicy.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-considerations.html

// maxResourcePolicyBytes is the size limit of a document, whitespace
// included.
const maxResourcePolicyBytes = 20 << 10

// noPolicyRevision is the ExpectedRevisionId that asks for a policy to be
// attached only if the resource has none.
const noPolicyRevision = "NO_POLICY"

type putResourcePolicyInput struct {
	resourceArnInput
	Policy                          *string
	ExpectedRevisionId              *string
	ConfirmRemoveSelfResourceAccess *bool
}

type resourcePolicyInput struct {
	resourceArnInput
	ExpectedRevisionId *string
}

type revisionOutput struct {
	RevisionId string `json:"RevisionId,omitempty"`
}

type getResourcePolicyOutput struct {
	Policy     string
	RevisionId string
}

var (
	putResourcePolicyRules = rules[putResourcePolicyInput]{
		lengthRule("resourceArn", func(in *putResourcePolicyInput) *string { return in.ResourceArn }, 1, 1283, true),
		required("policy", func(in *putResourcePolicyInput) bool { return in.Policy != nil }),
		lengthRule("expectedRevisionId", func(in *putResourcePolicyInput) *string { return in.ExpectedRevisionId }, 1, 255, false),
	}
	resourcePolicyRules = rules[resourcePolicyInput]{
		lengthRule("resourceArn", func(in *resourcePolicyInput) *string { return in.ResourceArn }, 1, 1283, true),
		lengthRule("expectedRevisionId", func(in *resourcePolicyInput) *string { return in.ExpectedRevisionId }, 1, 255, false),
	}
)

// policyTarget is the resource a ResourceArn names: a table (label "")
// or one of its streams.
type policyTarget struct {
	arn, table, label, account string
}

// parsePolicyTarget reads a table or stream ARN. An index ARN is refused
// as tagging refuses it: an index's permissions are part of its table's
// policy.
func parsePolicyTarget(arn string) (policyTarget, error) {
	if ref, ok := parseStreamArn(arn); ok {
		parts := strings.SplitN(arn, ":", 6)
		if !validTableName(ref.table) {
			return policyTarget{}, errInvalidTableArn(arn)
		}
		return policyTarget{arn: arn, table: ref.table, label: ref.label, account: parts[4]}, nil
	}
	name, account, err := tableArnName(arn)
	if err != nil {
		return policyTarget{}, err
	}
	return policyTarget{arn: arn, table: name, account: account}, nil
}

// errPolicyNotFound is the answer for a resource without a policy
// (moto's AWS-verified test_get_resource_policy_from_resource_without,
// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_resource_policy.py).
func errPolicyNotFound(arn string) error {
	return ddberr.PolicyNotFound("Resource-based policy not found for the provided ResourceArn: %s", arn)
}

// checkRevision applies ExpectedRevisionId to the current policy cur (nil
// when none), in DynamoDB's words (moto's AWS-verified tests above).
func checkRevision(p policyTarget, expected *string, cur *storage.ResourcePolicy) error {
	switch {
	case expected == nil:
		return nil
	case *expected == noPolicyRevision && cur != nil:
		return ddberr.PolicyNotFound("Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table %s, but a policy exists with revision id %s.",
			p.table, cur.RevisionID)
	case *expected == noPolicyRevision:
		return nil
	case cur == nil:
		return errPolicyNotFound(p.arn)
	case *expected != cur.RevisionID:
		return ddberr.PolicyNotFound("Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id %s, but the policy associated to target table %s has revision id %s.",
			*expected, p.table, cur.RevisionID)
	}
	return nil
}

// nextRevision is a new revision ID: the time in milliseconds, as DynamoDB's
// are (comparable), and always after prev.
func (e *Engine) nextRevision(prev string) string {
	ms := e.now().UnixMilli()
	if p, err := strconv.ParseInt(prev, 10, 64); err == nil && p >= ms {
		ms = p + 1
	}
	return strconv.FormatInt(ms, 10)
}

// The policy operations: the member rules, the ARN's form (a table's or a
// stream's), the document (PutResourcePolicy), then the table. A missing
// table or stream is ResourceNotFoundException in DynamoDB's words.
var (
	putResourcePolicyOp = &controlOp[putResourcePolicyInput]{
		rules: putResourcePolicyRules,
		check: func(_ *Engine, _ caller, in *putResourcePolicyInput) error {
			if err := in.parsePolicy(); err != nil {
				return err
			}
			return checkResourcePolicy(*in.Policy)
		},
		table:   byResourceArn[putResourcePolicyInput](errPolicyTableNotFound),
		execute: (*Engine).putResourcePolicy,
	}
	getResourcePolicyOp    = resourcePolicyOp((*Engine).getResourcePolicy)
	deleteResourcePolicyOp = resourcePolicyOp((*Engine).deleteResourcePolicy)
)

// resourcePolicyOp is GetResourcePolicy or DeleteResourcePolicy, which
// share their input and their steps.
func resourcePolicyOp(execute func(e *Engine, ctx context.Context, c caller, in *resourcePolicyInput, t *storage.Table) (any, error)) *controlOp[resourcePolicyInput] {
	return &controlOp[resourcePolicyInput]{
		rules:   resourcePolicyRules,
		check:   func(_ *Engine, _ caller, in *resourcePolicyInput) error { return in.parsePolicy() },
		table:   byResourceArn[resourcePolicyInput](errPolicyTableNotFound),
		execute: execute,
	}
}

func errPolicyTableNotFound(p policyTarget) error { return errTableNotFound(p.table) }

func (e *Engine) putResourcePolicy(ctx context.Context, _ caller, in *putResourcePolicyInput, t *storage.Table) (any, error) {
	p := in.target
	var rev string
	_, err := e.updateCatalog(ctx, t, func(t *storage.Table) error {
		cur, ok := t.ResourcePolicies[p.label]
		var curp *storage.ResourcePolicy
		if ok {
			curp = &cur
		}
		if err := checkRevision(p, in.ExpectedRevisionId, curp); err != nil {
			return err
		}
		if ok && cur.Document == *in.Policy {
			// The same document again changes nothing (moto's
			// AWS-verified test_put_resource_policy_multiple_times).
			rev = cur.RevisionID
			return nil
		}
		rev = e.nextRevision(cur.RevisionID)
		t.ResourcePolicies = withPolicy(t.ResourcePolicies, p.label, &storage.ResourcePolicy{Document: *in.Policy, RevisionID: rev})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return revisionOutput{RevisionId: rev}, nil
}

// withPolicy is a copy of m with label's policy set to p, or removed when
// p is nil (catalog entries are values: the map is not shared).
func withPolicy(m map[string]storage.ResourcePolicy, label string, p *storage.ResourcePolicy) map[string]storage.ResourcePolicy {
	out := make(map[string]storage.ResourcePolicy, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	if p == nil {
		delete(out, label)
	} else {
		out[label] = *p
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (e *Engine) getResourcePolicy(_ context.Context, _ caller, in *resourcePolicyInput, t *storage.Table) (any, error) {
	p := in.target
	cur, ok := t.ResourcePolicies[p.label]
	if !ok {
		return nil, errPolicyNotFound(p.arn)
	}
	return getResourcePolicyOutput{Policy: cur.Document, RevisionId: cur.RevisionID}, nil
}

func (e *Engine) deleteResourcePolicy(ctx context.Context, _ caller, in *resourcePolicyInput, t *storage.Table) (any, error) {
	p := in.target
	var rev string
	_, err := e.updateCatalog(ctx, t, func(t *storage.Table) error {
		cur, ok := t.ResourcePolicies[p.label]
		if !ok {
			return errPolicyNotFound(p.arn)
		}
		if in.ExpectedRevisionId != nil && *in.ExpectedRevisionId != cur.RevisionID {
			return checkRevision(p, in.ExpectedRevisionId, &cur)
		}
		rev = cur.RevisionID
		t.ResourcePolicies = withPolicy(t.ResourcePolicies, p.label, nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return revisionOutput{RevisionId: rev}, nil
}

// checkResourcePolicy validates a resource-based policy document: its
// size (20 KB, whitespace counted), its grammar, a Principal in every
// statement, and DynamoDB action names that apply to a table, index or
// stream (account-level actions such as dynamodb:ListStreams are
// refused, as aws-controllers-k8s/dynamodb-controller pull 176 quotes:
// "One or more parameter values were invalid: Invalid policy document:
// The following action names are invalid: \"dynamodb:ListStreams\"").
func checkResourcePolicy(doc string) error {
	if len(doc) > maxResourcePolicyBytes {
		return invalid("Invalid policy document: The policy document exceeds the maximum size of 20 KB (%d bytes given)", len(doc))
	}
	d, err := policy.Parse([]byte(doc))
	if err != nil {
		return invalid("Invalid policy document: %s", err.Error())
	}
	var bad []string
	for i, s := range d.Statement {
		if s.Principal == nil && s.NotPrincipal == nil {
			return invalid("Invalid policy document: Statement %d has no Principal", i+1)
		}
		for _, a := range append(append([]string(nil), s.Action...), s.NotAction...) {
			if !resourceAction(a) {
				bad = append(bad, strconv.Quote(a))
			}
		}
	}
	if len(bad) > 0 {
		return invalid("Invalid policy document: The following action names are invalid: %s", strings.Join(bad, ", "))
	}
	for i, s := range d.Statement {
		if grantsPublicAccess(s) {
			return invalid("Invalid policy document: Statement %d grants public access (Principal \"*\" without a condition on the caller's account, ARN, organization or network); Block Public Access refuses such policies", i+1)
		}
	}
	return nil
}

// grantsPublicAccess is Block Public Access's test, which DynamoDB
// applies to every resource-based policy it is given
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-bpa-rbp.html):
// an Allow whose principal is everyone ("*", or NotPrincipal) is public
// unless a condition restricts who or where the caller is.
func grantsPublicAccess(s policy.Statement) bool {
	if s.Effect != "Allow" {
		return false
	}
	public := s.NotPrincipal != nil
	for _, p := range s.Principal {
		public = public || p == "*"
	}
	if !public {
		return false
	}
	for _, keys := range s.Condition {
		for k := range keys {
			if restrictingKeys[k] {
				return false
			}
		}
	}
	return true
}

// restrictingKeys are the condition keys (lower case) that make a
// statement for everyone non-public: they name the caller's account,
// identity, organization or network.
var restrictingKeys = map[string]bool{
	"aws:principalaccount": true, "aws:principalarn": true, "aws:principalorgid": true, "aws:principalorgpaths": true,
	"aws:sourceaccount": true, "aws:sourcearn": true, "aws:sourceowner": true, "aws:userid": true,
	"aws:sourceip": true, "aws:sourcevpc": true, "aws:sourcevpce": true,
}

// resourceAction reports whether a policy's action pattern names at least
// one action that applies to a table, index or stream.
func resourceAction(pattern string) bool {
	if pattern == "*" {
		return true
	}
	svc, name, ok := strings.Cut(strings.ToLower(pattern), ":")
	if !ok || svc != "dynamodb" {
		return false
	}
	for _, a := range resourceActions {
		if policy.Match(name, strings.ToLower(a)) {
			return true
		}
	}
	return false
}

// resourceActions are the DynamoDB actions resource-based policies
// support: those on a table, index or stream, without CreateTable and the
// actions on backups, imports and legacy global tables
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-iam-actions.html).
var resourceActions = []string{
	"BatchGetItem", "BatchWriteItem", "ConditionCheckItem", "CreateBackup", "CreateTableReplica",
	"DeleteItem", "DeleteResourcePolicy", "DeleteTable", "DeleteTableReplica", "DescribeContinuousBackups",
	"DescribeContributorInsights", "DescribeKinesisStreamingDestination", "DescribeStream", "DescribeTable",
	"DescribeTableReplicaAutoScaling", "DescribeTimeToLive", "DisableKinesisStreamingDestination",
	"EnableKinesisStreamingDestination", "ExportTableToPointInTime", "GetItem", "GetRecords", "GetResourcePolicy",
	"GetShardIterator", "ListTagsOfResource", "PartiQLDelete", "PartiQLInsert", "PartiQLSelect",
	"PartiQLUpdate", "PutItem", "PutResourcePolicy", "Query", "RestoreTableToPointInTime",
	"Scan", "TagResource", "UntagResource", "UpdateContinuousBackups", "UpdateContributorInsights", "UpdateItem",
	"UpdateKinesisStreamingDestination", "UpdateTable", "UpdateTableReplicaAutoScaling", "UpdateTimeToLive",
}
