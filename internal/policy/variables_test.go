package policy

import "testing"

// TestPolicyVariables: ${key} in Resource and Condition values takes the
// request's value, as in AWS's examples of
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html
// (a user confined to resources named after them, defaults with
// ${key, 'default'}, variables ignored in 2008-10-17 documents) and
// DynamoDB's per-user items example with dynamodb:LeadingKeys of
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html.
func TestPolicyVariables(t *testing.T) {
	bob := map[string][]string{"aws:username": {"bob"}}
	ownTable := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:*:*:table/${aws:username}-*"}}`
	ownItems := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["${aws:username}"]}}}}`
	cases := []struct {
		name   string
		doc    string
		req    Request
		expect Decision
	}{
		{"resource named after the user", ownTable,
			Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:111122223333:table/bob-notes", Context: bob}, Allow},
		{"another user's resource", ownTable,
			Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:111122223333:table/alice-notes", Context: bob}, ImplicitDeny},
		{"variable without a value matches nothing", ownTable,
			Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:111122223333:table/-notes"}, ImplicitDeny},
		{"default value", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:*:*:table/${aws:username, 'shared'}"}}`,
			Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:111122223333:table/shared"}, Allow},
		{"2008-10-17 reads the text literally", `{"Version":"2008-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"arn:aws:dynamodb:*:*:table/${aws:username}"}}`,
			Request{Action: "dynamodb:GetItem", Resource: "arn:aws:dynamodb:us-east-1:111122223333:table/bob", Context: bob}, ImplicitDeny},
		{"own partition key", ownItems,
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:username": {"bob"}, "dynamodb:leadingkeys": {"bob"}}}, Allow},
		{"another partition key", ownItems,
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:username": {"bob"}, "dynamodb:leadingkeys": {"alice"}}}, ImplicitDeny},
		{"escapes", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*","Condition":{"StringEquals":{"aws:username":"a${$}${?}"}}}}`,
			Request{Action: "dynamodb:GetItem", Resource: tableT, Context: map[string][]string{"aws:username": {"a$?"}}}, Allow},
	}
	for _, c := range cases {
		doc, err := Parse([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := Evaluate([]*Document{doc}, c.req); got != c.expect {
			t.Errorf("%s: got %v, want %v", c.name, got, c.expect)
		}
	}
}
