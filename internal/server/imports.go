package server

import (
	"os"
	"path/filepath"

	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/importer"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

// ExportDirOrDefault is the directory standing for S3 in exports and
// imports.
func (c Config) ExportDirOrDefault() string {
	switch {
	case c.ExportDir != "":
		return c.ExportDir
	case c.DataDir != "" && !c.InMemory:
		return filepath.Join(c.DataDir, "exports")
	}
	return filepath.Join(os.TempDir(), "extenddb-exports")
}

// startImports connects the import service to engine, its jobs run by
// runner. SQLite and PostgreSQL write an import's items in batches of one
// transaction; Cassandra, whose transactions cost several round trips an
// item, in concurrent single-item writes.
func startImports(cfg Config, store storage.Backend, js *jobs.Store, runner *jobs.Runner, engine *api.Engine) {
	svc := importer.New(store, js, importer.Config{
		Root:    cfg.ExportDirOrDefault(),
		Batched: cfg.Storage != "cassandra",
		Log:     cfg.Log,
	})
	svc.Register(runner)
	engine.SetImports(svc)
}
