package backup

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/extenddb/extenddb/internal/dataformat"
	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// The portable backup format, the same whatever backend wrote it:
//
//	<root>/<account>/<backup id>/manifest.json
//	<root>/<account>/<backup id>/data/00000.json.gz, 00001.json.gz, ...
//
// Data files are DynamoDB's export layout in its DYNAMODB_JSON format: gzip
// of one line per item, {"Item":{...}} with the item in DynamoDB JSON. The
// manifest (written last: a directory without one is unfinished) holds
// the table's definition and each file's item count and SHA-256.

// FormatVersion is the version of the layout this build writes and reads.
const FormatVersion = 1

// itemsPerFile bounds the items of one data file.
const itemsPerFile = 100_000

// Manifest describes one backup's files.
type Manifest struct {
	FormatVersion int
	BackupArn     string
	BackupName    string
	TableArn      string
	// Table is the source table's definition when the backup was taken.
	Table     storage.Table
	CreatedAt time.Time
	ItemCount int64
	// SizeBytes is the total DynamoDB item size (item.Size) of the items.
	SizeBytes int64
	Files     []DataFile
}

// DataFile is one data file of a backup.
type DataFile struct {
	Path      string // relative to the backup's directory
	ItemCount int64
	SHA256    string // hex, of the file as stored (compressed)
}

// exportLine is one line of a DYNAMODB_JSON data file.
type exportLine struct {
	Item item.Item
}

// fileWriter writes the data files of a backup being taken.
type fileWriter struct {
	dir   string
	files []DataFile

	f   *os.File
	sum hash.Hash
	gz  *gzip.Writer
	buf []byte
	n   int64
}

// add appends one item, starting a new data file when the current is full.
func (w *fileWriter) add(it item.Item) error {
	if w.f == nil || w.n >= itemsPerFile {
		if err := w.closeFile(); err != nil {
			return err
		}
		path := fmt.Sprintf("data/%05d.json.gz", len(w.files))
		f, err := os.Create(filepath.Join(w.dir, path))
		if err != nil {
			return err
		}
		w.f, w.sum, w.n = f, sha256.New(), 0
		w.gz = gzip.NewWriter(io.MultiWriter(f, w.sum))
		w.files = append(w.files, DataFile{Path: path})
	}
	w.buf = append(w.buf[:0], `{"Item":`...)
	w.buf = item.AppendItemJSON(w.buf, it)
	w.buf = append(w.buf, "}\n"...)
	w.n++
	_, err := w.gz.Write(w.buf)
	return err
}

// closeFile finishes the current data file, syncing it to disk.
func (w *fileWriter) closeFile() error {
	if w.f == nil {
		return nil
	}
	err := w.gz.Close()
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	last := &w.files[len(w.files)-1]
	last.ItemCount, last.SHA256 = w.n, hex.EncodeToString(w.sum.Sum(nil))
	w.f = nil
	return err
}

// writeManifest writes m as dir/manifest.json through a synced temporary
// file and a rename, so a manifest is either whole or absent.
func writeManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return dataformat.WriteFileAtomic(filepath.Join(dir, "manifest.json"), b)
}

// ReadManifest reads the manifest of the backup in dir. Errors: a missing
// or unreadable manifest, a format version this build does not know.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("backup manifest %s: %w", dir, err)
	}
	if m.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("backup manifest %s: format version %d, this build reads %d", dir, m.FormatVersion, FormatVersion)
	}
	return &m, nil
}

// readFile calls visit with each item of data file f of the backup in dir,
// from line skip on (0-based), after checking the file's checksum.
func readFile(dir string, f DataFile, skip int64, visit func(line int64, it item.Item) error) error {
	if !filepath.IsLocal(f.Path) {
		return fmt.Errorf("backup %s: data file %q is not inside the backup", dir, f.Path)
	}
	path := filepath.Join(dir, f.Path)
	if err := checkSum(path, f.SHA256); err != nil {
		return err
	}
	var line int64
	err := dataformat.ReadGzipLines(path, func(b []byte) error {
		line++
		if line <= skip {
			return nil
		}
		var l exportLine
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		return visit(line-1, l.Item)
	})
	if err != nil {
		return err
	}
	if line != f.ItemCount {
		return fmt.Errorf("%s: %d items, manifest says %d", path, line, f.ItemCount)
	}
	return nil
}

func checkSum(path, want string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: checksum %s, manifest says %s", path, got, want)
	}
	return nil
}
