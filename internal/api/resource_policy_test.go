package api

import (
	"strconv"
	"strings"
	"testing"
)

const hashArn = "arn:aws:dynamodb:us-east-1:000000000000:table/hash"

func rbp(action string) string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"000000000000"},"Action":["` +
		action + `"],"Resource":"*"}]}`
}

// revisionOf calls op and returns the RevisionId it answers.
func revisionOf(t *testing.T, e *Engine, op, body string) string {
	t.Helper()
	got, errText := call(e, op, body)
	if errText != "" {
		t.Fatalf("%s %s: %s", op, body, errText)
	}
	_, rest, ok := strings.Cut(got, `"RevisionId":"`)
	rev, _, _ := strings.Cut(rest, `"`)
	if !ok || rev == "" {
		t.Fatalf("%s: no RevisionId in %s", op, got)
	}
	return rev
}

func putBody(arn, doc, expected string) string {
	b := `{"ResourceArn":"` + arn + `","Policy":` + strconv.Quote(doc)
	if expected != "" {
		b += `,"ExpectedRevisionId":"` + expected + `"`
	}
	return b + `}`
}

// TestResourcePolicyRevisions: Put/Get/DeleteResourcePolicy and their
// revision IDs, with the answers moto's tests recorded against DynamoDB
// (marked aws_verified):
// https://github.com/getmoto/moto/blob/master/tests/test_dynamodb/test_dynamodb_resource_policy.py
// Shapes: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutResourcePolicy.html
func TestResourcePolicyRevisions(t *testing.T) {
	e := itemEngine(t)
	wantCallErr(t, e, "GetResourcePolicy", `{"ResourceArn":"`+hashArn+`"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: "+hashArn)
	wantCallErr(t, e, "DeleteResourcePolicy", `{"ResourceArn":"`+hashArn+`"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: "+hashArn)

	r1 := revisionOf(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:*"), noPolicyRevision))
	wantCall(t, e, "GetResourcePolicy", `{"ResourceArn":"`+hashArn+`"}`,
		`{"Policy":`+strconv.Quote(rbp("dynamodb:*"))+`,"RevisionId":"`+r1+`"}`)
	// The same document again is a no-op: same revision.
	if r := revisionOf(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:*"), "")); r != r1 {
		t.Fatalf("same policy again: revision %s, want %s", r, r1)
	}
	wantCallErr(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:GetItem"), noPolicyRevision),
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table hash, but a policy exists with revision id "+r1+".")
	r2 := revisionOf(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:PutItem"), r1))
	n1, _ := strconv.ParseInt(r1, 10, 64)
	n2, _ := strconv.ParseInt(r2, 10, 64)
	if n2 <= n1 {
		t.Fatalf("revisions %s then %s: want increasing numbers", r1, r2)
	}
	wantCallErr(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:GetItem"), r1),
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id "+r1+", but the policy associated to target table hash has revision id "+r2+".")
	wantCallErr(t, e, "DeleteResourcePolicy", `{"ResourceArn":"`+hashArn+`","ExpectedRevisionId":"unknown"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id unknown, but the policy associated to target table hash has revision id "+r2+".")
	wantCall(t, e, "DeleteResourcePolicy", `{"ResourceArn":"`+hashArn+`","ExpectedRevisionId":"`+r2+`"}`, `{"RevisionId":"`+r2+`"}`)
	wantCallErr(t, e, "GetResourcePolicy", `{"ResourceArn":"`+hashArn+`"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: "+hashArn)

	// A table that does not exist, in DynamoDB's words.
	for _, op := range []string{"PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy"} {
		wantCallErr(t, e, op, putBody(hashArn+"_", rbp("dynamodb:*"), ""),
			"ResourceNotFoundException: Requested resource not found: Table: hash_ not found")
	}
	// A policy dies with its table.
	revisionOf(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:*"), ""))
	mustServe(t, e, "DeleteTable", `{"TableName":"hash"}`)
	mustServe(t, e, "CreateTable", `{"TableName":"hash","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	wantCallErr(t, e, "GetResourcePolicy", `{"ResourceArn":"`+hashArn+`"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: "+hashArn)
}

// TestResourcePolicyOnCreateTableAndStream: CreateTable's ResourcePolicy
// is attached to the new table
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html#DDB-CreateTable-request-ResourcePolicy),
// and a stream has a policy of its own, attachable only once the stream
// exists (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-considerations.html).
func TestResourcePolicyOnCreateTableAndStream(t *testing.T) {
	e := itemEngine(t)
	mustServe(t, e, "CreateTable", `{"TableName":"withp","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},
		"ResourcePolicy":`+strconv.Quote(rbp("dynamodb:GetItem"))+`}`)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/withp"
	got, errText := call(e, "GetResourcePolicy", `{"ResourceArn":"`+arn+`"}`)
	if errText != "" || !strings.Contains(got, `"RevisionId":"`) || !strings.Contains(got, `dynamodb:GetItem`) {
		t.Fatalf("GetResourcePolicy after CreateTable: %s %s", got, errText)
	}
	desc, _ := call(e, "DescribeTable", `{"TableName":"withp"}`)
	_, rest, _ := strings.Cut(desc, `"LatestStreamArn":"`)
	stream, _, _ := strings.Cut(rest, `"`)
	wantCallErr(t, e, "GetResourcePolicy", `{"ResourceArn":"`+stream+`"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: "+stream)
	rev := revisionOf(t, e, "PutResourcePolicy", putBody(stream, rbp("dynamodb:GetRecords"), ""))
	wantCall(t, e, "GetResourcePolicy", `{"ResourceArn":"`+stream+`"}`,
		`{"Policy":`+strconv.Quote(rbp("dynamodb:GetRecords"))+`,"RevisionId":"`+rev+`"}`)
	// The table's policy is unchanged by the stream's.
	if again, _ := call(e, "GetResourcePolicy", `{"ResourceArn":"`+arn+`"}`); again != got {
		t.Fatalf("table policy changed: %s, was %s", again, got)
	}
	other := arn + "/stream/2000-01-01T00:00:00.000"
	wantCallErr(t, e, "PutResourcePolicy", putBody(other, rbp("dynamodb:GetRecords"), ""),
		"ResourceNotFoundException: Requested resource not found: Stream: "+other+" not found")
	// A bad document in CreateTable creates nothing.
	wantCallErr(t, e, "CreateTable", `{"TableName":"badp","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"ResourcePolicy":`+strconv.Quote(rbp("dynamodb:ListStreams"))+`}`,
		`ValidationException: One or more parameter values were invalid: Invalid policy document: The following action names are invalid: "dynamodb:ListStreams"`)
	wantCallErr(t, e, "DescribeTable", `{"TableName":"badp"}`, "ResourceNotFoundException: Requested resource not found: Table: badp not found")
}

// TestResourcePolicyValidation: member constraints, ARNs and documents.
// The action-name text is DynamoDB's as aws-controllers-k8s quotes it
// (https://github.com/aws-controllers-k8s/dynamodb-controller/pull/176);
// the size limit counts whitespace
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-considerations.html).
func TestResourcePolicyValidation(t *testing.T) {
	e := itemEngine(t)
	wantCallErr(t, e, "PutResourcePolicy", `{}`,
		"ValidationException: 2 validation errors detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null; Value null at 'policy' failed to satisfy constraint: Member must not be null")
	wantCallErr(t, e, "GetResourcePolicy", `{}`,
		"ValidationException: 1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null")
	wantCallErr(t, e, "PutResourcePolicy", putBody("hash", rbp("dynamodb:*"), ""), "ValidationException: ARNs must start with 'arn:'")
	wantCallErr(t, e, "GetResourcePolicy", `{"ResourceArn":"`+hashArn+`/index/gsi"}`,
		"ValidationException: One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource "+hashArn+"/index/gsi")
	big := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}` +
		strings.Repeat(" ", maxResourcePolicyBytes)
	got, errText := call(e, "PutResourcePolicy", putBody(hashArn, big, ""))
	if !strings.HasPrefix(errText, "ValidationException: One or more parameter values were invalid: Invalid policy document: The policy document exceeds the maximum size of 20 KB") {
		t.Fatalf("20 KB + 1: %s %s", got, errText)
	}
	for doc, want := range map[string]string{
		`{"Statement":[{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}]}`:                                  "Statement 1 has no Principal",
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":["dynamodb:GetItem","s3:GetObject"],"Resource":"*"}]}`: `The following action names are invalid: "s3:GetObject"`,
		// Actions on backups and imports, and CreateTable, are not
		// supported in resource-based policies
		// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-iam-actions.html).
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":["dynamodb:CreateTable","dynamodb:RestoreTableFromBackup"],"Resource":"*"}]}`: `The following action names are invalid: "dynamodb:CreateTable", "dynamodb:RestoreTableFromBackup"`,
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"alice"},"Action":"dynamodb:GetItem","Resource":"*"}]}`:                                                "policy Statement 1: invalid principal: alice",
		`{"Statement":`: "policy document is not valid JSON",
		// A misspelt element is refused, not ignored: read as absent, a
		// misspelt Condition would make the Allow unconditional.
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"dynamodb:GetItem","Resource":"*","Conditon":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`: `policy Statement 1: unknown element "Conditon"`,
		// Block Public Access: everyone, without a restricting condition.
		`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*"}]}`:                 "Statement 1 grants public access",
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:GetItem","Resource":"*"}]}`:         "Statement 1 grants public access",
		`{"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"111122223333"},"Action":"dynamodb:*","Resource":"*"}]}`: "Statement 1 grants public access",
	} {
		_, errText := call(e, "PutResourcePolicy", putBody(hashArn, doc, ""))
		if !strings.HasPrefix(errText, "ValidationException: One or more parameter values were invalid: Invalid policy document: "+want) {
			t.Errorf("%s: %s, want %s", doc, errText, want)
		}
	}
	wantCallErr(t, e, "GetResourcePolicy", `{"ResourceArn":"`+hashArn+`"}`,
		"PolicyNotFoundException: Resource-based policy not found for the provided ResourceArn: "+hashArn)
	// Wildcards that name table actions are accepted, and so is everyone
	// restricted to an account by a condition, or denied.
	revisionOf(t, e, "PutResourcePolicy", putBody(hashArn, rbp("dynamodb:Get*"), ""))
	revisionOf(t, e, "PutResourcePolicy", putBody(hashArn, `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"dynamodb:GetItem","Resource":"*",
		"Condition":{"StringEquals":{"aws:PrincipalAccount":"111122223333"}}},{"Effect":"Deny","Principal":"*","Action":"dynamodb:DeleteItem","Resource":"*"}]}`, ""))
}
