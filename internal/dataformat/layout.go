package dataformat

// The layout of an export in its S3 bucket, as DynamoDB writes it (see
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html):
//
//	[<S3Prefix>/]AWSDynamoDB/<ExportId>/_started
//	[<S3Prefix>/]AWSDynamoDB/<ExportId>/manifest-summary.json
//	[<S3Prefix>/]AWSDynamoDB/<ExportId>/manifest-summary.md5
//	[<S3Prefix>/]AWSDynamoDB/<ExportId>/manifest-files.json
//	[<S3Prefix>/]AWSDynamoDB/<ExportId>/manifest-files.md5
//	[<S3Prefix>/]AWSDynamoDB/<ExportId>/data/<random>.json.gz (or .ion.gz)
//
// The .md5 files hold the base64 MD5 of the manifest beside them;
// manifest-files.json has one JSON object per line, one per data file.
// Keys are S3 keys: relative to the bucket, '/'-separated.

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

// Names of the export layout.
const (
	ExportsFolder               = "AWSDynamoDB"
	DataFolder                  = "data"
	StartedFile                 = "_started"
	ManifestSummaryFile         = "manifest-summary.json"
	ManifestSummaryChecksumFile = "manifest-summary.md5"
	ManifestFilesFile           = "manifest-files.json"
	ManifestFilesChecksumFile   = "manifest-files.md5"
)

// Versions of manifest-summary.json: of a full export and of an
// incremental one.
const (
	ManifestVersionFull        = "2020-06-30"
	ManifestVersionIncremental = "2023-08-01"
)

// Export types (ExportType) and incremental view types (ExportViewType).
const (
	FullExport        = "FULL_EXPORT"
	IncrementalExport = "INCREMENTAL_EXPORT"
	NewAndOldImages   = "NEW_AND_OLD_IMAGES"
	NewImage          = "NEW_IMAGE"
)

// ExportKey is the S3 key of an export's folder: "[prefix/]AWSDynamoDB/<id>".
// A prefix's trailing '/' is not doubled.
func ExportKey(prefix, exportID string) string {
	if prefix == "" {
		return path.Join(ExportsFolder, exportID)
	}
	return path.Join(prefix, ExportsFolder, exportID)
}

// DataFileExtension is the extension of a data file of format
// ("DYNAMODB_JSON" or "ION"), compressed with gzip as exports are.
func DataFileExtension(format string) string {
	if format == "ION" {
		return ".ion.gz"
	}
	return ".json.gz"
}

// Timestamp is a time in a manifest: UTC, ISO 8601 with milliseconds
// ("2020-11-04T07:28:34.028Z").
type Timestamp struct{ time.Time }

const timestampLayout = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes t as a JSON string in the manifests' layout.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(timestampLayout) + `"`), nil
}

// UnmarshalJSON reads any RFC 3339 time.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	t.Time = v
	return err
}

// ManifestSummary is manifest-summary.json: what was exported, where and
// when. ExportTime is set for a full export; ExportFromTime, ExportToTime
// and OutputView for an incremental one. S3Prefix and S3SseKmsKeyID are
// null when the export named none.
type ManifestSummary struct {
	Version            string     `json:"version"`
	ExportArn          string     `json:"exportArn"`
	StartTime          Timestamp  `json:"startTime"`
	EndTime            Timestamp  `json:"endTime"`
	TableArn           string     `json:"tableArn"`
	TableID            string     `json:"tableId"`
	ExportTime         *Timestamp `json:"exportTime,omitempty"`
	ExportFromTime     *Timestamp `json:"exportFromTime,omitempty"`
	ExportToTime       *Timestamp `json:"exportToTime,omitempty"`
	S3Bucket           string     `json:"s3Bucket"`
	S3Prefix           *string    `json:"s3Prefix"`
	S3SseAlgorithm     string     `json:"s3SseAlgorithm"`
	S3SseKmsKeyID      *string    `json:"s3SseKmsKeyId"`
	ManifestFilesS3Key string     `json:"manifestFilesS3Key"`
	BilledSizeBytes    int64      `json:"billedSizeBytes"`
	ItemCount          int64      `json:"itemCount"`
	OutputFormat       string     `json:"outputFormat"`
	OutputView         string     `json:"outputView,omitempty"`
	ExportType         string     `json:"exportType,omitempty"`
}

// ManifestFile is one line of manifest-files.json: one data file, its item
// (or change record) count, the base64 MD5 of its bytes, its S3 ETag (the
// hex MD5 of a file uploaded in one part) and its S3 key.
type ManifestFile struct {
	ItemCount     int64  `json:"itemCount"`
	MD5Checksum   string `json:"md5Checksum"`
	ETag          string `json:"etag"`
	DataFileS3Key string `json:"dataFileS3Key"`
}

// MD5Base64 is the base64 MD5 of b, the form of md5Checksum and of the
// .md5 files.
func MD5Base64(b []byte) string {
	sum := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// WriteManifests writes an export's manifests into dir (the export's
// folder): manifest-files.json and its .md5, then manifest-summary.json
// and its .md5. Each file is written whole through a synced temporary
// file and a rename; manifest-summary.json comes last, so an export with
// one is complete.
func WriteManifests(dir string, s *ManifestSummary, files []ManifestFile) error {
	var lines bytes.Buffer
	for _, f := range files {
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		lines.Write(b)
		lines.WriteByte('\n')
	}
	if err := writeWithChecksum(dir, ManifestFilesFile, ManifestFilesChecksumFile, lines.Bytes()); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return writeWithChecksum(dir, ManifestSummaryFile, ManifestSummaryChecksumFile, b)
}

func writeWithChecksum(dir, name, sumName string, b []byte) error {
	if err := WriteFileAtomic(filepath.Join(dir, sumName), []byte(MD5Base64(b))); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, name), b)
}

// WriteFileAtomic writes b to path through a synced temporary file and a
// rename: the file is either whole or absent.
func WriteFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// ReadManifests reads the manifests of the export in dir, checking each
// against its .md5 file. Errors: a missing or unreadable manifest, a
// checksum that does not match.
func ReadManifests(dir string) (*ManifestSummary, []ManifestFile, error) {
	sb, err := readChecked(dir, ManifestSummaryFile, ManifestSummaryChecksumFile)
	if err != nil {
		return nil, nil, err
	}
	var s ManifestSummary
	if err := json.Unmarshal(sb, &s); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ManifestSummaryFile, err)
	}
	fb, err := readChecked(dir, ManifestFilesFile, ManifestFilesChecksumFile)
	if err != nil {
		return nil, nil, err
	}
	var files []ManifestFile
	sc := bufio.NewScanner(bytes.NewReader(fb))
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var f ManifestFile
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ManifestFilesFile, err)
		}
		files = append(files, f)
	}
	return &s, files, sc.Err()
}

func readChecked(dir, name, sumName string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	want, err := os.ReadFile(filepath.Join(dir, sumName))
	if err != nil {
		return nil, err
	}
	if got := MD5Base64(b); got != string(bytes.TrimSpace(want)) {
		return nil, fmt.Errorf("%s: MD5 %s, %s says %s", name, got, sumName, bytes.TrimSpace(want))
	}
	return b, nil
}
