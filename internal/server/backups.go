package server

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// BackupRootOrDefault is the directory backups are kept in.
func (c Config) BackupRootOrDefault() string { return c.dirOrDefault(c.BackupRoot, "backups") }

// dirOrDefault is dir when it is set, else the directory name inside the
// data directory (or the in-memory database's own directory), else
// extenddb-<name> in the system's temporary directory.
func (c Config) dirOrDefault(dir, name string) string {
	switch {
	case dir != "":
		return dir
	case c.DataDir != "" && !c.InMemory:
		return filepath.Join(c.DataDir, name)
	case c.memoryDir != "":
		return filepath.Join(c.memoryDir, name)
	}
	return filepath.Join(os.TempDir(), "extenddb-"+name)
}

// ownBackupRoot gives an --in-memory server without --backup-root a backup
// root of its own in the system's temporary directory, removed when the
// server stops (and, through GuardMemoryDir, when it dies), so that its
// backups, like its tables, neither outlive it nor show in another
// server's ListBackups. It returns that directory, or "" when cfg names
// its own root or keeps data on disk.
func ownBackupRoot(cfg *Config) (string, error) {
	if !cfg.InMemory || cfg.BackupRoot != "" || cfg.memoryDir != "" {
		// A SQLite in-memory database's directory is already the
		// server's own and guarded: BackupRootOrDefault puts the backups
		// in it.
		return "", nil
	}
	dir, err := os.MkdirTemp("", "extenddb-backups-")
	if err != nil {
		return "", fmt.Errorf("backup root: %w", err)
	}
	if cfg.GuardMemoryDir != nil {
		if err := cfg.GuardMemoryDir(dir); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	cfg.BackupRoot = dir
	return dir, nil
}

// startBackups connects the backup service to engine and returns the job
// runner that carries out backups and restores.
func startBackups(cfg Config, store storage.Backend, engine *api.Engine) *jobs.Runner {
	js := jobs.NewStore(store)
	_, shared := store.(storage.Leaser)
	runner := jobs.NewRunner(js, jobs.Config{Log: cfg.Log, Exclusive: !shared, OnEnd: cfg.registry.JobFinished,
		OnProgress: cfg.registry.JobProgress})
	svc := backup.New(store, js, cfg.BackupRootOrDefault(), cfg.Log)
	svc.Register(runner)
	engine.SetBackups(svc)
	startExports(cfg, store, js, runner, engine)
	startImports(cfg, store, js, runner, engine)
	return runner
}

// removeOwnBackupRoot removes the backup root ownBackupRoot made, if any.
func removeOwnBackupRoot(dir string) {
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}
