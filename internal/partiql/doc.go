// Package partiql is DynamoDB's dialect of PartiQL: a lexer, a
// recursive-descent parser into a typed AST (ast.go), the binding of literals
// and ? parameters to AttributeValues (bind.go), and the planner (plan.go)
// that turns a statement into one of the engine's own operations — GetItem,
// Query or Scan for SELECT; PutItem, UpdateItem or DeleteItem for writes —
// expressed in DynamoDB's expression language, so that statements run on the
// engine's semantics rather than on a second copy of them. It has no I/O.
//
// Every error is a *ddberr.Error ValidationException carrying DynamoDB's
// message; a statement the parser cannot read gets "Statement wasn't well
// formed, can't be processed: <detail>".
//
// References:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-functions.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-operators.html
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.data-types.html
package partiql
