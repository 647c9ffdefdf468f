package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadDebianPackages builds extenddb, starts it as a separate process with
// its default (durable SQLite) storage, loads every Packages index of this
// machine and verifies the table. It needs APT's indexes: when there are
// none (a fresh container has none), it runs `apt-get update` itself if it
// can (as root), and otherwise fails rather than skips.
func TestLoadDebianPackages(t *testing.T) {
	files, err := findIndexes(listsDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 && os.Getenv("DEBIAN_PACKAGES_LISTS") == "" && os.Geteuid() == 0 {
		t.Logf("no Packages index under %s: running apt-get update", listsDir())
		if out, err := exec.Command("apt-get", "update", "-qq").CombinedOutput(); err != nil {
			t.Fatalf("apt-get update: %v\n%s", err, out)
		}
		if files, err = findIndexes(listsDir()); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatalf("no Packages index under %s: run `apt-get update` first (as root)", listsDir())
	}
	endpoint := startServer(t)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := run(ctx, Config{
		Endpoint: endpoint,
		ListsDir: listsDir(),
		Table:    "debian-packages",
		Workers:  8,
		GSI:      true,
		Out:      testWriter{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records == 0 || rep.Stanzas < rep.Records {
		t.Fatalf("read %d stanzas, %d records", rep.Stanzas, rep.Records)
	}
	if rep.ScanCount != rep.Records {
		t.Fatalf("Scan counted %d items, source has %d distinct (Package, Version)", rep.ScanCount, rep.Records)
	}
	t.Logf("%d files, %d stanzas, %d records, %.0f records/s, %d checks", rep.Files, rep.Stanzas, rep.Records, rep.RecordsPerSec, rep.Checks)
}

// TestParseIndex covers the stanza parser on a small index: continuation
// lines, folded fields, missing optional fields and duplicate keys.
func TestParseIndex(t *testing.T) {
	const index = `Package: hello
Version: 2.10-3
Installed-Size: 280
Maintainer: Santiago Vila <sanvila@debian.org>
Architecture: amd64
Depends: libc6 (>= 2.34)
Description: example package based on GNU hello
Tag: devel::examples, implemented-in::c,
 role::program, devel::examples
Section: devel
Priority: optional
Filename: pool/main/h/hello/hello_2.10-3_amd64.deb
Size: 53080

Package: hello
Version: 2.10-3
Architecture: amd64
Section: devel
Size: 53081
Description: a later copy of the same version
 with a long description

Package: tzdata
Version: 2024a-0+deb12u1
Architecture: all
Section: localization
Priority: required
Size: 255000
Description: time zone and daylight-saving time data
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "example_dists_main_binary-amd64_Packages"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := readDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Stanzas != 3 || len(d.Records) != 2 {
		t.Fatalf("%d stanzas, %d records; want 3 and 2", d.Stanzas, len(d.Records))
	}
	h := d.ByKey["hello\x002.10-3"]
	if h == nil || h.Size != 53081 || h.Description != "a later copy of the same version" || h.InstalledSize != -1 {
		t.Fatalf("hello: %+v", h)
	}
	if d.Records[0] != h {
		t.Fatalf("first record is %+v, want the last-read hello", d.Records[0])
	}
	tz := d.ByKey["tzdata\x002024a-0+deb12u1"]
	if tz == nil || tz.Priority != "required" || tz.Section != "localization" {
		t.Fatalf("tzdata: %+v", tz)
	}
	r, err := recordFrom(map[string]string{
		"Package": "p", "Version": "1", "Installed-Size": "5",
		"Tag": "b::x, a::y,\n b::x", "Depends": "a,\n b",
	}, "l")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Tags) != "[a::y b::x]" || r.Depends != "a, b" || r.InstalledSize != 5 {
		t.Fatalf("recordFrom: %+v", r)
	}
	if _, err := recordFrom(map[string]string{"Package": "p"}, "l"); err == nil {
		t.Fatal("a stanza without Version was accepted")
	}
}

func listsDir() string {
	if d := os.Getenv("DEBIAN_PACKAGES_LISTS"); d != "" {
		return d
	}
	return "/var/lib/apt/lists"
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

var endpointRE = regexp.MustCompile(`endpoint=(http://\S+)`)

// startServer builds cmd/extenddb, runs `extenddb serve` on a free loopback
// port with a fresh data directory, and stops it (SIGTERM, expecting a clean
// exit) when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "extenddb")
	build := exec.Command("go", "build", "-o", bin, "github.com/extenddb/extenddb/cmd/extenddb")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	found := make(chan string, 1)
	logDone := make(chan struct{})
	var log strings.Builder
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			log.WriteString(line + "\n")
			if m := endpointRE.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() { <-logDone; exited <- cmd.Wait() }()

	var endpoint string
	select {
	case endpoint = <-found:
	case err := <-exited:
		t.Fatalf("extenddb exited before serving: %v\n%s", err, log.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("extenddb printed no endpoint within 30s")
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("extenddb exit: %v", err)
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("extenddb did not stop within 60s of SIGTERM")
		}
	})
	return endpoint
}
