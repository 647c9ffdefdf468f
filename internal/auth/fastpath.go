package auth

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/extenddb/extenddb/internal/policy"
	"github.com/extenddb/extenddb/internal/protocol"
)

// The common request names one table of the caller's own account by name
// (GetItem, PutItem, Query...), is made by the account's root user or by
// a user whose identity policies read nothing of the body but its
// resource, and reaches a table without a resource-based policy that
// could change the answer. authorizeSimple decides it from the body's
// top-level TableName and IndexName alone, found without decoding the
// body into authzBody; any other request is decided by the general path
// (Authorize), which reaches the same decision for these.

// simpleOps are the operations whose only resource is their TableName's
// table (or, for Query and Scan, its IndexName's index): checksOf's
// default case.
var simpleOps = map[string]string{
	"GetItem": "dynamodb:GetItem", "PutItem": "dynamodb:PutItem", "UpdateItem": "dynamodb:UpdateItem",
	"DeleteItem": "dynamodb:DeleteItem", "Query": "dynamodb:Query", "Scan": "dynamodb:Scan",
	"DescribeTable": "dynamodb:DescribeTable",
}

// policyProfile is what authorizeSimple needs to know of a principal's
// identity policies, worked out once when they are read.
type policyProfile struct {
	// bodyFree: no condition key is DynamoDB's (dynamodb:Select,
	// dynamodb:LeadingKeys, dynamodb:Attributes...), so nothing but the
	// resource is read from the body.
	bodyFree bool
	// contextFree: no condition and no policy variable at all, so the
	// request's condition context is never read.
	contextFree bool
}

func profileOf(docs []*policy.Document) policyProfile {
	p := policyProfile{bodyFree: true, contextFree: true}
	for _, d := range docs {
		for i := range d.Statement {
			s := &d.Statement[i]
			if len(s.Condition) > 0 {
				p.contextFree = false
			}
			for _, xs := range [...][]string{s.Resource, s.NotResource} {
				for _, x := range xs {
					if strings.Contains(x, "${") {
						p.contextFree = false
					}
					if strings.Contains(strings.ToLower(x), "${dynamodb:") {
						p.bodyFree = false
					}
				}
			}
			for _, keys := range s.Condition {
				for k := range keys {
					if len(k) >= 9 && strings.EqualFold(k[:9], "dynamodb:") {
						p.bodyFree = false
					}
				}
			}
		}
	}
	return p
}

// authorizeSimple decides the common request (see above); handled is
// false for any other, which the caller decides the general way.
func (a *Authenticator) authorizeSimple(r *http.Request, c protocol.Caller, who *principal, op string, body []byte) (handled bool, err error) {
	action, ok := simpleOps[op]
	if !ok || (!who.root && !who.profile.bodyFree) {
		return false, nil
	}
	table, index, ok := simpleTargets(body)
	if !ok || !plainTableName(table) {
		return false, nil // an ARN, or a name the engine refuses
	}
	if a.tables.read != nil {
		docs := a.tables.entry(r.Context(), a.cfg.Now(), c.Namespace, table).policies[""]
		if who.root {
			return !hasDeny(docs), nil // only a resource-based Deny stops the root user
		}
		if docs != nil {
			return false, nil
		}
	}
	res := "arn:aws:dynamodb:" + c.Region + ":" + c.Account + ":table/" + table
	if index != "" && (op == "Query" || op == "Scan") {
		res += "/index/" + index
	}
	req := policy.Request{Action: action, Resource: res, Unsupported: unsupportedBoth,
		Principal: policy.Principal{ARN: who.arn, Account: c.Account}}
	if !who.profile.contextFree {
		req.Context = requestContext(r, c, &authzBody{})
	}
	ident := policy.Evaluate(who.policies, req)
	return true, decide(who.arn, false, false, ident, policy.ImplicitDeny, check{action: action, resource: res, table: table, index: index})
}

// plainTableName reports whether name is made of the characters of
// DynamoDB's table names (a-z, A-Z, 0-9, '_', '-', '.'), so that it names
// one table of the caller's account and nothing else.
func plainTableName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return name != ""
}

// hasDeny reports whether a statement of docs is a Deny.
func hasDeny(docs []*policy.Document) bool {
	for _, d := range docs {
		for i := range d.Statement {
			if d.Statement[i].Effect != "Allow" {
				return true
			}
		}
	}
	return false
}

// simpleTargets returns the top-level TableName and IndexName of a JSON
// object as encoding/json decodes them into authzBody (case-insensitive
// names, the last of duplicates), when the body is plain enough to read
// them without decoding it: valid JSON whose top-level names are ASCII
// without escapes and whose TableName and IndexName, when present, are
// valid UTF-8 strings without escapes. ok is false otherwise.
func simpleTargets(body []byte) (table, index string, ok bool) {
	if !json.Valid(body) {
		return "", "", false
	}
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return "", "", false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return "", "", true
	}
	for i < len(body) {
		end, plain := stringEnd(body, i)
		name := body[i+1 : end-1]
		if !plain || !isASCII(name) {
			return "", "", false
		}
		i = skipSpace(body, skipSpace(body, end)+1) // past the colon
		isTable, isIndex := bytes.EqualFold(name, tableNameField), bytes.EqualFold(name, indexNameField)
		if isTable || isIndex {
			if body[i] != '"' {
				return "", "", false
			}
			start := i + 1
			// encoding/json turns invalid UTF-8 into U+FFFD.
			if i, plain = stringEnd(body, i); !plain || !utf8.Valid(body[start:i-1]) {
				return "", "", false
			}
			if isTable {
				table = string(body[start : i-1])
			} else {
				index = string(body[start : i-1])
			}
		} else {
			i = skipValue(body, i)
		}
		i = skipSpace(body, i)
		if i >= len(body) || body[i] != ',' {
			return table, index, true // the closing brace: the body is valid
		}
		i = skipSpace(body, i+1)
	}
	return "", "", false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

var tableNameField, indexNameField = []byte("TableName"), []byte("IndexName")

// stringEnd returns the index just past the JSON string starting at b[i]
// (a quote) of a valid document; plain is false when it holds an escape.
func stringEnd(b []byte, i int) (end int, plain bool) {
	plain = true
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			plain = false
			j++
		case '"':
			return j + 1, plain
		}
	}
	return len(b), false
}

// skipValue returns the index just past the JSON value at b[i] of a valid
// document (its trailing spaces included for a number or literal).
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i, _ = stringEnd(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

func isASCII(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
