package e2e

import (
	"archive/zip"
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// goModVersion is the version go.mod's "go" line asks for.
func goModVersion(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	return string(m[1])
}

// scripts/go.sh fetches the golang.org/toolchain module of go.mod's version
// from the module proxy named by GOPROXY when no local Go will do (forced
// here with EXTENDDB_GO=fetch), unpacks it with its execute bits, and
// prints its go. The proxy is a local server with a stand-in toolchain.
func TestGoScriptFetchesPinnedToolchain(t *testing.T) {
	sqliteOnly(t, "the script does not depend on the storage backend")
	want := goModVersion(t)
	name := "v0.0.1-go" + want + "." + runtime.GOOS + "-" + runtime.GOARCH
	prefix := "golang.org/toolchain@" + name + "/"
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for path, body := range map[string]string{
		prefix + "bin/go":           "#!/bin/sh\necho go" + want + "\n",
		prefix + "pkg/tool/compile": "stand-in\n",
	} {
		w, err := zw.Create(path) // no mode bits, as in the real module zips
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		if r.URL.Path != "/golang.org/toolchain/@v/"+name+".zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(zipped.Bytes())
	}))
	defer proxy.Close()

	cache := t.TempDir()
	cmd := exec.Command("../scripts/go.sh")
	cmd.Env = append(os.Environ(), "EXTENDDB_GO=fetch", "EXTENDDB_CACHE="+cache, "GOPROXY="+proxy.URL+",direct")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go.sh: %v\n%s", err, stderr.String())
	}
	gobin := strings.TrimSpace(string(out))
	if wantPath := filepath.Join(cache, "toolchain", prefix, "bin", "go"); gobin != wantPath {
		t.Errorf("go.sh printed %q, want %q (asked %v)", gobin, wantPath, asked)
	}
	if v, err := exec.Command(gobin, "env", "GOVERSION").Output(); err != nil || strings.TrimSpace(string(v)) != "go"+want {
		t.Errorf("fetched go: %q %v", v, err)
	}
	if !strings.Contains(stderr.String(), "Go "+want+" not found") {
		t.Errorf("go.sh did not say what it is doing:\n%s", stderr.String())
	}
	// A second run finds the unpacked toolchain without the proxy.
	proxy.Close()
	again := exec.Command("../scripts/go.sh")
	again.Env = cmd.Env
	if out2, err := again.Output(); err != nil || strings.TrimSpace(string(out2)) != gobin {
		t.Errorf("second run: %q %v", out2, err)
	}
}

// scripts/start.sh builds the server and exec's it: the process started as
// the script is the server, so SIGTERM to it stops the server, which exits 0
// and leaves nothing listening.
func TestStartScriptExecsServer(t *testing.T) {
	sqliteOnly(t, "the script does not depend on the storage backend")
	cmd := exec.Command("../scripts/start.sh", "--listen", "127.0.0.1:0", "--in-memory")
	cmd.Env = append(cleanEnv(), "EXTENDDB_BIN="+filepath.Join(t.TempDir(), "extenddb"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	endpoint := make(chan string, 1)
	var log lockedBuffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if m := endpointRE.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-endpoint:
	case <-time.After(5 * time.Minute):
		t.Fatalf("no endpoint within 5 minutes:\n%s", log.String())
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
	if err != nil || filepath.Base(exe) != "extenddb" {
		t.Errorf("the started process runs %q (%v), want the extenddb binary itself", exe, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server exit after SIGTERM: %v\n%s", err, log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server still running 30s after SIGTERM")
	}
	if resp, err := http.Get(url + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("%s still answers after SIGTERM", url)
	}
}

// The test command's service hooks never leave the tests pointed at a
// server the run did not start: when scripts/postgres.sh or
// scripts/cassandra.sh cannot start this run's own server, the DSN or
// contact points inherited from the environment are dropped, so the
// backend's tests fail (EXTENDDB_REQUIRE_BACKENDS=1) instead of running
// against someone else's database.
func TestServiceHooksDropInheritedServers(t *testing.T) {
	sqliteOnly(t, "the scripts do not depend on the storage backend")
	for hook, variable := range map[string]string{
		"10-postgres.sh":  "EXTENDDB_POSTGRES_DSN",
		"20-cassandra.sh": "EXTENDDB_CASSANDRA_HOSTS",
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"postgres.sh", "cassandra.sh"} {
			if err := os.WriteFile(filepath.Join(dir, "scripts", s), []byte("#!/bin/sh\necho cannot start >&2\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		src, err := filepath.Abs(filepath.Join("..", "scripts", "test.d", hook))
		if err != nil {
			t.Fatal(err)
		}
		script := `free_port() { echo 40000; }; free_loopback_prefix() { echo 127.0.77; }
failures=0; note_failure() { failures=$((failures+1)); }; on_exit() { :; }
source "$1"; echo "failures=$failures ${` + variable + `-unset}"`
		cmd := exec.Command("bash", "-c", script, "hook", src)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TEST_RUN_DIR="+dir, variable+"=inherited")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", hook, err, out)
		}
		if !strings.Contains(string(out), "failures=1 unset") {
			t.Errorf("%s with its server not started: %s, want one failure and %s unset", hook, out, variable)
		}
	}
}
