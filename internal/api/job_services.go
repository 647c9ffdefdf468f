package api

import (
	"github.com/extenddb/extenddb/internal/backup"
	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/export"
	"github.com/extenddb/extenddb/internal/importer"
)

// The services behind the backup, export and import operations
// (backups*.go, exports*.go, imports*.go). Until one is set, its
// operations answer, after their member rules, that it is not configured.
// Set them before serving.

// SetBackups connects the backup service (internal/backup).
func (e *Engine) SetBackups(s *backup.Service) { e.backups = s }

// SetExports connects the export service (internal/export).
func (e *Engine) SetExports(s *export.Service) { e.exports = s }

// SetImports connects the import service (internal/importer).
func (e *Engine) SetImports(s *importer.Service) { e.imports = s }

// configured is nil when s, the service of the operations of what
// ("Backups", "Exports", "Imports"), is set, or else the
// ValidationException saying the server was started without it.
func configured[S any](s *S, what string) error {
	if s == nil {
		return ddberr.Validation("%s are not configured on this server", what)
	}
	return nil
}

// backupsConfigured, exportsConfigured and importsConfigured are the
// checks (controlOp) that refuse an operation of a service that is not
// set.
func backupsConfigured[T any](e *Engine, _ caller, _ *T) error {
	return configured(e.backups, "Backups")
}

func exportsConfigured[T any](e *Engine, _ caller, _ *T) error {
	return configured(e.exports, "Exports")
}

func importsConfigured[T any](e *Engine, _ caller, _ *T) error {
	return configured(e.imports, "Imports")
}
