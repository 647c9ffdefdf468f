package protocol

import (
	"encoding/json"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/jsonstring"
)

// appendErrorBody appends the JSON body of e to dst:
// {"__type":"...","message":"..."}, without "message" when e has none, and
// the members of e.Extra beside them. Errors without extra members (nearly
// all of them, ConditionalCheckFailedException included) are written
// directly, byte for byte what encoding/json writes for the same map
// (members in name order, <, > and & escaped as \u003c, \u003e and \u0026);
// errors with extra members are marshalled by encoding/json.
func appendErrorBody(dst []byte, e *ddberr.Error) ([]byte, error) {
	if len(e.Extra) > 0 {
		body := make(map[string]any, 2+len(e.Extra))
		for k, v := range e.Extra {
			body[k] = v
		}
		body["__type"] = e.Type
		if e.Message != "" {
			body["message"] = e.Message
		}
		out, err := json.Marshal(body)
		return append(dst, out...), err
	}
	dst = append(dst, `{"__type":`...)
	dst = jsonstring.AppendHTMLSafe(dst, e.Type)
	if e.Message != "" {
		dst = append(dst, `,"message":`...)
		dst = jsonstring.AppendHTMLSafe(dst, e.Message)
	}
	return append(dst, '}'), nil
}
