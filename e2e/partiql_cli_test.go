package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// The PartiQL form of the getting-started tutorial, with the AWS CLI's
// execute-statement, batch-execute-statement and execute-transaction
// (e2e/tutorial/music_partiql_cli.sh cites the pages it follows).
func TestPartiQLAWSCLI(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Fatalf("the AWS CLI (aws) is not installed: run scripts/test.sh, which installs it (pip install awscli): %v", err)
	}
	runTutorial(t, "bash", filepath.Join("tutorial", "music_partiql_cli.sh"))
}
