package server

import (
	"github.com/extenddb/extenddb/internal/api"
	"github.com/extenddb/extenddb/internal/importer"
	"github.com/extenddb/extenddb/internal/jobs"
	"github.com/extenddb/extenddb/internal/storage"
)

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
