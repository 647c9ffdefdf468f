package triggers

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// checkpoint is the durable position of a trigger: the last record of its
// table's stream that was acknowledged (or given up on).
type checkpoint struct {
	StreamArn      string `json:"streamArn"`
	ShardID        string `json:"shardId"`
	SequenceNumber string `json:"sequenceNumber"`
}

// unsafeName matches what a file name should not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// checkpointPath is the file of table's checkpoint in dir.
func checkpointPath(dir, table string) string {
	return filepath.Join(dir, unsafeName.ReplaceAllString(table, "_")+".checkpoint.json")
}

// loadCheckpoint reads a checkpoint; a missing file is the zero checkpoint.
func loadCheckpoint(path string) (checkpoint, error) {
	var c checkpoint
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

// save writes c to path durably: a synced temporary file renamed over the
// old one, then the directory synced, so a crash leaves the old or the new
// checkpoint, never a torn one.
func (c checkpoint) save(path string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".checkpoint-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
