package auth

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage"
)

// Resource-based policies are evaluated with the caller's identity
// policies as IAM's evaluation logic says
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-auth-iam-id-based-policies-DDB.html):
// an explicit Deny in either wins; otherwise, in the resource's own
// account, an Allow in either suffices, and across accounts both must
// allow. The root user of the resource's account holds every permission
// of an identity policy; only a Deny of a resource-based policy naming it
// stops it, and never for the policy operations themselves, so that the
// account can always repair a policy that locks everyone out (as S3 does
// for its bucket policies; docs/adr/0011b).

// policyActions are the actions the root user of a resource's account
// may always perform on it.
var policyActions = map[string]bool{
	"dynamodb:getresourcepolicy": true, "dynamodb:putresourcepolicy": true, "dynamodb:deleteresourcepolicy": true,
}

// parseResourcePolicies parses the stored resource-based policies of a
// table. A document that no longer parses (stored by an older version)
// denies everything: a missing Deny must not widen access.
func parseResourcePolicies(m map[string]storage.ResourcePolicy) map[string][]*policy.Document {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]*policy.Document, len(m))
	for label, rp := range m {
		d, err := policy.Parse([]byte(rp.Document))
		if err != nil {
			d = &policy.Document{Statement: []policy.Statement{{Effect: "Deny", Principal: []string{"*"},
				Action: []string{"*"}, Resource: []string{"*"}}}}
		}
		out[label] = []*policy.Document{d}
	}
	return out
}

// resourceTarget splits a DynamoDB resource ARN into the account, table
// and stream label whose resource-based policy governs it: a table's
// policy governs the table and its indexes, a stream's its stream. ok is
// false for "*" and for ARNs of anything else (backups, exports, imports:
// resource-based policies do not apply to them).
func resourceTarget(arn string) (account, table, label string, ok bool) {
	account, rest, ok := arnParts(arn)
	if !ok {
		return "", "", "", false
	}
	rest, ok = strings.CutPrefix(rest, "table/")
	if !ok || rest == "" {
		return "", "", "", false
	}
	table, sub, _ := strings.Cut(rest, "/")
	if table == "*" {
		return "", "", "", false // every table (ListTables): no one table's policy
	}
	if s, ok := strings.CutPrefix(sub, "stream/"); ok {
		label = s
	} else if sub != "" && !strings.HasPrefix(sub, "index/") {
		return "", "", "", false
	}
	return account, table, label, true
}

// arnParts splits a DynamoDB ARN (arn:PARTITION:dynamodb:REGION:ACCOUNT:RESOURCE)
// into its account and resource, without allocating.
func arnParts(arn string) (account, resource string, ok bool) {
	rest, ok := strings.CutPrefix(arn, "arn:")
	if !ok {
		return "", "", false
	}
	_, rest, ok = strings.Cut(rest, ":") // partition
	if !ok {
		return "", "", false
	}
	svc, rest, ok := strings.Cut(rest, ":")
	if !ok || svc != "dynamodb" {
		return "", "", false
	}
	_, rest, ok = strings.Cut(rest, ":") // region
	if !ok {
		return "", "", false
	}
	account, resource, ok = strings.Cut(rest, ":")
	return account, resource, ok
}

// resourcePolicies are the resource-based policies that govern resource
// in namespace ns of account, read through the table cache; nil without a
// table reader, or for a resource of another account (which the engine
// does not resolve in ns).
func (a *Authenticator) resourcePolicies(ctx context.Context, account, ns, resource string) []*policy.Document {
	if a.tables.read == nil {
		return nil
	}
	acct, table, label, ok := resourceTarget(resource)
	if !ok || acct != account {
		return nil
	}
	return a.tables.entry(ctx, a.cfg.Now(), ns, table).policies[label]
}

// decide combines the identity-based decision (ident; root holds every
// permission) and the resource-based one for one check, and returns
// DynamoDB's AccessDeniedException when the request is refused.
// crossAccount says that the resource belongs to another account.
func decide(caller string, root, crossAccount bool, ident, res policy.Decision, chk check) error {
	if root && !crossAccount {
		if res == policy.ExplicitDeny && !policyActions[strings.ToLower(chk.action)] {
			return deniedBy(caller, chk, "with an explicit deny in a resource-based policy")
		}
		return nil
	}
	switch {
	case ident == policy.ExplicitDeny:
		return deniedBy(caller, chk, "with an explicit deny in an identity-based policy")
	case res == policy.ExplicitDeny:
		return deniedBy(caller, chk, "with an explicit deny in a resource-based policy")
	case crossAccount && ident != policy.Allow:
		return deniedBy(caller, chk, "because no identity-based policy allows the "+chk.action+" action")
	case crossAccount && res != policy.Allow:
		return deniedBy(caller, chk, "because no resource-based policy allows the "+chk.action+" action")
	case ident == policy.Allow || res == policy.Allow:
		return nil
	}
	return deniedBy(caller, chk, "because no identity-based policy allows the "+chk.action+" action")
}

func deniedBy(caller string, chk check, why string) error {
	return ddberr.AccessDenied("User: %s is not authorized to perform: %s on resource: %s %s", caller, chk.action, chk.resource, why)
}

// rootTargets decodes of a body only what names the resources of a
// request (checksOf), for the root user.
func rootTargets(body []byte) authzBody {
	var t struct {
		TableName, IndexName, StreamArn, ResourceArn, ShardIterator, Statement string
		TableArn, SourceTableArn, SourceTableName                              string
		ResourcePolicy                                                         *string
		RequestItems                                                           map[string]json.RawMessage
		TransactItems                                                          []map[string]struct{ TableName string }
		Statements, TransactStatements                                         []struct{ Statement string }
	}
	_ = json.Unmarshal(body, &t) // a body the engine cannot read fails there
	b := authzBody{TableName: t.TableName, IndexName: t.IndexName, StreamArn: t.StreamArn, ResourceArn: t.ResourceArn,
		ShardIterator: t.ShardIterator, Statement: t.Statement, ResourcePolicy: t.ResourcePolicy, RequestItems: t.RequestItems,
		Statements: t.Statements, TransactStatements: t.TransactStatements,
		TableArn: t.TableArn, SourceTableArn: t.SourceTableArn, SourceTableName: t.SourceTableName}
	for _, ti := range t.TransactItems {
		m := make(map[string]*txItem, len(ti))
		for kind, it := range ti {
			m[kind] = &txItem{TableName: it.TableName}
		}
		b.TransactItems = append(b.TransactItems, m)
	}
	return b
}

// crossAccountOps are the operations that reach another account's table
// or stream through its ARN; the others (PartiQL, backups, TTL, settings,
// the policy operations themselves) act in the caller's account only
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-iam-actions.html).
var crossAccountOps = map[string]bool{
	"GetItem": true, "PutItem": true, "UpdateItem": true, "DeleteItem": true, "Query": true, "Scan": true,
	"BatchGetItem": true, "BatchWriteItem": true, "TransactGetItems": true, "TransactWriteItems": true,
	"DescribeTable": true, "UpdateTable": true, "DeleteTable": true,
	"TagResource": true, "UntagResource": true, "ListTagsOfResource": true,
	"DescribeStream": true, "GetShardIterator": true, "GetRecords": true,
}

// crossAccountRefused is the refusal of an operation that does not cross
// accounts, on the first resource of another account: no resource-based
// policy can allow it.
func crossAccountRefused(who *principal, c protocol.Caller, op string, checks []check) error {
	caller := who.arn
	if who.root {
		caller = "arn:aws:iam::" + c.Account + ":root"
	}
	for _, chk := range checks {
		if acct, _, _, ok := resourceTarget(chk.resource); ok && acct != c.Account {
			return deniedBy(caller, chk, "because no resource-based policy allows the "+chk.action+" action")
		}
	}
	return nil
}
