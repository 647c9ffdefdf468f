package auth

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"

	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/protocol"
)

// Authorize evaluates the caller's identity policies, and the
// resource-based policies of the tables and streams it touches
// (resourcepolicy.go), for every resource of the request (each table and
// index of a batch or transaction) and returns DynamoDB's
// AccessDeniedException for the first one not allowed. The local mode is
// not subject to policies; the root user only to a resource-based Deny.
// Identity policies are read with the caller's key and cached as long
// (KeyCacheTTL), resource-based policies with the table's key schema.
func (a *Authenticator) Authorize(r *http.Request, c protocol.Caller, service, op string, body []byte) (protocol.Caller, error) {
	if a.cfg.Store == nil {
		return c, nil
	}
	who, ok := c.Identity.(*principal)
	if !ok || who == nil {
		// A caller Authenticate did not name: read its key.
		ck, err := a.activeKey(r.Context(), c.AccessKeyID)
		if err != nil {
			return c, err
		}
		who = ck.who
	}
	if who.root && a.tables.read == nil {
		return c, nil
	}
	if handled, err := a.authorizeSimple(r, c, who, op, body); handled {
		return c, err
	}
	var b authzBody
	if who.root {
		// The root user is subject to resource-based policies only: the
		// resources are all it needs of the body.
		b = rootTargets(body)
	} else {
		_ = json.Unmarshal(body, &b) // a body the engine cannot read fails there
	}
	checks := checksOf(c, op, &b)
	owner, err := resourceOwner(c, checks)
	if err != nil {
		return c, err
	}
	as := c
	if owner != c.Account {
		if !crossAccountOps[op] {
			return c, crossAccountRefused(who, c, op, checks)
		}
		as.Namespace = a.namespace(owner, c.Region, "")
	}
	return as, a.decideAll(r, c, as.Namespace, owner, who, op, &b, checks)
}

// decideAll decides every check of a request on resources of account
// owner, in namespace ns.
func (a *Authenticator) decideAll(r *http.Request, c protocol.Caller, ns, owner string, id *principal, op string, b *authzBody, checks []check) error {
	leadingKeys := a.tables.read != nil && usesKey(id.policies, leadingKeysKey)
	if leadingKeys {
		a.addLeadingKeys(r.Context(), ns, op, b, checks)
	}
	cross := owner != c.Account
	var ctx map[string][]string
	who := policy.Principal{ARN: id.arn, Account: c.Account, Delegated: cross}
	for _, chk := range checks {
		resDocs := a.resourcePolicies(r.Context(), owner, ns, chk.resource)
		if id.root && !cross && resDocs == nil {
			continue // allowed: nothing can deny it
		}
		if ctx == nil {
			ctx = requestContext(r, c, b)
			if id.root {
				who.ARN = "arn:aws:iam::" + c.Account + ":root"
			}
		}
		req := policy.Request{Action: chk.action, Resource: chk.resource, Context: ctx, Principal: who}
		if leadingKeys {
			req.Context = withKey(req.Context, leadingKeysKey, chk.leading, chk.hasLeading)
		}
		attrsKnown := false
		if usesKey(id.policies, attributesKey) || usesKey(resDocs, attributesKey) {
			names, known, present := attributesOf(op, b, &chk)
			attrsKnown = known || !present
			if known {
				req.Context = withKey(req.Context, attributesKey, names, true)
			}
		}
		req.Unsupported = unsupportedFor(leadingKeys, attrsKnown)
		ident := policy.Allow
		if !id.root {
			ident = policy.Evaluate(id.policies, req)
		}
		res := policy.Evaluate(resDocs, req)
		if err := decide(who.ARN, id.root, cross, ident, res, chk); err != nil {
			return err
		}
	}
	return nil
}

// check is one (action, resource) decision of a request. For
// dynamodb:LeadingKeys it keeps the table and index it is about and the
// keys or items it names there.
type check struct {
	action, resource string
	table, index     string
	items            []keyItem
	// leading holds the LeadingKeys values, when hasLeading.
	leading    []string
	hasLeading bool
	// tx is the transaction item of the check, in a transaction.
	tx *txItem
}

// unsupportedFor is the set of DynamoDB's fine-grained condition keys a
// check could not derive: statements conditioned on them fail closed
// (policy.Request.Unsupported). dynamodb:LeadingKeys is derived when the
// authenticator can read key schemas (Config.Tables), dynamodb:Attributes
// when the request names every attribute it reads and writes
// (attributes.go).
func unsupportedFor(leadingKeys, attributes bool) map[string]bool {
	switch {
	case leadingKeys && attributes:
		return nil
	case leadingKeys:
		return unsupportedAttributes
	case attributes:
		return unsupportedLeadingKeys
	}
	return unsupportedBoth
}

var (
	unsupportedBoth        = map[string]bool{leadingKeysKey: true, attributesKey: true}
	unsupportedLeadingKeys = map[string]bool{leadingKeysKey: true}
	unsupportedAttributes  = map[string]bool{attributesKey: true}
)

// authzBody is what authorization reads of a request body, decoded with
// encoding/json as the engine decodes it (same field matching, same
// duplicate-key rule), so both see the same tables.
type authzBody struct {
	TableName   string
	IndexName   string
	StreamArn   string
	ResourceArn string
	// ResourcePolicy is CreateTable's.
	ResourcePolicy         *string
	Select                 string
	ReturnValues           string
	ReturnConsumedCapacity string
	RequestItems           map[string]json.RawMessage
	TransactItems          []map[string]*txItem
	ShardIterator          string
	// Backups, PITR restores, imports and exports name their resources so.
	BackupArn, ImportArn, ExportArn, TableArn string
	SourceTableArn, SourceTableName           string
	TableCreationParameters                   struct{ TableName string }
	// Key, Item and the key conditions name partition key values
	// (dynamodb:LeadingKeys).
	Key, Item                 keyItem
	KeyConditions             map[string]struct{ AttributeValueList []json.RawMessage }
	KeyConditionExpression    string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]json.RawMessage
	// The expressions and legacy parameters name the attributes a request
	// reads or writes (dynamodb:Attributes).
	attrParams
	// Statement, Statements and TransactStatements are PartiQL's.
	Statement          string
	Statements         []struct{ Statement string }
	TransactStatements []struct{ Statement string }
}

// checksOf lists the (action, resource) pairs of a request, as DynamoDB
// authorizes them: batches per table, transactions per item action and
// table, Query and Scan on an index per index ARN, PartiQL statements per
// statement kind and table or index, Streams operations on the stream ARN.
func checksOf(c protocol.Caller, op string, b *authzBody) []check {
	table := func(name string) string {
		return "arn:aws:dynamodb:" + c.Region + ":" + arnAccount(name, c.Account) + ":table/" + tableNameOf(name)
	}
	action := "dynamodb:" + op
	switch op {
	case "ListTables":
		// DynamoDB authorizes and refuses it on every table of the
		// caller's account and region: "... dynamodb:ListTables on
		// resource: arn:aws:dynamodb:us-east-1:123456789012:table/* because
		// no identity-based policy allows ..." (as AWS answers it, quoted in
		// https://github.com/AntonShuvaev/intellij-dynamodb/issues/20).
		return []check{{action: action, resource: "arn:aws:dynamodb:" + c.Region + ":" + c.Account + ":table/*"}}
	case "DescribeLimits", "DescribeEndpoints", "ListStreams", "ListBackups", "ListGlobalTables":
		return []check{{action: action, resource: "*"}}
	case "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction":
		return partiQLChecks(table, b.statementTexts())
	case "DescribeStream", "GetShardIterator":
		return []check{{action: action, resource: streamResource(c.Region, c.Account, b.StreamArn)}}
	case "GetRecords":
		if arn := iteratorStream(b.ShardIterator); arn != "" {
			return []check{{action: action, resource: streamResource(c.Region, c.Account, arn)}}
		}
		return nil
	case "TagResource", "UntagResource", "ListTagsOfResource", "PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy":
		return []check{{action: action, resource: b.ResourceArn}}
	case "DescribeBackup", "DeleteBackup", "RestoreTableFromBackup", "DescribeImport", "DescribeExport",
		"ExportTableToPointInTime", "RestoreTableToPointInTime", "ImportTable", "ListImports", "ListExports":
		return []check{{action: action, resource: jobResource(table, op, b)}}
	case "CreateTable":
		// A policy attached at creation needs PutResourcePolicy too
		// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html#DDB-CreateTable-request-ResourcePolicy).
		out := []check{{action: action, resource: table(b.TableName)}}
		if b.ResourcePolicy != nil {
			out = append(out, check{action: "dynamodb:PutResourcePolicy", resource: table(b.TableName)})
		}
		return out
	case "BatchGetItem", "BatchWriteItem":
		out := make([]check, 0, len(b.RequestItems))
		for name := range b.RequestItems {
			out = append(out, check{action: action, resource: table(name), table: name})
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
				if t == nil {
					t = &txItem{}
				}
				out = append(out, check{action: "dynamodb:" + act, resource: table(t.TableName), table: t.TableName,
					items: []keyItem{t.Key, t.Item}, tx: t})
			}
		}
		return out
	}
	res, index := table(b.TableName), ""
	if b.IndexName != "" && (op == "Query" || op == "Scan") {
		res += "/index/" + b.IndexName
		index = b.IndexName
	}
	return []check{{action: action, resource: res, table: b.TableName, index: index, items: []keyItem{b.Key, b.Item}}}
}

// requestContext is the condition context of a request.
func requestContext(r *http.Request, c protocol.Caller, b *authzBody) map[string][]string {
	ctx := map[string][]string{
		"aws:principalarn":     {c.Principal},
		"aws:principalaccount": {c.Account},
		"aws:requestedregion":  {c.Region},
		"aws:securetransport":  {map[bool]string{true: "true", false: "false"}[r.TLS != nil]},
	}
	// aws:username is an IAM user's name; role sessions have none
	// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-username).
	if _, name, ok := strings.Cut(c.Principal, ":user/"); ok {
		ctx["aws:username"] = []string{name}
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
	if b.ReturnConsumedCapacity != "" {
		ctx["dynamodb:returnconsumedcapacity"] = []string{b.ReturnConsumedCapacity}
	}
	return ctx
}

// AuthorizeAction evaluates the caller's identity policies for one action
// on one resource (e.g. sts:AssumeRole on a role ARN) and returns the
// caller's key; denied is true when no policy allows it or one denies it.
func (a *Authenticator) AuthorizeAction(ctx context.Context, c protocol.Caller, action, resource string) (key AccessKey, denied bool, err error) {
	ck, err := a.activeKey(ctx, c.AccessKeyID)
	if err != nil {
		return AccessKey{}, true, err
	}
	k := ck.key
	if ck.who.root {
		return k, false, nil
	}
	d := policy.Evaluate(ck.who.policies, policy.Request{Action: action, Resource: resource,
		Context: map[string][]string{"aws:principalarn": {c.Principal}, "aws:principalaccount": {c.Account}}})
	return k, d != policy.Allow, nil
}
