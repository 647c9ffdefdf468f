package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The getting-started tutorial of the DynamoDB Developer Guide, run with the
// AWS CLI and with boto3 against a real server. These tests fail (they do not
// skip) when the tools are missing: scripts/test.sh installs them.

func tutorialEnv(endpoint string) []string {
	var env []string
	for _, kv := range os.Environ() {
		// Keep any local AWS configuration out of the run.
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"ENDPOINT="+endpoint,
		"AWS_ACCESS_KEY_ID="+testAccessKey,
		"AWS_SECRET_ACCESS_KEY="+testSecretKey,
		"AWS_DEFAULT_REGION="+testRegion,
		"AWS_REGION="+testRegion,
		"AWS_CONFIG_FILE="+os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE="+os.DevNull,
		"AWS_PAGER=",
		"AWS_EC2_METADATA_DISABLED=true",
	)
}

func runTutorial(t *testing.T, name string, args ...string) {
	s := startServer(t)
	cmd := exec.Command(name, args...)
	cmd.Env = tutorialEnv(s.Endpoint)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	t.Logf("%s", out)
}

func TestTutorialAWSCLI(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Fatalf("the AWS CLI (aws) is not installed: run scripts/test.sh, which installs it (pip install awscli): %v", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash is not installed: %v", err)
	}
	runTutorial(t, "bash", filepath.Join("tutorial", "music_cli.sh"))
}

func TestTutorialBoto3(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is not installed: run scripts/test.sh: %v", err)
	}
	if out, err := exec.Command(py, "-c", "import boto3").CombinedOutput(); err != nil {
		t.Fatalf("boto3 is not importable by %s: run scripts/test.sh, which installs it (pip install boto3): %v\n%s", py, err, out)
	}
	runTutorial(t, py, filepath.Join("tutorial", "music_boto3.py"))
}
