package policy

import "testing"

// TestEvaluatePrincipal: statements of resource-based policies apply to
// the principals they name
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html):
// "*" is everyone; an account ID and its root ARN name the account,
// which in an Allow grants its root user, or delegates to the account
// when the caller comes from another account
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html);
// a role names its sessions; NotPrincipal names everyone else.
func TestEvaluatePrincipal(t *testing.T) {
	alice := Principal{ARN: "arn:aws:iam::111122223333:user/alice", Account: "111122223333"}
	root := Principal{ARN: "arn:aws:iam::111122223333:root", Account: "111122223333"}
	bob := Principal{ARN: "arn:aws:iam::444455556666:user/bob", Account: "444455556666", Delegated: true}
	session := Principal{ARN: "arn:aws:sts::111122223333:assumed-role/reader/s1", Account: "111122223333"}
	doc := func(effect, principal string) string {
		return `{"Version":"2012-10-17","Statement":{"Effect":"` + effect + `","Principal":` + principal +
			`,"Action":"dynamodb:GetItem","Resource":"` + tableT + `"}}`
	}
	cases := []struct {
		name string
		doc  string
		who  Principal
		want Decision
	}{
		{"user ARN names the user", doc("Allow", `{"AWS":"arn:aws:iam::111122223333:user/alice"}`), alice, Allow},
		{"user ARN names no one else", doc("Allow", `{"AWS":"arn:aws:iam::111122223333:user/alice"}`), root, ImplicitDeny},
		{"star names everyone", doc("Allow", `"*"`), bob, Allow},
		{"AWS star names everyone", doc("Allow", `{"AWS":["*"]}`), alice, Allow},
		{"account ID grants its root", doc("Allow", `{"AWS":"111122223333"}`), root, Allow},
		{"account ID does not grant its users by itself", doc("Allow", `{"AWS":"111122223333"}`), alice, ImplicitDeny},
		{"account root ARN delegates to another account", doc("Allow", `{"AWS":"arn:aws:iam::444455556666:root"}`), bob, Allow},
		{"other account is not named", doc("Allow", `{"AWS":"111122223333"}`), bob, ImplicitDeny},
		{"deny naming the account hits its users", doc("Deny", `{"AWS":"111122223333"}`), alice, ExplicitDeny},
		{"role names its sessions", doc("Allow", `{"AWS":"arn:aws:iam::111122223333:role/app/reader"}`), session, Allow},
		{"other role does not", doc("Allow", `{"AWS":"arn:aws:iam::111122223333:role/writer"}`), session, ImplicitDeny},
		{"NotPrincipal deny spares the named", doc("Deny", `{"AWS":"arn:aws:iam::111122223333:user/alice"}`), alice, ImplicitDeny},
		{"service principal names no caller", doc("Allow", `{"Service":"replication.dynamodb.amazonaws.com"}`), alice, ImplicitDeny},
	}
	cases[11].doc = `{"Statement":{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"dynamodb:*","Resource":"*"}}`
	for _, c := range cases {
		d, err := Parse([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := Evaluate([]*Document{d}, Request{Action: "dynamodb:GetItem", Resource: tableT, Principal: c.who})
		if got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// NotPrincipal deny hits everyone else.
	d, _ := Parse([]byte(cases[11].doc))
	if got := Evaluate([]*Document{d}, Request{Action: "dynamodb:GetItem", Resource: tableT, Principal: root}); got != ExplicitDeny {
		t.Errorf("NotPrincipal deny on another principal: %v", got)
	}
	for _, bad := range []string{`"alice"`, `{"AWS":"alice"}`, `{}`, `{"Federated":"cognito-identity.amazonaws.com"}`} {
		if _, err := Parse([]byte(doc("Allow", bad))); err == nil {
			t.Errorf("Principal %s: parsed", bad)
		}
	}
}
