package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ---- attribute values ----

func avS(s string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: s} }
func avN(n string) types.AttributeValue  { return &types.AttributeValueMemberN{Value: n} }
func avB(b []byte) types.AttributeValue  { return &types.AttributeValueMemberB{Value: b} }
func avBool(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }
func avNull() types.AttributeValue       { return &types.AttributeValueMemberNULL{Value: true} }
func avSS(s ...string) types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: s}
}
func avNS(n ...string) types.AttributeValue {
	return &types.AttributeValueMemberNS{Value: n}
}
func avBS(b ...[]byte) types.AttributeValue {
	return &types.AttributeValueMemberBS{Value: b}
}
func avL(v ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: v}
}
func avM(m map[string]types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: m}
}

type item = map[string]types.AttributeValue

// avText renders a value as canonical DynamoDB JSON: map keys sorted and set
// members sorted, so two values compare equal exactly when DynamoDB would
// consider them the same value.
func avText(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case *types.AttributeValueMemberS:
		return `{"S":` + quote(v.Value) + `}`
	case *types.AttributeValueMemberN:
		return `{"N":` + quote(v.Value) + `}`
	case *types.AttributeValueMemberB:
		return `{"B":` + quote(base64.StdEncoding.EncodeToString(v.Value)) + `}`
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf(`{"BOOL":%t}`, v.Value)
	case *types.AttributeValueMemberNULL:
		return fmt.Sprintf(`{"NULL":%t}`, v.Value)
	case *types.AttributeValueMemberSS:
		return `{"SS":` + sortedList(v.Value, quote) + `}`
	case *types.AttributeValueMemberNS:
		return `{"NS":` + sortedList(v.Value, quote) + `}`
	case *types.AttributeValueMemberBS:
		ss := make([]string, len(v.Value))
		for i, b := range v.Value {
			ss[i] = base64.StdEncoding.EncodeToString(b)
		}
		return `{"BS":` + sortedList(ss, quote) + `}`
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = avText(e)
		}
		return `{"L":[` + strings.Join(parts, ",") + `]}`
	case *types.AttributeValueMemberM:
		return `{"M":` + itemText(v.Value) + `}`
	default:
		return fmt.Sprintf("<unknown %T>", v)
	}
}

func itemText(it map[string]types.AttributeValue) string {
	if it == nil {
		return "<nil>"
	}
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quote(k) + ":" + avText(it[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func sortedList(ss []string, f func(string) string) string {
	c := append([]string(nil), ss...)
	sort.Strings(c)
	for i := range c {
		c[i] = f(c[i])
	}
	return "[" + strings.Join(c, ",") + "]"
}

// wantItem asserts got is exactly want (nil means "no item").
func wantItem(t testing.TB, got, want map[string]types.AttributeValue) {
	t.Helper()
	if (got == nil) != (want == nil) || itemText(got) != itemText(want) {
		t.Fatalf("item:\nwant %s\ngot  %s", itemText(want), itemText(got))
	}
}

// wantItems asserts the list of items is exactly want, in order.
func wantItems(t testing.TB, got, want []map[string]types.AttributeValue) {
	t.Helper()
	g := make([]string, len(got))
	for i := range got {
		g[i] = itemText(got[i])
	}
	w := make([]string, len(want))
	for i := range want {
		w[i] = itemText(want[i])
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Fatalf("items (%d, want %d):\nwant\n%s\ngot\n%s", len(got), len(want), strings.Join(w, "\n"), strings.Join(g, "\n"))
	}
}

// ---- tables ----

var tableSeq atomic.Int64

// tableName returns a unique table name for this test run.
func tableName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e6, tableSeq.Add(1))
}

func keySchema(hash string, rng ...string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if len(rng) > 0 {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng[0]), KeyType: types.KeyTypeRange})
	}
	return ks
}

// attrDefs builds AttributeDefinitions from name/type pairs.
func attrDefs(pairs ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(pairs[i]), AttributeType: types.ScalarAttributeType(pairs[i+1])})
	}
	return out
}

// createHashTable creates an on-demand table keyed by pk of type pkType.
func createHashTable(t testing.TB, c *dynamodb.Client, name, pkType string) {
	t.Helper()
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", pkType),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// createRangeTable creates an on-demand table keyed by pk (S) and sk of type skType.
func createRangeTable(t testing.TB, c *dynamodb.Client, name, skType string) {
	t.Helper()
	_, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "sk", skType),
		KeySchema:            keySchema("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

func putItem(t testing.TB, c *dynamodb.Client, table string, it item) {
	t.Helper()
	if _, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatalf("PutItem %s: %v", itemText(it), err)
	}
}

func getItem(t testing.TB, c *dynamodb.Client, table string, key item) item {
	t.Helper()
	out, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem %s: %v", itemText(key), err)
	}
	return out.Item
}

// ---- raw HTTP ----

type rawResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// rawRequest builds a DynamoDB JSON 1.0 request. When sign is true it is
// signed with SigV4 like an SDK request.
func rawRequest(t testing.TB, endpoint, target string, body []byte, sign bool, edit func(*http.Request)) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	if edit != nil {
		edit(req)
	}
	if sign {
		sum := sha256.Sum256(body)
		creds := aws.Credentials{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey}
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", testRegion, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return req
}

// rawClient sends requests as built: no Accept-Encoding of its own and no
// transparent decompression, so tests see the bytes the server sent.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 2 * time.Minute}

func doRaw(t testing.TB, req *http.Request) rawResponse {
	t.Helper()
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// callRaw sends a signed request for operation op with a JSON body.
func callRaw(t testing.TB, endpoint, op, body string) rawResponse {
	t.Helper()
	return doRaw(t, rawRequest(t, endpoint, "DynamoDB_20120810."+op, []byte(body), true, nil))
}

// wantRawError asserts a raw response is HTTP 400 with this __type short
// name and message ("" asserts the message member is absent).
func wantRawError(t testing.TB, r rawResponse, name, message string) {
	t.Helper()
	var body struct {
		Type    string  `json:"__type"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.Body)
	}
	if r.Status != http.StatusBadRequest {
		t.Fatalf("status: want 400, got %d (%s)", r.Status, r.Body)
	}
	if i := strings.LastIndexByte(body.Type, '#'); i < 0 || body.Type[i+1:] != name {
		t.Fatalf("__type: want ...#%s, got %q (%s)", name, body.Type, r.Body)
	}
	got := ""
	if body.Message != nil {
		got = *body.Message
	}
	if got != message {
		t.Fatalf("%s message:\nwant %q\ngot  %q", name, message, got)
	}
}

// wantValidationErrors asserts a ValidationException that lists exactly
// these member-constraint violations, in any order, as DynamoDB does:
// "N validation error(s) detected: a; b; c".
func wantValidationErrors(t testing.TB, gotMessage string, want ...string) {
	t.Helper()
	prefix := fmt.Sprintf("%d validation errors detected: ", len(want))
	if len(want) == 1 {
		prefix = "1 validation error detected: "
	}
	if !strings.HasPrefix(gotMessage, prefix) {
		t.Fatalf("message %q does not start with %q", gotMessage, prefix)
	}
	rest := gotMessage[len(prefix):]
	for _, w := range want {
		if !strings.Contains(rest, w) {
			t.Fatalf("message %q lacks %q", gotMessage, w)
		}
		rest = strings.Replace(rest, w, "", 1)
	}
	if strings.Trim(rest, "; ") != "" {
		t.Fatalf("message %q has more than the %d expected errors (left: %q)", gotMessage, len(want), rest)
	}
}

func rawMessage(t testing.TB, r rawResponse) string {
	t.Helper()
	var body struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.Body)
	}
	return body.Message
}

var requestIDRE = regexp.MustCompile(`^[0-9A-Z]{52}$`)
