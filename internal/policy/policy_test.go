package policy

import (
	"strings"
	"testing"
)

const tableT = "arn:aws:dynamodb:us-east-1:111122223333:table/T"

// TestEvaluate: IAM's evaluation logic on cases from AWS's documentation.
// Pages: reference_policies_evaluation-logic.html (explicit deny wins,
// implicit deny), reference_policies_elements_notaction.html and
// _notresource.html, reference_policies_examples_aws_deny-ip.html
// (aws:SourceIp), and DynamoDB's
// specifying-conditions.html (dynamodb:Attributes, dynamodb:Select,
// dynamodb:ReturnValues with ForAllValues and StringEqualsIfExists).
func TestEvaluate(t *testing.T) {
	cases := []struct {
		name   string
		docs   []string
		req    Request
		expect Decision
	}{
		{"no policy: implicit deny", nil, Request{Action: "dynamodb:GetItem", Resource: tableT}, ImplicitDeny},
		{"allow on the table",
			[]string{`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"` + tableT + `"}}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT}, Allow},
		{"other action is not allowed",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}}`},
			Request{Action: "dynamodb:PutItem", Resource: tableT}, ImplicitDeny},
		{"explicit deny in another policy wins",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`,
				`{"Statement":{"Effect":"Deny","Action":"dynamodb:DeleteTable","Resource":"*"}}`},
			Request{Action: "dynamodb:DeleteTable", Resource: tableT}, ExplicitDeny},
		{"action wildcard, case-insensitive action",
			[]string{`{"Statement":{"Effect":"Allow","Action":["dynamodb:Get*","dynamodb:Query"],"Resource":"*"}}`},
			Request{Action: "DynamoDB:getitem", Resource: tableT}, Allow},
		{"resource wildcard is case-sensitive",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:*:111122223333:table/t*"}}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT}, ImplicitDeny},
		{"index resource needs table/T/index/*",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:Query","Resource":"` + tableT + `"}}`},
			Request{Action: "dynamodb:Query", Resource: tableT + "/index/ByDate"}, ImplicitDeny},
		{"index resource wildcard",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:Query","Resource":["` + tableT + `","` + tableT + `/index/*"]}}`},
			Request{Action: "dynamodb:Query", Resource: tableT + "/index/ByDate"}, Allow},
		{"NotAction allows everything else",
			[]string{`{"Statement":{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}}`},
			Request{Action: "dynamodb:PutItem", Resource: tableT}, Allow},
		{"NotAction excludes what it names",
			[]string{`{"Statement":{"Effect":"Allow","NotAction":"dynamodb:Delete*","Resource":"*"}}`},
			Request{Action: "dynamodb:DeleteItem", Resource: tableT}, ImplicitDeny},
		{"NotResource deny leaves the named resource allowed",
			[]string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},{"Effect":"Deny","Action":"dynamodb:*","NotResource":"` + tableT + `"}]}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT}, Allow},
		{"NotResource deny hits other resources",
			[]string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},{"Effect":"Deny","Action":"dynamodb:*","NotResource":"` + tableT + `"}]}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT + "2"}, ExplicitDeny},
		{"deny outside an IP range",
			[]string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},{"Effect":"Deny","Action":"*","Resource":"*","Condition":{"NotIpAddress":{"aws:SourceIp":["192.0.2.0/24","203.0.113.0/24"]}}}]}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:sourceip": {"198.51.100.7"}}}, ExplicitDeny},
		{"inside the IP range",
			[]string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},{"Effect":"Deny","Action":"*","Resource":"*","Condition":{"NotIpAddress":{"aws:SourceIp":["192.0.2.0/24","203.0.113.0/24"]}}}]}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:sourceip": {"203.0.113.9"}}}, Allow},
		{"Select must be SPECIFIC_ATTRIBUTES",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:Query","Resource":"*","Condition":{"StringEquals":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES"}}}}`},
			Request{Action: "dynamodb:Query", Resource: tableT, Context: map[string][]string{"dynamodb:select": {"ALL_ATTRIBUTES"}}}, ImplicitDeny},
		{"Select absent fails StringEquals",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:Query","Resource":"*","Condition":{"StringEquals":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES"}}}}`},
			Request{Action: "dynamodb:Query", Resource: tableT}, ImplicitDeny},
		{"ReturnValues IfExists: absent passes",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:UpdateItem","Resource":"*","Condition":{"StringEqualsIfExists":{"dynamodb:ReturnValues":["NONE","UPDATED_OLD","UPDATED_NEW"]}}}}`},
			Request{Action: "dynamodb:UpdateItem", Resource: tableT}, Allow},
		{"ReturnValues IfExists: ALL_OLD fails",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:UpdateItem","Resource":"*","Condition":{"StringEqualsIfExists":{"dynamodb:ReturnValues":["NONE","UPDATED_OLD","UPDATED_NEW"]}}}}`},
			Request{Action: "dynamodb:UpdateItem", Resource: tableT, Context: map[string][]string{"dynamodb:returnvalues": {"ALL_OLD"}}}, ImplicitDeny},
		{"ForAllValues Attributes: subset allowed",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["UserId","TopScore"]}}}}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"dynamodb:attributes": {"TopScore"}}}, Allow},
		{"ForAllValues Attributes: an extra attribute is denied",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["UserId","TopScore"]}}}}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"dynamodb:attributes": {"TopScore", "Secret"}}}, ImplicitDeny},
		{"ForAnyValue LeadingKeys",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAnyValue:StringLike":{"dynamodb:LeadingKeys":["user-*"]}}}}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"dynamodb:leadingkeys": {"admin", "user-7"}}}, Allow},
		{"Null: key must be absent",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:Scan","Resource":"*","Condition":{"Null":{"dynamodb:Select":"true"}}}}`},
			Request{Action: "dynamodb:Scan", Resource: tableT, Context: map[string][]string{"dynamodb:select": {"COUNT"}}}, ImplicitDeny},
		{"an Allow on a key the caller cannot supply fails closed",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["u1"]}}}}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Unsupported: map[string]bool{"dynamodb:leadingkeys": true}}, ImplicitDeny},
		{"a Deny on a key the caller cannot supply applies",
			[]string{`{"Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"},{"Effect":"Deny","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAnyValue:StringEquals":{"dynamodb:Attributes":["secret"]}}}]}`},
			Request{Action: "dynamodb:GetItem", Resource: tableT, Unsupported: map[string]bool{"dynamodb:attributes": true}}, ExplicitDeny},
		{"condition keys are case-insensitive",
			[]string{`{"Statement":{"Effect":"Allow","Action":"dynamodb:Scan","Resource":"*","Condition":{"StringEquals":{"DYNAMODB:SELECT":"COUNT"}}}}`},
			Request{Action: "dynamodb:Scan", Resource: tableT, Context: map[string][]string{"dynamodb:select": {"COUNT"}}}, Allow},
	}
	for _, c := range cases {
		var docs []*Document
		for _, d := range c.docs {
			doc, err := Parse([]byte(d))
			if err != nil {
				t.Fatalf("%s: parse %s: %v", c.name, d, err)
			}
			docs = append(docs, doc)
		}
		if got := Evaluate(docs, c.req); got != c.expect {
			t.Errorf("%s: got %v, want %v", c.name, got, c.expect)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, d := range []string{
		``, `[]`, `{"Version":"2013-01-01","Statement":[]}`, `{"Statement":{"Effect":"Maybe","Action":"*","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Resource":"*"}}`, `{"Statement":{"Effect":"Allow","Action":"*","NotAction":"x","Resource":"*"}}`,
		`{"Statement":{"Effect":"Allow","Action":"*"}}`, `{"Statement":{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"Fancy":{"k":"v"}}}}`,
		`{"Statement":{"Effect":"Allow","Action":{"a":1},"Resource":"*"}}`, `{"Version":"2012-10-17"}`,
	} {
		if _, err := Parse([]byte(d)); err == nil {
			t.Errorf("%s: parsed", d)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		p, v string
		want bool
	}{{"*", "", true}, {"a*c", "abbbc", true}, {"a?c", "abc", true}, {"a?c", "ac", false}, {"*b*", "abc", true}, {"a*", "b", false}, {"**x", "yx", true}} {
		if Match(c.p, c.v) != c.want {
			t.Errorf("Match(%q, %q) != %v", c.p, c.v, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["dynamodb:*"],"Resource":"*","Condition":{"ForAllValues:StringLike":{"dynamodb:Attributes":["a*"]}}}]}`))
	f.Add([]byte(`{"Statement":{"Effect":"Deny","NotAction":"x","NotResource":["*"],"Condition":{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			return
		}
		Evaluate([]*Document{d}, Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:sourceip": {"10.1.2.3"}, "dynamodb:attributes": {"a", "b"}}})
	})
}

// TestParseRefusesUnknownElements: IAM's grammar names every element of a
// document and of a statement, case-sensitively, and refuses others
// ("Syntax errors in policy", MalformedPolicyDocument; see
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html).
// A misspelt Condition read as absent would turn a conditional Allow into
// an unconditional one.
func TestParseRefusesUnknownElements(t *testing.T) {
	for _, doc := range []string{
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Conditon":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`,
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}}`,
		`{"Version":"2012-10-17","Statement":[{"effect":"Deny","Action":"dynamodb:*","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statements":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}],"Extra":1}`,
		`{"Version":"2012-10-17","Statement":["Allow"]}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%s) = nil error, want a refusal", doc)
		}
	}
	ok := `{"Version":"2012-10-17","Id":"p1","Statement":[{"Sid":"s","Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*",` +
		`"Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}`
	d, err := Parse([]byte(ok))
	if err != nil {
		t.Fatalf("Parse(%s): %v", ok, err)
	}
	req := Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:sourceip": {"192.0.2.1"}}}
	if got := Evaluate([]*Document{d}, req); got != ImplicitDeny {
		t.Errorf("Evaluate outside the range = %v, want ImplicitDeny", got)
	}
}

// TestPrincipalWildcardsRefused: IAM does not match part of a principal's
// ARN with a wildcard ("You cannot use a wildcard to match part of a
// principal name or ARN",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html).
// Read literally, a Deny naming arn:aws:iam::ACCOUNT:user/* would deny no
// one, so such a document is refused; "*" alone stays valid.
func TestPrincipalWildcardsRefused(t *testing.T) {
	for _, p := range []string{`{"AWS":"arn:aws:iam::111122223333:user/*"}`, `{"AWS":["111122223333","arn:aws:iam::11112222333?:root"]}`,
		`{"AWS":"arn:aws:sts::111122223333:assumed-role/ci/*"}`} {
		doc := `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":` + p + `,"Action":"dynamodb:*","Resource":"*"}}`
		_, err := Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), "invalid principal") {
			t.Errorf("Principal %s: %v, want invalid principal", p, err)
		}
	}
	for _, p := range []string{`"*"`, `{"AWS":"*"}`, `{"AWS":"arn:aws:iam::111122223333:user/alice"}`} {
		doc := `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Principal":` + p + `,"Action":"dynamodb:*","Resource":"*"}}`
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("Principal %s: %v", p, err)
		}
	}
}
