// Package expr is DynamoDB's expression language: condition and filter
// expressions, key condition expressions, update expressions and projection
// expressions, plus the legacy parameters (Expected, KeyConditions,
// QueryFilter, ScanFilter, AttributeUpdates, AttributesToGet) translated onto
// the same evaluator. It has no I/O.
//
// An expression is parsed once per request and evaluated against any number
// of items. Parsing has two phases: the syntax phase (lexer.go, parser.go,
// parse_cond.go, parse_update.go) turns the text into a tree that still
// holds #name and :value placeholders, and is cached by expression text
// (cache.go); the bind phase (validate.go) resolves the placeholders against
// the request's ExpressionAttributeNames and ExpressionAttributeValues and
// runs DynamoDB's semantic checks in DynamoDB's order. Evaluation is in
// eval.go (conditions), update.go (updates), project.go (projections) and
// keycond.go (key conditions).
//
// Every error is a *ddberr.Error ValidationException carrying DynamoDB's
// message. Messages of malformed expressions start with "Invalid <Kind>: "
// where Kind is the request parameter (ConditionExpression,
// FilterExpression, KeyConditionExpression, UpdateExpression,
// ProjectionExpression).
//
// # Use from the API layer
//
// For each request:
//
//  1. CheckParameters with the operation's expression and legacy parameter
//     names (mixing rule, names/values without expressions).
//  2. u := NewUsage(); parse every expression present with the request's
//     names and values and u: ParseCondition(KindCondition, ...) for
//     ConditionExpression, ParseCondition(KindFilter, ...) for
//     FilterExpression, ParseKeyCondition for KeyConditionExpression,
//     ParseUpdate for UpdateExpression, ParseProjection for
//     ProjectionExpression. Legacy parameters go through ConvertExpected,
//     ConvertFilter, ConvertKeyConditions, ConvertAttributeUpdates and
//     ConvertAttributesToGet instead.
//  3. u.CheckUnused(names, values) once all expressions are parsed.
//  4. Evaluate: (*Condition).Eval on the existing item (an empty Item when
//     there is none) and fail with ConditionalCheckFailedException when false;
//     (*Update).Apply on the existing item, then (*Update).CheckKeyUpdate,
//     and (*Update).Updated on the old or new item for ReturnValues
//     UPDATED_OLD / UPDATED_NEW; (*KeyCondition).Match or its fields to
//     drive a Query; (*Projection).Project on each returned item.
package expr
