package api

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/protocol"
	"github.com/extenddb/extenddb/internal/storage/sqlite"
)

// itemEngine returns an engine over a fresh SQLite file with the tables the
// item tests use:
//
//	hash   pk S
//	range  pk S, sk N; LSI lsi (pk, lsk S, KEYS_ONLY); GSI gsi (g S, KEYS_ONLY);
//	       GSI gsiall (g S, sk N, ALL)
//	bin    pk B
func itemEngine(t testing.TB) *Engine {
	t.Helper()
	store, err := sqlite.Open(t.Context(), sqlite.Options{Path: filepath.Join(t.TempDir(), "items.sqlite"), Synchronous: "OFF"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e := New(store, Config{})
	mustServe(t, e, "CreateTable", `{"TableName":"hash","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	mustServe(t, e, "CreateTable", `{"TableName":"range","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},
			{"AttributeName":"lsk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"lsk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],
		"GlobalSecondaryIndexes":[
			{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
			{"IndexName":"gsiall","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	mustServe(t, e, "CreateTable", `{"TableName":"bin","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"B"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	return e
}

// call serves one request and returns its JSON response body, or the
// error as "Name: message".
func call(e *Engine, op, body string) (string, string) {
	out, err := e.Serve(context.Background(), &protocol.Request{Operation: op, Caller: protocol.Caller{Region: "us-east-1"}, Body: []byte(body)})
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

// callErr serves a request expected to fail and returns the whole error.
func callErr(e *Engine, op, body string) *ddberr.Error {
	_, err := e.Serve(context.Background(), &protocol.Request{Operation: op, Caller: protocol.Caller{Region: "us-east-1"}, Body: []byte(body)})
	if err == nil {
		return nil
	}
	return ddberr.As(err)
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t testing.TB, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("bad JSON %s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("bad JSON %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// step is one request of a scenario: the response (JSON, compared as a
// value) or error ("Name: message") it must produce.
type step struct {
	name string
	op   string
	body string
	want string
	err  string
}

func runSteps(t *testing.T, e *Engine, steps []step) {
	t.Helper()
	for _, s := range steps {
		got, gerr := call(e, s.op, s.body)
		label := s.name
		if label == "" {
			label = s.op + " " + s.body
		}
		switch {
		case s.err != "":
			if gerr != s.err {
				t.Errorf("%s:\n got error %q (response %s)\nwant error %q", label, gerr, got, s.err)
			}
		case gerr != "":
			t.Errorf("%s: unexpected error %s", label, gerr)
		case s.want != "" && !sameJSON(t, got, s.want):
			t.Errorf("%s:\n got %s\nwant %s", label, got, s.want)
		}
	}
}

func marshalJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
