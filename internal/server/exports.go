package server

import (
	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// ExportDirOrDefault is the directory the S3 buckets of exports map to.
func (c Config) ExportDirOrDefault() string { return c.dirOrDefault(c.ExportDir, "exports") }

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
