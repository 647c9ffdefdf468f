package e2e

import (
	"debug/elf"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dockerfile is the repository's Dockerfile split into its stages'
// instructions (continuation lines joined).
type dockerfile struct {
	build, run []string
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var d dockerfile
	stage := &d.build
	joined := strings.ReplaceAll(string(raw), "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") && len(d.build) > 0 {
			stage = &d.run
		}
		*stage = append(*stage, line)
	}
	return d
}

// No Docker engine runs here, so this test runs the Dockerfile's build
// stage as a script (its RUN lines, in the checkout, with /out in a
// temporary directory), checks that what the run stage copies is there and
// is a static binary, and then runs that binary the way the image does: as
// the unprivileged user, with the image's environment, the command of the
// compose example (DynamoDB Local's), and the image's health check.
func TestDockerfileBuildSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a static binary (minutes the first time)")
	}
	sqliteOnly(t, "the image's build does not depend on the storage backend: once a run is enough")
	d := readDockerfile(t)
	out := t.TempDir()
	if err := os.Chmod(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, line := range d.build {
		cmd, ok := strings.CutPrefix(line, "RUN ")
		if !ok {
			continue
		}
		sh := exec.Command("bash", "-euo", "pipefail", "-c", strings.ReplaceAll(cmd, "/out", out))
		sh.Dir = ".."
		sh.Env = append(os.Environ(), "VERSION=v0.0.0-docker-test")
		if b, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("RUN %s: %v\n%s", cmd, err, b)
		}
	}
	bin := filepath.Join(out, "extenddb")
	checkStatic(t, bin)
	run := strings.Join(d.run, "\n")
	for _, want := range []string{
		"COPY --from=build /out/extenddb /usr/local/bin/extenddb",
		"USER 65532:65532",
		`HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/extenddb", "health"]`,
		`ENTRYPOINT ["/usr/local/bin/extenddb", "serve"]`,
		"EXPOSE 8000",
	} {
		if !strings.Contains(run, want) {
			t.Errorf("run stage lacks %q:\n%s", want, run)
		}
	}
	if fi, err := os.Stat(filepath.Join(out, "home", "data")); err != nil || !fi.IsDir() {
		t.Errorf("build stage did not make home/data: %v", err)
	}
	if v, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(v), "extenddb v0.0.0-docker-test ") {
		t.Errorf("version %q %v", v, err)
	}
	runLikeImage(t, bin, d.run)
}

// checkStatic fails unless bin is an ELF executable with no interpreter
// and no shared libraries.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an interpreter: not static", bin)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", bin, libs)
	}
}

var envLine = regexp.MustCompile(`(EXTENDDB_[A-Z_]+)=(\S+)`)

// runLikeImage starts bin as the image would run it with the compose
// example's command, then runs the image's health check against it.
func runLikeImage(t *testing.T, bin string, runStage []string) {
	home := t.TempDir()
	var env []string
	for _, line := range runStage {
		if strings.HasPrefix(line, "ENV ") {
			for _, m := range envLine.FindAllStringSubmatch(line, -1) {
				val := strings.ReplaceAll(m[2], "/home/dynamodblocal", home)
				if m[1] == "EXTENDDB_LISTEN" {
					val = "127.0.0.1:" + strconv.Itoa(freePort(t))
				}
				env = append(env, m[1]+"="+val)
			}
		}
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: 65532, Gid: 65532}
		bin = worldCopy(t, bin)
		if err := os.Chmod(filepath.Dir(home), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(home, 65532, 65532); err != nil {
			t.Fatal(err)
		}
	}
	compose, err := os.ReadFile("../examples/docker-compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`command: "([^"]+)"`).FindSubmatch(compose)
	if m == nil {
		t.Fatal("compose example has no command")
	}
	srv := exec.Command(bin, append([]string{"serve"}, strings.Fields(string(m[1]))...)...)
	srv.Dir = home
	srv.Env = append(cleanEnv(), env...)
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var log lockedBuffer
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Signal(syscall.SIGTERM); _ = srv.Wait() }()
	health := exec.Command(bin, "health", "--ready")
	health.Env = srv.Env
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := health.CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health check failed: %v %s\nserver log:\n%s", err, out, log.String())
		}
		time.Sleep(100 * time.Millisecond)
		health = exec.Command(bin, "health", "--ready")
		health.Env = srv.Env
	}
	if _, err := os.Stat(filepath.Join(home, "data", "extenddb.sqlite")); err != nil {
		t.Errorf("-dbPath ./data: %v\n%s", err, log.String())
	}
	var listen string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "EXTENDDB_LISTEN="); ok {
			listen = v
		}
	}
	resp, err := http.Get("http://" + listen + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET / = %d, want DynamoDB Local's 400", resp.StatusCode)
	}
}

// cleanEnv is the environment without EXTENDDB_ settings, as in the image.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "EXTENDDB_") {
			out = append(out, kv)
		}
	}
	return out
}
