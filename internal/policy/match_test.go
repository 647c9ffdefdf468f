package policy

import "testing"

// TestActionMatchIgnoresCase: action names and their patterns compare
// without regard to case, wildcards included
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_action.html:
// "action names are not case sensitive"); resources compare exactly.
func TestActionMatchIgnoresCase(t *testing.T) {
	cases := []struct {
		pattern, v string
		fold, want bool
	}{
		{"DynamoDB:getitem", "dynamodb:GetItem", true, true},
		{"dynamodb:Get*", "DYNAMODB:GETITEM", true, true},
		{"dynamodb:?etItem", "dynamodb:GETITEM", true, true},
		{"dynamodb:Query", "dynamodb:GetItem", true, false},
		{"dynamodb:*Item", "dynamodb:Scan", true, false},
		{"arn:aws:dynamodb:*:*:table/A", "arn:aws:dynamodb:us-east-1:1:table/a", false, false},
		{"arn:aws:dynamodb:*:*:table/A", "arn:aws:dynamodb:us-east-1:1:table/A", false, true},
		// Beyond ASCII: Unicode lower case.
		{"dynamodb:ÉTAT", "dynamodb:état", true, true},
	}
	for _, c := range cases {
		if got := anyMatch([]string{c.pattern}, c.v, c.fold); got != c.want {
			t.Errorf("%q ~ %q (fold %v): %v", c.pattern, c.v, c.fold, got)
		}
	}
}
