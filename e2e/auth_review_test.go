package e2e

import (
	"strings"
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

// TestGetCallerIdentity: `aws sts get-caller-identity`, the usual check of
// which credentials are in use, answers for every caller without a policy
// (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html):
// the key's user, or for a role session the assumed-role ARN and the
// AssumedRoleId that AssumeRole returned.
func TestGetCallerIdentity(t *testing.T) {
	dir := t.TempDir()
	adminCLI(t, dir, nil, "account", "create", "--id", testAccount)
	adminCLI(t, dir, nil, "role", "create", "--account", testAccount, "nothing")
	s, _ := startClient(t, authArgs("--data-dir", dir, "--account-id", testAccount)...)
	ctx := ctxT(t)
	stsc := sts.New(sts.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, "")})
	id, err := stsc.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity: %v", err)
	}
	if aws.ToString(id.Arn) != "arn:aws:iam::"+testAccount+":user/admin" || aws.ToString(id.Account) != testAccount ||
		!strings.HasPrefix(aws.ToString(id.UserId), "AIDA") || len(aws.ToString(id.UserId)) != 21 {
		t.Fatalf("root key: Arn %q Account %q UserId %q", aws.ToString(id.Arn), aws.ToString(id.Account), aws.ToString(id.UserId))
	}
	ar, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + testAccount + ":role/nothing"), RoleSessionName: aws.String("who")})
	if err != nil {
		t.Fatalf("AssumeRole: %v", err)
	}
	c := ar.Credentials
	session := sts.New(sts.Options{BaseEndpoint: aws.String(s.Endpoint), Region: testRegion,
		Credentials: credentials.NewStaticCredentialsProvider(aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken))})
	id, err = session.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity of a session of a role without policies: %v", err)
	}
	if aws.ToString(id.Arn) != aws.ToString(ar.AssumedRoleUser.Arn) || aws.ToString(id.UserId) != aws.ToString(ar.AssumedRoleUser.AssumedRoleId) ||
		aws.ToString(id.Account) != testAccount {
		t.Fatalf("role session: Arn %q UserId %q Account %q, want %q %q", aws.ToString(id.Arn), aws.ToString(id.UserId),
			aws.ToString(id.Account), aws.ToString(ar.AssumedRoleUser.Arn), aws.ToString(ar.AssumedRoleUser.AssumedRoleId))
	}
}
