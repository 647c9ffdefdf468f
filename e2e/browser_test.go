package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// browserTools finds what TestDynamoDBAdminInChromium needs: node, a
// Chromium and the node modules of e2e/browser (scripts/test.sh installs
// them). It skips the test when one is missing, and fails it under
// EXTENDDB_REQUIRE_BACKENDS=1, as CI must run it.
func browserTools(t *testing.T) (node, chromium, dir string) {
	t.Helper()
	missing := func(what string) {
		msg := what + " is missing: install Debian's chromium and run `npm ci` in e2e/browser (scripts/test.sh does both)"
		if os.Getenv("EXTENDDB_REQUIRE_BACKENDS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing("Chromium (" + chromium + ")")
	}
	dir, err = filepath.Abs("browser")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"dynamodb-admin", "playwright-core"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", m, "package.json")); err != nil {
			missing("node module " + m)
		}
	}
	return node, chromium, dir
}

var adminListenRE = regexp.MustCompile(`dynamodb-admin listening on (http://\S+)`)

// startDynamoDBAdmin runs dynamodb-admin against endpoint on a free port
// and returns its URL.
func startDynamoDBAdmin(t *testing.T, node, dir, endpoint string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "node_modules", "dynamodb-admin", "dist", "dynamodb-admin.js"),
		"--host", "127.0.0.1", "--port", "0", "--dynamo-endpoint", endpoint)
	cmd.Env = append(os.Environ(), "NODE_ENV=development")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dynamodb-admin: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := adminListenRE.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
			}
		}
	}()
	select {
	case u := <-url:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("dynamodb-admin did not start listening within 60s")
	}
	return ""
}

// TestDynamoDBAdminInChromium runs dynamodb-admin (npm) against extenddb
// and drives it in headless Chromium: its table list shows the table, its
// scan page the item and its item page the item's attributes.
func TestDynamoDBAdminInChromium(t *testing.T) {
	node, chromium, dir := browserTools(t)
	srv, c := startClient(t)
	ctx := ctxT(t)
	name := tableName("admin")
	createHashTable(t, c, name, "S")
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name),
		Item: item{"pk": avS("user-42"), "email": avS("someone@example.com"), "n": avN("7")}}); err != nil {
		t.Fatal(err)
	}
	adminURL := startDynamoDBAdmin(t, node, dir, srv.Endpoint)
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "check.mjs"), adminURL, name, "user-42", "someone@example.com")
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("dynamodb-admin in Chromium: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
