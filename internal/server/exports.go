package server

import (
	"os"
	"path/filepath"
)

// ExportDirOrDefault is the directory the S3 buckets of exports map to.
func (c Config) ExportDirOrDefault() string {
	switch {
	case c.ExportDir != "":
		return c.ExportDir
	case c.DataDir != "" && !c.InMemory:
		return filepath.Join(c.DataDir, "exports")
	}
	return filepath.Join(os.TempDir(), "extenddb-exports")
}
