package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/internal/storage"
)

// BatchWriteItem and BatchGetItem.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func TestBatch(t *testing.T) {
	e := itemEngine(t)
	runSteps(t, e, []step{
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"a"},"v":{"N":"1"}}}},{"PutRequest":{"Item":{"pk":{"S":"b"}}}}],
			"range":[{"PutRequest":{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}}]},"ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE"}`,
			want: `{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"hash","CapacityUnits":2.0},{"TableName":"range","CapacityUnits":1.0}],
				"ItemCollectionMetrics":{"range":[{"ItemCollectionKey":{"pk":{"S":"a"}},"SizeEstimateRangeGB":[0.0,1.0]}]}}`},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"a"}},{"pk":{"S":"zz"}}],"ProjectionExpression":"v"},"range":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"ConsistentRead":true}},"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"Responses":{"hash":[{"v":{"N":"1"}}],"range":[{"pk":{"S":"a"},"sk":{"N":"1"}}]},"UnprocessedKeys":{},
				"ConsumedCapacity":[{"TableName":"hash","CapacityUnits":1.0},{"TableName":"range","CapacityUnits":1.0}]}`},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}`, want: `{"UnprocessedItems":{}}`},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"a"}},{"pk":{"S":"b"}}],"AttributesToGet":["pk"]}}}`,
			want: `{"Responses":{"hash":[{"pk":{"S":"b"}}]},"UnprocessedKeys":{}}`},
	})
}

func TestBatchValidation(t *testing.T) {
	e := itemEngine(t)
	keys := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"pk":{"S":"k%d"}}`, i)
		}
		return strings.Join(parts, ",")
	}
	puts := func(table string, n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"PutRequest":{"Item":{"pk":{"S":"k%d"}}}}`, i)
		}
		return `"` + table + `":[` + strings.Join(parts, ",") + `]`
	}
	runSteps(t, e, []step{
		{op: "BatchGetItem", body: `{}`, err: "ValidationException: 1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not be null"},
		{op: "BatchWriteItem", body: `{}`, err: "ValidationException: 1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not be null"},
		// https://github.com/mhart/dynalite/blob/master/validations/batchGetItem.js
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[` + keys(60) + `]},"range":{"Keys":[` + keys(41) + `]}}}`, err: "ValidationException: Too many items requested for the BatchGetItem call"},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"a"}},{"pk":{"S":"a"}}]}}}`, err: "ValidationException: Provided list of item keys contains duplicates"},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"N":"1.0"}},{"pk":{"N":"1"}}]}}}`, err: "ValidationException: Provided list of item keys contains duplicates"},
		{op: "BatchGetItem", body: `{"RequestItems":{"nope":{"Keys":[{"pk":{"S":"a"}}]},"hash":{"Keys":[{"pk":{"N":"1"}}]}}}`, err: "ResourceNotFoundException: Requested resource not found"},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"N":"1"}}]}}}`, err: "ValidationException: The provided key element does not match the schema"},
		{op: "BatchGetItem", body: `{"RequestItems":{"hash":{"Keys":[{"pk":{"S":"a"}}],"AttributesToGet":["a","a"]}}}`, err: "ValidationException: One or more parameter values were invalid: Duplicate value in attribute name: a"},
		// https://github.com/mhart/dynalite/blob/master/validations/batchWriteItem.js
		{op: "BatchWriteItem", body: `{"RequestItems":{` + puts("hash", 20) + `,` + puts("bin", 6) + `}}`, err: "ValidationException: Too many items requested for the BatchWriteItem call"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[]}}`, err: "ValidationException: The batch write request list for a table cannot be null or empty: hash"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{}]}}`, err: "ValidationException: Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		// The system this server is modelled on, verified against DynamoDB: tables first,
		// then each request's key in order, duplicates as met.
		{op: "BatchWriteItem", body: `{"RequestItems":{"nope":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}],"hash":[{"PutRequest":{"Item":{"pk":{"S":""}}}}]}}`, err: "ResourceNotFoundException: Requested resource not found"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":""}}}}]}}`,
			err: "ValidationException: One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"d"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"d"}}}}]}}`, err: "ValidationException: Provided list of item keys contains duplicates"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"d"}}}},{"PutRequest":{"Item":{"pk":{"S":"d"}}}},{"PutRequest":{"Item":{"pk":{"S":"` + strings.Repeat("p", 2049) + `"}}}}]}}`,
			err: "ValidationException: Provided list of item keys contains duplicates"},
		// Inside a batch a missing, wrong-typed or non-scalar table key is a key
		// that does not match the schema (https://github.com/nubo-db/dynoxide/pull/101,
		// https://github.com/floci-io/floci/pull/3227).
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"x":{"S":"d"}}}}]}}`, err: "ValidationException: The provided key element does not match the schema"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"DeleteRequest":{"Key":{"x":{"S":"d"}}}}]}}`, err: "ValidationException: The provided key element does not match the schema"},
		{op: "BatchWriteItem", body: `{"RequestItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"a"},"big":{"S":"` + strings.Repeat("x", 400*1024) + `"}}}}]}}`, err: "ValidationException: Item size has exceeded the maximum allowed size"},
	})
	// Nothing was written by the rejected batches.
	runSteps(t, e, []step{{op: "Scan", body: `{"TableName":"hash","Select":"COUNT"}`, want: `{"Count":0,"ScannedCount":0}`}})
}

// A BatchGetItem response holds at most 16 MB; the rest comes back in
// UnprocessedKeys with the table's other request members.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func TestBatchGetResponseLimit(t *testing.T) {
	e := itemEngine(t)
	filler := strings.Repeat("x", 300*1024)
	var writes, keys []string
	for i := 0; i < 100; i++ {
		writes = append(writes, fmt.Sprintf(`{"PutRequest":{"Item":{"pk":{"S":"k%03d"},"f":{"S":"%s"}}}}`, i, filler))
		keys = append(keys, fmt.Sprintf(`{"pk":{"S":"k%03d"}}`, i))
		if len(writes) == 25 {
			mustServe(t, e, "BatchWriteItem", `{"RequestItems":{"hash":[`+strings.Join(writes, ",")+`]}}`)
			writes = nil
		}
	}
	out := mustServe(t, e, "BatchGetItem", `{"RequestItems":{"hash":{"Keys":[`+strings.Join(keys, ",")+`],"ConsistentRead":true}}}`).(*batchGetOutput)
	got := len(out.responses["hash"])
	u := out.unprocessed["hash"]
	if got < 50 || got > 56 || u == nil || got+len(u.Keys) != 100 || u.ConsistentRead == nil || !*u.ConsistentRead {
		t.Fatalf("returned %d items, unprocessed %+v", got, u)
	}
	b := string(out.AppendJSON(nil))
	if !strings.Contains(b, `"UnprocessedKeys":{"hash":{"Keys":[{"pk":{"S":"k`) || !strings.Contains(b, `"ConsistentRead":true}`) {
		t.Fatalf("UnprocessedKeys not encoded: %s", b[strings.Index(b, `"UnprocessedKeys"`):][:200])
	}
}

// parallelStore is a real backend that asks for concurrent single-item
// writes (storage.ParallelWriter), as Cassandra does.
type parallelStore struct{ storage.Backend }

func (parallelStore) WriteParallelism() int { return 8 }

// The writes of one BatchWriteItem call run concurrently on a backend that
// asks for it; the response (capacity per table and index, item collection
// metrics in request order) and the items stored are those of writing them
// one after another.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func TestBatchWriteConcurrentMatchesSerial(t *testing.T) {
	serial := itemEngine(t)
	conc := itemEngine(t)
	conc.store = parallelStore{conc.store}
	var reqs []string
	for i := range 12 {
		reqs = append(reqs, fmt.Sprintf(`{"PutRequest":{"Item":{"pk":{"S":"p%d"},"sk":{"N":"%d"},"lsk":{"S":"l%d"},"g":{"S":"g%d"},"pad":{"S":"%s"}}}}`, i%3, i, i, i%2, strings.Repeat("x", 100*i)))
	}
	for i := range 13 {
		reqs = append(reqs, fmt.Sprintf(`{"DeleteRequest":{"Key":{"pk":{"S":"p%d"},"sk":{"N":"%d"}}}}`, i%4, 100+i))
	}
	first := `{"RequestItems":{"range":[` + strings.Join(reqs, ",") + `]},"ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}`
	// The second call overwrites and deletes what the first wrote.
	for i := range 12 {
		if i%2 == 0 {
			reqs[i] = fmt.Sprintf(`{"DeleteRequest":{"Key":{"pk":{"S":"p%d"},"sk":{"N":"%d"}}}}`, i%3, i)
		} else {
			reqs[i] = strings.Replace(reqs[i], `"g":{"S":"g1"}`, `"g":{"S":"h"}`, 1)
		}
	}
	second := `{"RequestItems":{"range":[` + strings.Join(reqs, ",") + `]},"ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}`
	scan := `{"TableName":"range","ConsistentRead":true}`
	for _, c := range []struct{ op, body string }{{"BatchWriteItem", first}, {"BatchWriteItem", second}, {"Scan", scan}} {
		want, werr := call(serial, c.op, c.body)
		got, gerr := call(conc, c.op, c.body)
		if werr != "" || gerr != "" {
			t.Fatalf("%s: errors %q (serial) and %q (concurrent)", c.op, werr, gerr)
		}
		if !sameJSON(t, got, want) {
			t.Errorf("%s concurrent:\n%s\nserial:\n%s", c.op, got, want)
		}
	}
}

// A write returned in UnprocessedItems is the WriteRequest as sent: its one
// request, without a null member for the other kind.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_WriteRequest.html
func TestBatchWriteUnprocessedEncoding(t *testing.T) {
	var put, del writeRequest
	if err := json.Unmarshal([]byte(`{"PutRequest":{"Item":{"pk":{"S":"a"}}}}`), &put); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}`), &del); err != nil {
		t.Fatal(err)
	}
	tb := &storage.Table{Name: "hash"}
	var o batchWriteOutput
	o.leave(batchWrite{t: tb, req: put})
	o.leave(batchWrite{t: tb, req: del})
	got := string(o.AppendJSON(nil))
	want := `{"UnprocessedItems":{"hash":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
