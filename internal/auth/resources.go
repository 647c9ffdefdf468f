package auth

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/partiql"
	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/protocol"
)

// partiQLActions maps a statement's kind to the IAM action DynamoDB checks
// for it on the statement's table or index
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-iam.html).
// EXISTS, a condition check of ExecuteTransaction, reads the item, so it is
// checked as a select.
var partiQLActions = map[partiql.Kind]string{
	partiql.Select: "dynamodb:PartiQLSelect",
	partiql.Insert: "dynamodb:PartiQLInsert",
	partiql.Update: "dynamodb:PartiQLUpdate",
	partiql.Delete: "dynamodb:PartiQLDelete",
	partiql.Exists: "dynamodb:PartiQLSelect",
}

// partiQLChecks lists one (action, resource) pair per statement: the PartiQL
// action of its kind on its table's ARN, or on the index's ARN for a SELECT
// from "table"."index". A statement that does not parse touches nothing:
// the engine refuses it with its ValidationException.
func partiQLChecks(table func(string) string, stmts []string) []check {
	out := make([]check, 0, len(stmts))
	for _, src := range stmts {
		st, err := partiql.ParseCached(src)
		if err != nil || st == nil {
			continue
		}
		res := table(st.Table)
		if st.Index != "" {
			res += "/index/" + st.Index
		}
		out = append(out, check{action: partiQLActions[st.Kind], resource: res})
	}
	return out
}

// statementTexts are the statements of ExecuteStatement,
// BatchExecuteStatement and ExecuteTransaction bodies.
func (b *authzBody) statementTexts() []string {
	var out []string
	if b.Statement != "" {
		out = append(out, b.Statement)
	}
	for _, s := range b.Statements {
		out = append(out, s.Statement)
	}
	for _, s := range b.TransactStatements {
		out = append(out, s.Statement)
	}
	return out
}

// iteratorStream is the stream ARN a ShardIterator was issued for (the
// iterator is the base64url of a JSON object whose "a" is the stream ARN,
// as internal/api encodes it), or "" when it is not one.
func iteratorStream(it string) string {
	raw, err := base64.RawURLEncoding.DecodeString(it)
	if err != nil {
		return ""
	}
	var v struct {
		Arn string `json:"a"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v.Arn
}

// tableNameOf is the table name a TableName parameter names: the name
// itself, or NAME of a table ARN (arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME),
// which the engine resolves within the namespace the request runs in (the
// caller's, or the ARN's account's for cross-account access) as it does a
// name, so that a policy on the table decides whichever form is sent.
func tableNameOf(s string) string {
	if !strings.HasPrefix(s, "arn:") {
		return s
	}
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" {
		return s
	}
	if name, ok := strings.CutPrefix(parts[5], "table/"); ok && name != "" && !strings.Contains(name, "/") {
		return name
	}
	return s
}

// streamResource is the stream ARN a request is authorized on: the table
// and label of arn in the caller's region and in the account arn names
// (the caller's when it names none), where the request runs (the engine
// looks the stream up in the request's namespace whatever region arn
// names), so that a policy on the stream's ARN cannot be sidestepped by
// naming another. An ARN that is not a stream's is returned as it is (the
// engine refuses it).
func streamResource(region, account, arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return arn
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return arn
	}
	name, label, ok := strings.Cut(rest, "/stream/")
	if !ok || name == "" || label == "" || strings.Contains(name, "/") {
		return arn
	}
	return "arn:aws:dynamodb:" + region + ":" + arnAccount(arn, account) + ":table/" + name + "/stream/" + label
}

// arnAccount is the account a DynamoDB ARN names when it is a 12-digit
// account ID, else def (a table name, or an ARN the engine refuses).
func arnAccount(arn, def string) string {
	account, _, ok := arnParts(arn)
	if !ok || !policy.IsAccountID(account) {
		return def
	}
	return account
}

// resourceOwner is the account whose resources a request names: the
// caller's, or the one other account all of its table and stream
// resources belong to (cross-account access). A request naming
// resources of several accounts is refused: it runs in one namespace.
func resourceOwner(c protocol.Caller, checks []check) (string, error) {
	owner := c.Account
	for _, chk := range checks {
		acct, _, _, ok := resourceTarget(chk.resource)
		if !ok || acct == c.Account || !policy.IsAccountID(acct) {
			continue
		}
		if owner != c.Account && owner != acct {
			return "", ddberr.Validation("One or more parameter values were invalid: a request may name the tables of one other account only, found %s and %s", owner, acct)
		}
		owner = acct
	}
	for _, chk := range checks {
		if acct, _, _, ok := resourceTarget(chk.resource); owner != c.Account && ok && acct == c.Account {
			return "", ddberr.Validation("One or more parameter values were invalid: a request may not name tables of its own account and of account %s", owner)
		}
	}
	return owner, nil
}

// jobResource is the resource of an operation on backups, imports and
// exports, as the Service Authorization Reference lists them
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html):
// the backup ARN for DescribeBackup, DeleteBackup and
// RestoreTableFromBackup, the import or export ARN for DescribeImport and
// DescribeExport, the source table for ExportTableToPointInTime and
// RestoreTableToPointInTime, the table to create for ImportTable, and "*"
// for the lists.
func jobResource(table func(string) string, op string, b *authzBody) string {
	switch op {
	case "DescribeBackup", "DeleteBackup", "RestoreTableFromBackup":
		return b.BackupArn
	case "DescribeImport":
		return b.ImportArn
	case "DescribeExport":
		return b.ExportArn
	case "ExportTableToPointInTime":
		return b.TableArn
	case "RestoreTableToPointInTime":
		if b.SourceTableArn != "" {
			return b.SourceTableArn
		}
		return table(b.SourceTableName)
	case "ImportTable":
		return table(b.TableCreationParameters.TableName)
	}
	return "*"
}
