package api

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
)

// validation is one documented refusal of an operation: a request body, the
// exact "Type: message" DynamoDB answers, and where that answer is
// documented or quoted (an AWS page or a public thread quoting AWS).
type validation struct {
	name, body, err, source string
}

// runValidations serves each case to op and asserts DynamoDB's answer.
func runValidations(t *testing.T, e *Engine, op string, cases []validation) {
	t.Helper()
	runServiceValidations(t, e, "", op, cases)
}

// runServiceValidations is runValidations for an operation of service
// ("DynamoDBStreams"; "" is DynamoDB).
func runServiceValidations(t *testing.T, e *Engine, service, op string, cases []validation) {
	t.Helper()
	for _, v := range cases {
		if v.source == "" {
			t.Errorf("%s %s: no source", op, v.name)
		}
		t.Run(v.name, func(t *testing.T) {
			got, gerr := callService(e, service, op, v.body)
			if gerr != v.err {
				t.Errorf("%s %s\n got error %q (response %s)\nwant error %q\n(source: %s)", op, v.body, gerr, got, v.err, v.source)
			}
		})
	}
}

// Member-constraint texts shared by the cases.
const (
	vNull      = "failed to satisfy constraint: Member must not be null"
	vPattern   = "failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	vMin3      = "failed to satisfy constraint: Member must have length greater than or equal to 3"
	vRCC       = "failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
	vRICM      = "failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"
	vRV        = "failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
	vSelect    = "failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"
	vOperator  = "failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"
	vEmptyList = "failed to satisfy constraint: Member must have length greater than or equal to 1"

	srcPutItem    = "https://github.com/mhart/dynalite/blob/master/test/putItem.js"
	srcGetItem    = "https://github.com/mhart/dynalite/blob/master/test/getItem.js"
	srcDeleteItem = "https://github.com/mhart/dynalite/blob/master/test/deleteItem.js"
	srcUpdateItem = "https://github.com/mhart/dynalite/blob/master/test/updateItem.js"
	srcQuery      = "https://github.com/mhart/dynalite/blob/master/test/query.js"
	srcScan       = "https://github.com/mhart/dynalite/blob/master/test/scan.js"
	srcTableName  = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-TableName (1 to 1,024 characters, a name or an ARN)"
	srcErrors     = "https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html"
)

func n1(s string) string { return "ValidationException: 1 validation error detected: " + s }

// callService is call for an operation of service.
func callService(e *Engine, service, op, body string) (string, string) {
	out, err := e.Serve(context.Background(), &protocol.Request{Service: service, Operation: op, Caller: protocol.Caller{Region: "us-east-1"}, Body: []byte(body)})
	if err != nil {
		de := ddberr.As(err)
		return "", de.Name() + ": " + de.Message
	}
	if a, ok := out.(protocol.Appender); ok {
		return string(a.AppendJSON(nil)), ""
	}
	b, jerr := json.Marshal(out)
	if jerr != nil {
		return "", "marshal: " + jerr.Error()
	}
	return string(b), ""
}
