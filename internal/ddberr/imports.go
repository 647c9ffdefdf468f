package ddberr

import "net/http"

// Errors of the import operations. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html#API_ImportTable_Errors
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeImport.html#API_DescribeImport_Errors

// ImportNotFound is ImportNotFoundException: no import has the given ARN.
func ImportNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ImportNotFoundException", http.StatusBadRequest, format, args)
}

// ImportConflict is ImportConflictException: the import conflicts with a
// previous import request that had the same client token.
func ImportConflict(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ImportConflictException", http.StatusBadRequest, format, args)
}
