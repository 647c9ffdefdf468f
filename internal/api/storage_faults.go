package api

import (
	"errors"
	"log/slog"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// storageFault turns a fault of the storage into the DynamoDB error the
// client gets, and logs what the operator has to know:
//
//   - a table the storage no longer has (deleted, possibly by another
//     server on the same data, after this one cached it) is DynamoDB's
//     ResourceNotFoundException, not a retryable 500;
//   - a full disk is ServiceUnavailableException (HTTP 503, which the SDKs
//     retry with backoff): nothing was written and a retry after space is
//     freed succeeds;
//   - a storage closed because the server is shutting down (a request
//     still running when the HTTP server stopped waiting for it, refused
//     as it reached the storage) is ServiceUnavailableException too, which
//     the SDKs retry, against another server or this one restarted;
//   - a damaged data file is InternalServerError, logged with what to do.
//
// Any other error is returned as it is.
func storageFault(log *slog.Logger, op string, err error) error {
	var de *ddberr.Error
	if err == nil || errors.As(err, &de) {
		return err
	}
	switch {
	case errors.Is(err, storage.ErrTableNotFound):
		return ddberr.ResourceNotFound("Requested resource not found")
	case errors.Is(err, storage.ErrStorageFull):
		log.Error("storage is full: writes fail until space is freed", "operation", op, "error", err)
		return ddberr.ServiceUnavailable("The server's storage is full; retry after space is freed.")
	case errors.Is(err, storage.ErrClosed):
		return ddberr.ServiceUnavailable("The server is shutting down; retry.")
	case errors.Is(err, storage.ErrCorrupt):
		log.Error("a data file is damaged: stop extenddb and restore the data directory from a backup "+
			"(or recover the SQLite file with the sqlite3 shell's .recover command)", "operation", op, "error", err)
		return ddberr.Internal("Internal server error")
	}
	return err
}
