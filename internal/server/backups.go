package server

import (
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// BackupRootOrDefault is the directory backups are kept in.
func (c Config) BackupRootOrDefault() string {
	switch {
	case c.BackupRoot != "":
		return c.BackupRoot
	case c.DataDir != "" && !c.InMemory:
		return filepath.Join(c.DataDir, "backups")
	case c.memoryDir != "":
		return filepath.Join(c.memoryDir, "backups")
	}
	return filepath.Join(os.TempDir(), "extenddb-backups")
}

// startBackups connects the backup service to engine and returns the job
// runner that carries out backups and restores.
func startBackups(cfg Config, store storage.Backend, engine *api.Engine) *jobs.Runner {
	js := jobs.NewStore(store)
	_, shared := store.(storage.Leaser)
	runner := jobs.NewRunner(js, jobs.Config{Log: cfg.Log, Exclusive: !shared, OnEnd: cfg.registry.JobFinished})
	svc := backup.New(store, js, cfg.BackupRootOrDefault(), cfg.Log)
	svc.Register(runner)
	engine.SetBackups(svc)
	startExports(cfg, store, js, runner, engine)
	startImports(cfg, store, js, runner, engine)
	return runner
}
