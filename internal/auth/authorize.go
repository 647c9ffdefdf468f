package auth

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/protocol"
)

// Authorize evaluates the caller's identity policies for every resource
// the request touches (each table and index of a batch or transaction)
// and returns DynamoDB's AccessDeniedException for the first one not
// allowed. The root user and the local mode are not subject to policies.
// Policies are read with the caller's key and cached as long (KeyCacheTTL).
func (a *Authenticator) Authorize(r *http.Request, c protocol.Caller, service, op string, body []byte) error {
	if a.cfg.Store == nil {
		return nil
	}
	a.mu.RLock()
	ck, ok := a.keys[c.AccessKeyID]
	a.mu.RUnlock()
	if !ok || !ck.found {
		// The cache started over since Authenticate: read again.
		if _, err := a.accessKey(r.Context(), c.AccessKeyID); err != nil {
			return err
		}
		a.mu.RLock()
		ck = a.keys[c.AccessKeyID]
		a.mu.RUnlock()
	}
	if ck.who.root {
		return nil
	}
	var b authzBody
	_ = json.Unmarshal(body, &b) // a body the engine cannot read fails there
	ctx := requestContext(r, c, &b)
	for _, chk := range checksOf(c, op, &b) {
		req := policy.Request{Action: chk.action, Resource: chk.resource, Context: ctx, Unsupported: unsupportedKeys}
		switch policy.Evaluate(ck.who.policies, req) {
		case policy.Allow:
			continue
		case policy.ExplicitDeny:
			return ddberr.AccessDenied("User: %s is not authorized to perform: %s on resource: %s with an explicit deny in an identity-based policy",
				ck.who.arn, chk.action, chk.resource)
		default:
			return ddberr.AccessDenied("User: %s is not authorized to perform: %s on resource: %s because no identity-based policy allows the %s action",
				ck.who.arn, chk.action, chk.resource, chk.action)
		}
	}
	return nil
}

type check struct{ action, resource string }

// unsupportedKeys are DynamoDB's fine-grained condition keys that
// authorization does not derive (they need the table's key schema and every
// expression's attribute names): statements conditioned on them fail
// closed (policy.Request.Unsupported).
var unsupportedKeys = map[string]bool{"dynamodb:leadingkeys": true, "dynamodb:attributes": true}

// authzBody is what authorization reads of a request body, decoded with
// encoding/json as the engine decodes it (same field matching, same
// duplicate-key rule), so both see the same tables.
type authzBody struct {
	TableName     string
	IndexName     string
	StreamArn     string
	ResourceArn   string
	Select        string
	ReturnValues  string
	RequestItems  map[string]json.RawMessage
	TransactItems []map[string]struct{ TableName string }
}

// checksOf lists the (action, resource) pairs of a request, as DynamoDB
// authorizes them: batches per table, transactions per item action and
// table, Query and Scan on an index per index ARN.
func checksOf(c protocol.Caller, op string, b *authzBody) []check {
	table := func(name string) string {
		return "arn:aws:dynamodb:" + c.Region + ":" + c.Account + ":table/" + name
	}
	action := "dynamodb:" + op
	switch op {
	case "ListTables", "DescribeLimits", "DescribeEndpoints", "ListStreams", "GetRecords", "GetShardIterator",
		"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction", "ListBackups", "ListGlobalTables":
		if b.StreamArn != "" {
			return []check{{action, b.StreamArn}}
		}
		return []check{{action, "*"}}
	case "DescribeStream":
		return []check{{action, b.StreamArn}}
	case "TagResource", "UntagResource", "ListTagsOfResource":
		return []check{{action, b.ResourceArn}}
	case "BatchGetItem", "BatchWriteItem":
		out := make([]check, 0, len(b.RequestItems))
		for name := range b.RequestItems {
			out = append(out, check{action, table(name)})
		}
		return out
	case "TransactGetItems", "TransactWriteItems":
		var out []check
		for _, ti := range b.TransactItems {
			for kind, t := range ti {
				act := map[string]string{"Get": "GetItem", "Put": "PutItem", "Update": "UpdateItem",
					"Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"}[kind]
				if act == "" {
					act = op
				}
				out = append(out, check{"dynamodb:" + act, table(t.TableName)})
			}
		}
		return out
	}
	res := table(b.TableName)
	if b.IndexName != "" && (op == "Query" || op == "Scan") {
		res += "/index/" + b.IndexName
	}
	return []check{{action, res}}
}

// requestContext is the condition context of a request.
func requestContext(r *http.Request, c protocol.Caller, b *authzBody) map[string][]string {
	ctx := map[string][]string{
		"aws:principalarn":     {c.Principal},
		"aws:principalaccount": {c.Account},
		"aws:requestedregion":  {c.Region},
		"aws:securetransport":  {map[bool]string{true: "true", false: "false"}[r.TLS != nil]},
	}
	if i := strings.LastIndex(c.Principal, "/"); i >= 0 {
		ctx["aws:username"] = []string{c.Principal[i+1:]}
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		ctx["aws:sourceip"] = []string{host}
	}
	if b.Select != "" {
		ctx["dynamodb:select"] = []string{b.Select}
	}
	if b.ReturnValues != "" {
		ctx["dynamodb:returnvalues"] = []string{b.ReturnValues}
	}
	return ctx
}

// AuthorizeAction evaluates the caller's identity policies for one action
// on one resource (e.g. sts:AssumeRole on a role ARN) and returns the
// caller's key; denied is true when no policy allows it or one denies it.
func (a *Authenticator) AuthorizeAction(ctx context.Context, c protocol.Caller, action, resource string) (key AccessKey, denied bool, err error) {
	k, err := a.accessKey(ctx, c.AccessKeyID)
	if err != nil {
		return AccessKey{}, true, err
	}
	a.mu.RLock()
	ck := a.keys[c.AccessKeyID]
	a.mu.RUnlock()
	if ck.who.root {
		return k, false, nil
	}
	d := policy.Evaluate(ck.who.policies, policy.Request{Action: action, Resource: resource,
		Context: map[string][]string{"aws:principalarn": {c.Principal}, "aws:principalaccount": {c.Account}}})
	return k, d != policy.Allow, nil
}
