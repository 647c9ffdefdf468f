package dataformat

import (
	"bufio"
	"compress/gzip"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
)

// DataFileWriter writes one gzipped data file of an export and tallies
// what its manifest-files.json line needs.
type DataFileWriter struct {
	f   *os.File
	bw  *bufio.Writer
	gz  *gzip.Writer
	sum hash.Hash
	enc Encoder
	key string
	n   int64
}

// CreateDataFile creates a data file of format with a random name in
// <dir>/data, dir being the folder of the export whose S3 key is
// exportKey (see ExportKey).
func CreateDataFile(dir, exportKey, format string) (*DataFileWriter, error) {
	name := randomName() + DataFileExtension(format)
	if err := os.MkdirAll(filepath.Join(dir, DataFolder), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, DataFolder, name))
	if err != nil {
		return nil, err
	}
	w := &DataFileWriter{f: f, sum: md5.New(), key: path.Join(exportKey, DataFolder, name)}
	w.bw = bufio.NewWriterSize(io.MultiWriter(f, w.sum), 64<<10)
	w.gz = gzip.NewWriter(w.bw)
	w.enc, err = NewEncoder(format, w.gz)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return w, nil
}

// randomName is a data file's name: 26 random lowercase letters and
// digits, as DynamoDB's look.
func randomName() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	var b [26]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[b[i]&31]
	}
	return string(b[:])
}

// Write appends one record.
func (w *DataFileWriter) Write(r *Record) error {
	w.n++
	return w.enc.Encode(r)
}

// Count is the number of records written so far.
func (w *DataFileWriter) Count() int64 { return w.n }

// Close finishes the file, syncs it to disk and returns its line of
// manifest-files.json.
func (w *DataFileWriter) Close() (ManifestFile, error) {
	err := w.gz.Close()
	if err == nil {
		err = w.bw.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	sum := w.sum.Sum(nil)
	return ManifestFile{ItemCount: w.n, MD5Checksum: base64.StdEncoding.EncodeToString(sum),
		ETag: hex.EncodeToString(sum), DataFileS3Key: w.key}, err
}

// Abort closes and removes an unfinished file.
func (w *DataFileWriter) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}
