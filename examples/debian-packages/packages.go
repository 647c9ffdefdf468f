package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Record is one binary package stanza of an APT Packages index, reduced to the
// fields this example stores.
type Record struct {
	Package       string
	Version       string
	Architecture  string
	Section       string
	Priority      string
	Maintainer    string
	Description   string // the synopsis: first line of Description
	Source        string
	Homepage      string
	Filename      string
	SHA256        string
	Depends       string
	MultiArch     string
	Tags          []string // Tag, split on commas (debtags)
	InstalledSize int64    // KiB; -1 when the stanza has no Installed-Size
	Size          int64    // bytes of the .deb
	List          string   // the index file the stanza came from
}

// key identifies a record in the table: (Package, Version).
func (r *Record) key() string { return r.Package + "\x00" + r.Version }

// indexSuffixes are the forms in which APT keeps a Packages index under
// /var/lib/apt/lists: plain, or compressed when Acquire::GzipIndexes is set
// (Debian's container images do that, with lz4).
var indexSuffixes = []string{"Packages", "Packages.gz", "Packages.lz4", "Packages.xz", "Packages.bz2", "Packages.zst"}

// findIndexes returns every Packages index file in dir, sorted.
func findIndexes(dir string) ([]string, error) {
	var files []string
	for _, suffix := range indexSuffixes {
		m, err := filepath.Glob(filepath.Join(dir, "*"+suffix))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	return files, nil
}

// openIndex returns the decompressed contents of an index file. Plain and
// gzip files are read directly; other compressions go through APT's own
// apt-helper (or the matching command-line decompressor), so no codec has to
// be vendored here.
func openIndex(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasSuffix(path, "Packages"):
		return f, nil
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{zr, f}, nil
	}
	f.Close()
	var cmd *exec.Cmd
	if helper, err := exec.LookPath("/usr/lib/apt/apt-helper"); err == nil {
		cmd = exec.Command(helper, "cat-file", path)
	} else {
		tool := map[string]string{".lz4": "lz4", ".xz": "xz", ".bz2": "bzip2", ".zst": "zstd"}[filepath.Ext(path)]
		if tool == "" {
			return nil, fmt.Errorf("%s: unknown compression", path)
		}
		cmd = exec.Command(tool, "-dc", path)
	}
	return startCommand(cmd, path)
}

type cmdReader struct {
	io.ReadCloser
	cmd    *exec.Cmd
	stderr *strings.Builder
	path   string
}

func startCommand(cmd *exec.Cmd, path string) (io.ReadCloser, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("decompress %s: %w", path, err)
	}
	return &cmdReader{ReadCloser: out, cmd: cmd, stderr: &stderr, path: path}, nil
}

// Close waits for the decompressor and reports its failure, so a truncated
// index is an error rather than silently fewer records.
func (c *cmdReader) Close() error {
	// Drain so the command is not killed by SIGPIPE on an early Close.
	_, _ = io.Copy(io.Discard, c.ReadCloser)
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("decompress %s: %w: %s", c.path, err, strings.TrimSpace(c.stderr.String()))
	}
	return nil
}

// parseIndex reads stanzas (RFC 822-style paragraphs separated by blank lines;
// continuation lines start with a space or tab) and calls emit for each.
func parseIndex(r io.Reader, list string, emit func(*Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	fields := map[string]string{}
	last := ""
	lineNo := 0
	flush := func() error {
		if len(fields) == 0 {
			return nil
		}
		rec, err := recordFrom(fields, list)
		if err != nil {
			return fmt.Errorf("%s: stanza ending at line %d: %w", list, lineNo, err)
		}
		clear(fields)
		last = ""
		return emit(rec)
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if err := flush(); err != nil {
				return err
			}
		case line[0] == ' ' || line[0] == '\t':
			if last == "" {
				return fmt.Errorf("%s:%d: continuation line outside a field", list, lineNo)
			}
			fields[last] += "\n" + line
		default:
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				return fmt.Errorf("%s:%d: not a field: %q", list, lineNo, line)
			}
			last = name
			fields[name] = strings.TrimSpace(value)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", list, err)
	}
	return flush()
}

func recordFrom(f map[string]string, list string) (*Record, error) {
	r := &Record{
		Package:      f["Package"],
		Version:      f["Version"],
		Architecture: f["Architecture"],
		Section:      f["Section"],
		Priority:     f["Priority"],
		Maintainer:   f["Maintainer"],
		Source:       f["Source"],
		Homepage:     f["Homepage"],
		Filename:     f["Filename"],
		SHA256:       f["SHA256"],
		Depends:      joinLines(f["Depends"]),
		MultiArch:    f["Multi-Arch"],
		List:         list,
	}
	if r.Package == "" || r.Version == "" {
		return nil, errors.New("missing Package or Version")
	}
	r.Description, _, _ = strings.Cut(f["Description"], "\n")
	for t := range strings.SplitSeq(joinLines(f["Tag"]), ",") {
		if t = strings.TrimSpace(t); t != "" {
			r.Tags = append(r.Tags, t)
		}
	}
	r.Tags = uniqueSorted(r.Tags)
	var err error
	r.InstalledSize = -1
	if s := f["Installed-Size"]; s != "" {
		if r.InstalledSize, err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("Installed-Size %q: %w", s, err)
		}
	}
	if s := f["Size"]; s != "" {
		if r.Size, err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("Size %q: %w", s, err)
		}
	}
	return r, nil
}

// joinLines folds a multi-line field value into one line.
func joinLines(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	parts := strings.Split(s, "\n")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return strings.Join(parts, " ")
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Dataset is every record read from the indexes, one per (Package, Version):
// when the same pair appears in several indexes (or for several
// architectures), the last one read wins, exactly as it does in the table.
type Dataset struct {
	Files   []string
	Stanzas int                // stanzas read, duplicates included
	Records []*Record          // distinct (Package, Version), in first-seen order
	ByKey   map[string]*Record // key() → record
}

// readDataset parses every Packages index under dir.
func readDataset(dir string) (*Dataset, error) {
	files, err := findIndexes(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Packages index under %s (run apt-get update first)", dir)
	}
	d := &Dataset{Files: files, ByKey: map[string]*Record{}}
	index := map[string]int{} // key() → position in d.Records
	for _, path := range files {
		rc, err := openIndex(path)
		if err != nil {
			return nil, err
		}
		err = parseIndex(rc, filepath.Base(path), func(r *Record) error {
			d.Stanzas++
			k := r.key()
			if i, seen := index[k]; seen {
				d.Records[i] = r // keep first-seen order, last-read content
			} else {
				index[k] = len(d.Records)
				d.Records = append(d.Records, r)
			}
			d.ByKey[k] = r
			return nil
		})
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	if len(d.Records) == 0 {
		return nil, fmt.Errorf("the Packages indexes under %s hold no stanzas", dir)
	}
	return d, nil
}
