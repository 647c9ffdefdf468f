package server

import (
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// ExportDirOrDefault is the directory the S3 buckets of exports map to.
func (c Config) ExportDirOrDefault() string {
	switch {
	case c.ExportDir != "":
		return c.ExportDir
	case c.DataDir != "" && !c.InMemory:
		return filepath.Join(c.DataDir, "exports")
	case c.memoryDir != "":
		return filepath.Join(c.memoryDir, "exports")
	}
	return filepath.Join(os.TempDir(), "extenddb-exports")
}

// startExports connects the export service to engine, its exports run by
// runner.
func startExports(cfg Config, store storage.Backend, js *jobs.Store, runner *jobs.Runner, engine *api.Engine) {
	svc := export.New(store, js, cfg.ExportDirOrDefault(), cfg.Log)
	if cfg.ExportMinIncrementalPeriod > 0 {
		svc.MinIncrementalPeriod = cfg.ExportMinIncrementalPeriod
	}
	svc.PageDelay = cfg.ExportPageDelay
	svc.Register(runner)
	engine.SetExports(svc)
}
