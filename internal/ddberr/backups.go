package ddberr

import "net/http"

// Errors of the backup and restore operations. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateBackup.html#API_CreateBackup_Errors
// and the Errors sections of the other backup operations.

// BackupNotFound is BackupNotFoundException: no backup has the given ARN.
func BackupNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "BackupNotFoundException", http.StatusBadRequest, format, args)
}

// BackupInUse is BackupInUseException: another backup control-plane
// operation is going on (the backup is being created, deleted or restored).
func BackupInUse(format string, args ...any) *Error {
	return newf(nsDynamoDB, "BackupInUseException", http.StatusBadRequest, format, args)
}

// TableNotFound is TableNotFoundException, the backup operations' word for
// a missing source table.
func TableNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "TableNotFoundException", http.StatusBadRequest, format, args)
}

// TableInUse is TableInUseException: the table is being created, updated
// or deleted.
func TableInUse(format string, args ...any) *Error {
	return newf(nsDynamoDB, "TableInUseException", http.StatusBadRequest, format, args)
}

// TableAlreadyExists is TableAlreadyExistsException: a restore's target
// table exists.
func TableAlreadyExists(format string, args ...any) *Error {
	return newf(nsDynamoDB, "TableAlreadyExistsException", http.StatusBadRequest, format, args)
}

// GlobalTableNotFound is GlobalTableNotFoundException: no global table has
// the given name.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeGlobalTable.html#API_DescribeGlobalTable_Errors
func GlobalTableNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "GlobalTableNotFoundException", http.StatusBadRequest, format, args)
}

// PointInTimeRecoveryUnavailable is PointInTimeRecoveryUnavailableException:
// point in time recovery is not enabled for the source table.
func PointInTimeRecoveryUnavailable(format string, args ...any) *Error {
	return newf(nsDynamoDB, "PointInTimeRecoveryUnavailableException", http.StatusBadRequest, format, args)
}

// InvalidRestoreTime is InvalidRestoreTimeException: the restore time is
// outside the restorable window.
func InvalidRestoreTime(format string, args ...any) *Error {
	return newf(nsDynamoDB, "InvalidRestoreTimeException", http.StatusBadRequest, format, args)
}
