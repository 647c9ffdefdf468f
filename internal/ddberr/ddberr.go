// Package ddberr holds the errors extenddb returns to clients, shaped exactly as
// DynamoDB returns them: an HTTP status, a "__type" naming the error's shape and a
// human-readable "message".
//
// Every error a client can see is built here, so the type strings and the
// status codes live in one place. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
package ddberr

import (
	"errors"
	"fmt"
	"net/http"
)

// Namespaces DynamoDB uses in the "__type" field.
const (
	nsDynamoDB = "com.amazonaws.dynamodb.v20120810#"
	nsValidate = "com.amazon.coral.validate#"
	nsCoral    = "com.amazon.coral.service#"
)

// Error is a DynamoDB error response. Extra holds additional top-level JSON
// members some errors carry (Item on ConditionalCheckFailedException,
// CancellationReasons on TransactionCanceledException).
type Error struct {
	Type    string // full __type, e.g. "com.amazon.coral.validate#ValidationException"
	Message string
	Status  int
	Extra   map[string]any
}

func (e *Error) Error() string { return e.Name() + ": " + e.Message }

// Name is the short error name, the part of Type after '#'.
func (e *Error) Name() string {
	for i := len(e.Type) - 1; i >= 0; i-- {
		if e.Type[i] == '#' {
			return e.Type[i+1:]
		}
	}
	return e.Type
}

// With returns a copy of e carrying one extra top-level JSON member.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Extra = make(map[string]any, len(e.Extra)+1)
	for k, v := range e.Extra {
		c.Extra[k] = v
	}
	c.Extra[key] = value
	return &c
}

func newf(ns, name string, status int, format string, args []any) *Error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Error{Type: ns + name, Message: msg, Status: status}
}

// Validation is DynamoDB's ValidationException (HTTP 400).
func Validation(format string, args ...any) *Error {
	return newf(nsValidate, "ValidationException", http.StatusBadRequest, format, args)
}

// Serialization is SerializationException (HTTP 400): the request body is not
// valid JSON or a member has the wrong JSON type.
func Serialization(format string, args ...any) *Error {
	return newf(nsCoral, "SerializationException", http.StatusBadRequest, format, args)
}

// UnknownOperation is returned for an X-Amz-Target naming no operation (HTTP 400).
func UnknownOperation() *Error {
	return &Error{Type: nsCoral + "UnknownOperationException", Status: http.StatusBadRequest}
}

// MissingAuthenticationToken is returned when a request carries no usable Authorization header.
func MissingAuthenticationToken(msg string) *Error {
	return &Error{Type: nsCoral + "MissingAuthenticationTokenException", Message: msg, Status: http.StatusBadRequest}
}

// IncompleteSignature is returned for an AWS4 Authorization header that
// lacks a required part.
func IncompleteSignature(msg string) *Error {
	return &Error{Type: nsCoral + "IncompleteSignatureException", Message: msg, Status: http.StatusBadRequest}
}

// ResourceNotFound is ResourceNotFoundException (HTTP 400).
func ResourceNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ResourceNotFoundException", http.StatusBadRequest, format, args)
}

// PolicyNotFound is PolicyNotFoundException (HTTP 400): a resource-based
// policy that is absent or whose revision is not the one expected.
func PolicyNotFound(format string, args ...any) *Error {
	return newf(nsDynamoDB, "PolicyNotFoundException", http.StatusBadRequest, format, args)
}

// ResourceInUse is ResourceInUseException (HTTP 400).
func ResourceInUse(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ResourceInUseException", http.StatusBadRequest, format, args)
}

// ConditionalCheckFailed is ConditionalCheckFailedException with DynamoDB's message.
func ConditionalCheckFailed() *Error {
	return &Error{Type: nsDynamoDB + "ConditionalCheckFailedException", Message: "The conditional request failed", Status: http.StatusBadRequest}
}

// DuplicateItem is DuplicateItemException, PartiQL INSERT's answer for a
// key that exists.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
func DuplicateItem() *Error {
	return &Error{Type: nsDynamoDB + "DuplicateItemException", Message: "Duplicate primary key exists in table", Status: http.StatusBadRequest}
}

// LimitExceeded is LimitExceededException (HTTP 400).
func LimitExceeded(format string, args ...any) *Error {
	return newf(nsDynamoDB, "LimitExceededException", http.StatusBadRequest, format, args)
}

// ItemCollectionSizeLimitExceeded is returned when an LSI item collection exceeds 10 GB.
func ItemCollectionSizeLimitExceeded(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ItemCollectionSizeLimitExceededException", http.StatusBadRequest, format, args)
}

// TransactionCanceled is TransactionCanceledException; reasons go in Extra["CancellationReasons"].
func TransactionCanceled(format string, args ...any) *Error {
	return newf(nsDynamoDB, "TransactionCanceledException", http.StatusBadRequest, format, args)
}

// TransactionConflict is TransactionConflictException.
func TransactionConflict(format string, args ...any) *Error {
	return newf(nsDynamoDB, "TransactionConflictException", http.StatusBadRequest, format, args)
}

// TransactionInProgress is TransactionInProgressException.
func TransactionInProgress(format string, args ...any) *Error {
	return newf(nsDynamoDB, "TransactionInProgressException", http.StatusBadRequest, format, args)
}

// IdempotentParameterMismatch is IdempotentParameterMismatchException.
func IdempotentParameterMismatch(format string, args ...any) *Error {
	return newf(nsDynamoDB, "IdempotentParameterMismatchException", http.StatusBadRequest, format, args)
}

// AccessDenied is AccessDeniedException.
func AccessDenied(format string, args ...any) *Error {
	return newf(nsCoral, "AccessDeniedException", http.StatusBadRequest, format, args)
}

// UnrecognizedClient is UnrecognizedClientException (unknown access key),
// in the com.amazon.coral.service namespace as DynamoDB sends it
// (https://github.com/baopham/laravel-dynamodb/issues/228 quotes the body).
func UnrecognizedClient(format string, args ...any) *Error {
	return newf(nsCoral, "UnrecognizedClientException", http.StatusBadRequest, format, args)
}

// InvalidSignature is InvalidSignatureException.
func InvalidSignature(format string, args ...any) *Error {
	return newf(nsCoral, "InvalidSignatureException", http.StatusBadRequest, format, args)
}

// ProvisionedThroughputExceeded is ProvisionedThroughputExceededException.
func ProvisionedThroughputExceeded(format string, args ...any) *Error {
	return newf(nsDynamoDB, "ProvisionedThroughputExceededException", http.StatusBadRequest, format, args)
}

// Internal is InternalServerError (HTTP 500). Only for faults of the server itself.
func Internal(format string, args ...any) *Error {
	return newf(nsDynamoDB, "InternalServerError", http.StatusInternalServerError, format, args)
}

// ServiceUnavailable is ServiceUnavailable (HTTP 503), for overload and shutdown.
func ServiceUnavailable(format string, args ...any) *Error {
	return newf(nsCoral, "ServiceUnavailableException", http.StatusServiceUnavailable, format, args)
}

// As extracts an *Error from err. Any other error becomes InternalServerError,
// because only the server's own faults lack a DynamoDB type.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal("Internal server error")
}

// Is reports whether err is a DynamoDB error with the given short name
// (for example "ConditionalCheckFailedException").
func Is(err error, name string) bool {
	var e *Error
	return errors.As(err, &e) && e.Name() == name
}

// Throttling is ThrottlingException (HTTP 400), which the AWS SDKs retry
// with backoff: the server is past its budget for requests in flight.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
func Throttling(format string, args ...any) *Error {
	return newf("com.amazon.coral.availability#", "ThrottlingException", http.StatusBadRequest, format, args)
}

// RequestTooLarge is the answer to a request body over 16 MB (HTTP 413).
func RequestTooLarge(format string, args ...any) *Error {
	return newf(nsCoral, "RequestEntityTooLargeException", http.StatusRequestEntityTooLarge, format, args)
}

// InternalFailure is the front end's own failure (HTTP 500), which DynamoDB
// answers to a body it cannot decompress or in an encoding it does not know.
func InternalFailure() *Error {
	return &Error{Type: nsCoral + "InternalFailure", Status: http.StatusInternalServerError,
		Message: "The request processing has failed because of an unknown error, exception or failure."}
}
