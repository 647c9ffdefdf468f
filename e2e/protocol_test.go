package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"strconv"
	"testing"
)

// Wire-level behaviour of DynamoDB's JSON 1.0 protocol. Expected bodies and
// checksums are from architect/dynalite test/connection.js and
// test/listTables.js (https://github.com/architect/dynalite/tree/main/test),
// which are run against DynamoDB itself.

// checkEnvelope asserts the headers every response carries: a 52-character
// request id, a correct x-amz-crc32 of the body, and its Content-Length.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html
func checkEnvelope(t testing.TB, r rawResponse) {
	t.Helper()
	if id := r.Header.Get("x-amzn-RequestId"); !requestIDRE.MatchString(id) {
		t.Fatalf("x-amzn-RequestId %q is not 52 characters of [0-9A-Z]", id)
	}
	want := strconv.FormatUint(uint64(crc32.ChecksumIEEE(r.Body)), 10)
	if got := r.Header.Get("x-amz-crc32"); got != want {
		t.Fatalf("x-amz-crc32: header %q, CRC-32 of body %s", got, want)
	}
	if got := r.Header.Get("Content-Length"); got != strconv.Itoa(len(r.Body)) {
		t.Fatalf("Content-Length %q for a %d-byte body", got, len(r.Body))
	}
}

func TestProtocolUnknownOperation(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct {
		name   string
		target string
		sign   bool
	}{
		{"misspelt operation", "DynamoDB_20120810.ListTable", false},
		{"misspelt operation, signed", "DynamoDB_20120810.ListTable", true},
		{"other target", "whatever", false},
		{"no target", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := doRaw(t, rawRequest(t, s.Endpoint, tc.target, []byte("{}"), tc.sign, nil))
			checkEnvelope(t, r)
			if r.Status != 400 || string(r.Body) != `{"__type":"com.amazon.coral.service#UnknownOperationException"}` {
				t.Fatalf("got %d %s", r.Status, r.Body)
			}
			if got := r.Header.Get("x-amz-crc32"); got != "1368724161" {
				t.Fatalf("x-amz-crc32 %s, DynamoDB's is 1368724161", got)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
}

func TestProtocolMissingAuthentication(t *testing.T) {
	s := startServer(t)
	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("{}"), false, nil))
	checkEnvelope(t, r)
	want := `{"__type":"com.amazon.coral.service#MissingAuthenticationTokenException","message":"Request is missing Authentication Token"}`
	if r.Status != 400 || string(r.Body) != want {
		t.Fatalf("got %d %s\nwant 400 %s", r.Status, r.Body, want)
	}
	if got := r.Header.Get("x-amz-crc32"); got != "2088342776" {
		t.Fatalf("x-amz-crc32 %s, DynamoDB's is 2088342776", got)
	}
}

func TestProtocolSerializationErrors(t *testing.T) {
	s := startServer(t)
	t.Run("not JSON", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("hi"), true, nil))
		checkEnvelope(t, r)
		wantRawErrorType(t, r, "SerializationException")
	})
	t.Run("truncated JSON", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.CreateTable", []byte(`{"TableName":"abc",`), true, nil))
		checkEnvelope(t, r)
		wantRawErrorType(t, r, "SerializationException")
	})
	t.Run("wrong member type", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte(`{"Limit":"ten"}`), true, nil))
		checkEnvelope(t, r)
		wantRawErrorType(t, r, "SerializationException")
	})
	t.Run("empty body", func(t *testing.T) {
		// dynalite test/listTables.js "should return 400 if no body".
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", nil, true, nil))
		checkEnvelope(t, r)
		if r.Status != 400 || string(r.Body) != `{"__type":"com.amazon.coral.service#SerializationException"}` {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
	})
}

func TestProtocolGzipRequest(t *testing.T) {
	s := startServer(t)
	gz := func(b string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(b))
		zw.Close()
		return buf.Bytes()
	}
	setGzip := func(r *http.Request) { r.Header.Set("Content-Encoding", "gzip") }
	create := `{"TableName":"gzipped","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`
	r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.CreateTable", gz(create), true, setGzip))
	checkEnvelope(t, r)
	if r.Status != 200 {
		t.Fatalf("gzip CreateTable: %d %s", r.Status, r.Body)
	}
	r = doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", gz(`{}`), true, setGzip))
	checkEnvelope(t, r)
	var out struct{ TableNames []string }
	if err := json.Unmarshal(r.Body, &out); err != nil || r.Status != 200 {
		t.Fatalf("gzip ListTables: %d %s", r.Status, r.Body)
	}
	if len(out.TableNames) != 1 || out.TableNames[0] != "gzipped" {
		t.Fatalf("TableNames %v", out.TableNames)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestProtocolResponseHeaders(t *testing.T) {
	s := startServer(t)
	r := callRaw(t, s.Endpoint, "ListTables", `{}`)
	checkEnvelope(t, r)
	if r.Status != 200 || string(r.Body) != `{"TableNames":[]}` {
		t.Fatalf("ListTables on a new server: %d %s", r.Status, r.Body)
	}
	r = callRaw(t, s.Endpoint, "DescribeTable", `{"TableName":"nosuchtable"}`)
	checkEnvelope(t, r)
	wantRawError(t, r, "ResourceNotFoundException", "Requested resource not found: Table: nosuchtable not found")
	var body map[string]string
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
	if body["__type"] != "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException" {
		t.Fatalf("__type %q", body["__type"])
	}
	// Two requests never share an id.
	r2 := callRaw(t, s.Endpoint, "ListTables", `{}`)
	if r2.Header.Get("x-amzn-RequestId") == r.Header.Get("x-amzn-RequestId") {
		t.Fatal("two responses with one x-amzn-RequestId")
	}
}

// TestResponseBodiesExact checks whole response bodies of item operations:
// members that do not apply are left out, never sent as null. Expected
// bodies: dynalite test/putItem.js ("should put basic item": {} then
// {Item: ...}), test/getItem.js ({} for a missing item) and test/query.js
// ({Count, Items, ScannedCount} only).
func TestResponseBodiesExact(t *testing.T) {
	s := startServer(t)
	r := callRaw(t, s.Endpoint, "CreateTable", `{"TableName":"bodies","AttributeDefinitions":[{"AttributeName":"a","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"a","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	if r.Status != 200 {
		t.Fatalf("CreateTable: %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct{ op, body, want string }{
		{"PutItem", `{"TableName":"bodies","Item":{"a":{"S":"x"},"n":{"N":"1"}}}`, `{}`},
		{"GetItem", `{"TableName":"bodies","Key":{"a":{"S":"x"}},"ConsistentRead":true}`, `{"Item":{"a":{"S":"x"},"n":{"N":"1"}}}`},
		{"GetItem", `{"TableName":"bodies","Key":{"a":{"S":"missing"}}}`, `{}`},
		{"UpdateItem", `{"TableName":"bodies","Key":{"a":{"S":"x"}},"UpdateExpression":"SET n = :v","ExpressionAttributeValues":{":v":{"N":"2"}}}`, `{}`},
		{"Query", `{"TableName":"bodies","KeyConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"x"}}}`, `{"Count":1,"Items":[{"a":{"S":"x"},"n":{"N":"2"}}],"ScannedCount":1}`},
		{"Query", `{"TableName":"bodies","KeyConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"none"}}}`, `{"Count":0,"Items":[],"ScannedCount":0}`},
		{"Scan", `{"TableName":"bodies"}`, `{"Count":1,"Items":[{"a":{"S":"x"},"n":{"N":"2"}}],"ScannedCount":1}`},
		{"DeleteItem", `{"TableName":"bodies","Key":{"a":{"S":"x"}}}`, `{}`},
	} {
		r := callRaw(t, s.Endpoint, tc.op, tc.body)
		checkEnvelope(t, r)
		if r.Status != 200 {
			t.Fatalf("%s %s: %d %s", tc.op, tc.body, r.Status, r.Body)
		}
		// Compare as JSON values: member order is free, members and values are not.
		var got, want any
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Fatalf("%s: body is not JSON: %s", tc.op, r.Body)
		}
		json.Unmarshal([]byte(tc.want), &want)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s %s:\nwant %s\ngot  %s", tc.op, tc.body, w, r.Body)
		}
	}
}

// DynamoDB's front end answers a request that is not a POST, or whose body is
// in a content type it does not speak, with 404 and an XML body; an AWS4
// Authorization header lacking its parts is an IncompleteSignatureException.
// https://github.com/mhart/dynalite/blob/master/index.js (behaviour recorded
// against DynamoDB)
func TestProtocolFrontEndErrors(t *testing.T) {
	s := startServer(t)
	t.Run("PUT", func(t *testing.T) {
		req := rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("{}"), true, nil)
		req.Method = http.MethodPut
		r := doRaw(t, req)
		if r.Status != 404 || string(r.Body) != "<UnknownOperationException/>\n" {
			t.Fatalf("got %d %q", r.Status, r.Body)
		}
	})
	t.Run("text/plain body", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("{}"), true, func(r *http.Request) {
			r.Header.Set("Content-Type", "text/plain")
		}))
		if r.Status != 404 || string(r.Body) != "<UnknownOperationException/>\n" {
			t.Fatalf("got %d %q", r.Status, r.Body)
		}
	})
	t.Run("x-amz-json-1.1 accepted", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("{}"), true, func(r *http.Request) {
			r.Header.Set("Content-Type", "application/x-amz-json-1.1")
		}))
		if r.Status != 200 {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
	})
	t.Run("incomplete signature", func(t *testing.T) {
		auth := "AWS4-HMAC-SHA256 Signature=abc"
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("{}"), false, func(r *http.Request) {
			r.Header.Set("Authorization", auth)
		}))
		wantRawError(t, r, "IncompleteSignatureException",
			"Authorization header requires 'Credential' parameter. Authorization header requires 'SignedHeaders' parameter. "+
				"Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization="+auth)
	})
	t.Run("not AWS4", func(t *testing.T) {
		r := doRaw(t, rawRequest(t, s.Endpoint, "DynamoDB_20120810.ListTables", []byte("{}"), false, func(r *http.Request) {
			r.Header.Set("Authorization", "garbage")
		}))
		wantRawError(t, r, "MissingAuthenticationTokenException", "Request is missing Authentication Token")
	})
}
