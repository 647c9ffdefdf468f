package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"
)

// TestAssumeRoleRefusesSessionPolicies: extenddb does not evaluate
// session policies, which in IAM narrow a role session to the
// intersection of the role's policies and the session's
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies.html#policies_session).
// Ignoring them would hand out a session holding all of the role's
// permissions, so AssumeRole refuses them with a ValidationError and
// issues nothing.
func TestAssumeRoleRefusesSessionPolicies(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "role", "create", "--account", testAccount, "writer")
	adminCLI(t, dir, nil, "policy", "put", "--account", testAccount, "--role", "writer", "all", "--document",
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:*","Resource":"*"}}`)
	s, _ := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	ctx := ctxT(t)
	stsc := sts.New(sts.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, "")})
	roleArn := "arn:aws:iam::" + testAccount + ":role/writer"
	const want = "Session policies (Policy and PolicyArns) are not supported: the session would hold all of the role's permissions. Assume the role without them, or give the role only the permissions the session needs."
	_, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleArn), RoleSessionName: aws.String("narrow"),
		Policy: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*"}}`)})
	wantAPIError(t, err, "ValidationError", want)
	_, err = stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleArn), RoleSessionName: aws.String("narrow"),
		PolicyArns: []ststypes.PolicyDescriptorType{{Arn: aws.String("arn:aws:iam::aws:policy/AmazonDynamoDBReadOnlyAccess")}}})
	wantAPIError(t, err, "ValidationError", want)
	if _, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleArn), RoleSessionName: aws.String("whole")}); err != nil {
		t.Fatalf("AssumeRole without session policies: %v", err)
	}
}
