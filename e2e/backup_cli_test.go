package e2e

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// runBackupCLI runs `extenddb backup ARGS...` against endpoint and returns
// its standard output and error.
func runBackupCLI(t *testing.T, endpoint string, args ...string) (string, string) {
	t.Helper()
	full := append([]string{"backup"}, args...)
	full = append(full, "--endpoint", endpoint, "--access-key-id", testAccessKey, "--secret-access-key", testSecretKey,
		"--region", testRegion, "--poll", "50ms")
	var out, errOut bytes.Buffer
	cmd := exec.Command(binPath, full...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("extenddb %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// `extenddb backup create|list|restore` drive a server's backups through
// the AWS SDK: create follows the backup to AVAILABLE and restore the new
// table to ACTIVE, with a progress bar on standard error and the outcome
// on standard output.
func TestBackupCLI(t *testing.T) {
	s, c := startClient(t, "--backup-root", t.TempDir())
	src := tableName("cli_src")
	createIndexedTable(t, c, src)
	fillTable(t, c, src, 300)

	out, bar := runBackupCLI(t, s.Endpoint, "create", "--table", src, "--name", "cli-nightly")
	m := regexp.MustCompile(`^(arn:aws:dynamodb:\S+/backup/\S+)\tAVAILABLE\t300 items\t\d+ bytes\n$`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(bar, "backup cli-nightly AVAILABLE") {
		t.Fatalf("backup create printed %q, progress %q", out, bar)
	}
	arn := m[1]

	out, _ = runBackupCLI(t, s.Endpoint, "list", "--table", src)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[1], "cli-nightly") ||
		!strings.Contains(lines[1], "AVAILABLE") || !strings.HasSuffix(lines[1], arn) {
		t.Fatalf("backup list printed %q", out)
	}

	dst := tableName("cli_dst")
	out, bar = runBackupCLI(t, s.Endpoint, "restore", "--backup-arn", arn, "--target-table", dst)
	if out != dst+"\tACTIVE\t300 items\n" || !strings.Contains(bar, "restore "+dst+" ACTIVE") {
		t.Fatalf("backup restore printed %q, progress %q", out, bar)
	}
	if n := countItems(t, c, dst); n != 300 {
		t.Fatalf("restored table has %d items, want 300", n)
	}
}
