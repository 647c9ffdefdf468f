package ddberr

import "net/http"

// Errors of the export operations. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExportTableToPointInTime.html#API_ExportTableToPointInTime_Errors
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeExport.html#API_DescribeExport_Errors

// ExportNotFound is ExportNotFoundException: the named export does not
// exist.
func ExportNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ExportNotFoundException", http.StatusBadRequest, format, args)
}

// ExportConflict is ExportConflictException: a client token was used
// before by a request with other parameters.
func ExportConflict(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ExportConflictException", http.StatusBadRequest, format, args)
}

// InvalidExportTime is InvalidExportTimeException: the export time (or
// period) is outside the table's point in time recovery window or
// otherwise not allowed.
func InvalidExportTime(format string, args ...any) *Error {
	return newf(nsDynamoDB, "InvalidExportTimeException", http.StatusBadRequest, format, args)
}
