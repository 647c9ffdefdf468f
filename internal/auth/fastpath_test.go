package auth

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestSimpleTargets: the top-level TableName and IndexName read without
// decoding are the ones encoding/json decodes into authzBody (as the
// engine decodes them), and any body where that is not plain to see is
// left to decoding.
func TestSimpleTargets(t *testing.T) {
	cases := []struct {
		body         string
		table, index string
		ok           bool
	}{
		{`{"TableName":"T","Key":{"pk":{"S":"a"}}}`, "T", "", true},
		{` { "Key" : {"pk":{"S":"}\"{,"}} , "TableName" : "T" , "IndexName":"I"} `, "T", "I", true},
		{`{"tablename":"T","INDEXNAME":"I"}`, "T", "I", true},
		{`{"TableName":"A","TableName":"B"}`, "B", "", true},
		{`{"TableName":"A","tableName":"B"}`, "B", "", true},
		{`{"Key":[1,{"a":[true,null,-1.5e3]}],"TableName":"Tâble"}`, "Tâble", "", true},
		{`{}`, "", "", true},
		{`{"Limit":10,"TableName":"T","ConsistentRead":true}`, "T", "", true},
		// Left to decoding.
		{`{"T\u0061bleName":"X","TableName":"T"}`, "", "", false},
		{`{"TableName":"T\u0041"}`, "", "", false},
		{`{"TableName":null}`, "", "", false},
		{`{"TableName":1}`, "", "", false},
		{`{"TableName":"T","ſ":1}`, "", "", false},
		{`{"TableName":"T"`, "", "", false},
		{`{"TableName":"T"} x`, "", "", false},
		{`["TableName"]`, "", "", false},
		{``, "", "", false},
	}
	for _, c := range cases {
		table, index, ok := simpleTargets([]byte(c.body))
		if table != c.table || index != c.index || ok != c.ok {
			t.Errorf("%s: got %q %q %v, want %q %q %v", c.body, table, index, ok, c.table, c.index, c.ok)
		}
		var b authzBody
		_ = json.Unmarshal([]byte(c.body), &b) // a field of the wrong type is skipped, the others kept
		if ok && (b.TableName != table || b.IndexName != index) {
			t.Errorf("%s: decoding gives %q %q", c.body, b.TableName, b.IndexName)
		}
	}
}

// TestAuthorizeSimpleAgrees: every request the shortcut decides is
// decided as the general path decides it (same error, same message); the
// general path is forced by spelling TableName with an escape, which
// decoding reads as the same name.
func TestAuthorizeSimpleAgrees(t *testing.T) {
	ctx := context.Background()
	st, b := openTestStore(t)
	const acct = "111122223333"
	if err := st.Bootstrap(ctx, acct, testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	denyRoot := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"dynamodb:GetItem","Resource":"*"}]}`
	allowAll := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"dynamodb:*","Resource":"*"}]}`
	for i, tc := range []struct{ name, policy string }{{"A", ""}, {"dana-1", ""}, {"Denied", denyRoot}, {"Open", allowAll}} {
		tbl := &storage.Table{Account: acct, Name: tc.name, ID: strings.Repeat(string(rune('a'+i)), 32), Status: storage.StatusActive,
			BillingMode: "PAY_PER_REQUEST", KeySchema: []storage.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}}
		if tc.policy != "" {
			tbl.ResourcePolicies = map[string]storage.ResourcePolicy{"": {Document: tc.policy, RevisionID: "1"}}
		}
		if err := b.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
	}
	secrets := map[string]string{testKey: testSecret}
	for user, doc := range map[string]string{
		// No condition: the context is never built.
		"carl": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:Query","dynamodb:PutItem"],"Resource":["arn:aws:dynamodb:*:*:table/A","arn:aws:dynamodb:*:*:table/A/index/*","arn:aws:dynamodb:*:*:table/Open"]},
			{"Effect":"Deny","Action":"dynamodb:PutItem","Resource":"*"}]}`,
		// Conditions on global keys and a policy variable.
		"dana": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"arn:aws:dynamodb:*:*:table/${aws:username}-*"},
			{"Effect":"Allow","Action":"dynamodb:Scan","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"198.51.100.0/24"}}},
			{"Effect":"Allow","Action":"dynamodb:Query","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`,
		// A DynamoDB condition key: always the general path.
		"erin": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"*","Condition":{"StringEquals":{"dynamodb:Select":"COUNT"}}}]}`,
	} {
		if _, err := st.CreateUser(ctx, acct, user); err != nil {
			t.Fatal(err)
		}
		id := "AKIA" + strings.ToUpper(user) + strings.Repeat("0", 16-len(user))
		if _, err := st.CreateAccessKey(ctx, acct, user, id, user+"-secret"); err != nil {
			t.Fatal(err)
		}
		if err := st.PutUserPolicy(ctx, acct, user, "p", doc); err != nil {
			t.Fatal(err)
		}
		secrets[id] = user + "-secret"
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Tables: b.GetTable, Now: func() time.Time { return now }})
	authz := func(key, op, body string) (handled bool, err error) {
		r, _ := signedRequest(t, body, testSecret, "us-east-1", now, nil)
		r, sum := resign(t, r, body, key, secrets[key], now)
		c, err := a.Authenticate(r, sum)
		if err != nil {
			t.Fatal(err)
		}
		handled, _ = a.authorizeSimple(r, c, c.Identity.(*principal), op, []byte(body))
		_, err = a.Authorize(r, c, "DynamoDB", op, []byte(body))
		return handled, err
	}
	handledAny := map[bool]bool{}
	for _, key := range []string{testKey, "AKIACARL000000000000", "AKIADANA000000000000", "AKIAERIN000000000000"} {
		for _, op := range []string{"GetItem", "PutItem", "Query", "Scan", "DescribeTable", "DeleteTable"} {
			for _, table := range []string{"A", "dana-1", "Denied", "Open", "Missing", "Denied/index/I", "arn:aws:dynamodb:us-east-1:111122223333:table/Denied"} {
				for _, index := range []string{"", `,"IndexName":"I"`} {
					body := `{"TableName":"` + table + `"` + index + `,"Key":{"pk":{"S":"x"}}}`
					handled, fast := authz(key, op, body)
					_, general := authz(key, op, strings.Replace(body, "TableName", `\u0054ableName`, 1))
					handledAny[handled] = true
					if fe, ge := ddberr.As(fast), ddberr.As(general); (fast == nil) != (general == nil) ||
						(fast != nil && (fe.Type != ge.Type || fe.Message != ge.Message)) {
						t.Errorf("%s %s %s: shortcut %v, general %v", key, op, body, fast, general)
					}
				}
			}
		}
	}
	if !handledAny[true] || !handledAny[false] {
		t.Errorf("the shortcut decided %v", handledAny)
	}
}

// FuzzSimpleTargets: whatever the body, the names read without decoding,
// when read, are the ones decoding finds.
//
//	go test -run XXX -fuzz FuzzSimpleTargets -fuzztime 30s ./internal/auth/
func FuzzSimpleTargets(f *testing.F) {
	for _, s := range []string{`{"TableName":"T","Key":{"pk":{"S":"a"}}}`, `{"tablename":"a","TableName":"b","IndexName":"i"}`,
		`{"Key":[1,{"a":"}"}],"TableName":"x"}`, `{"TableName":"T\u0041"}`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		table, index, ok := simpleTargets([]byte(body))
		if !ok {
			return
		}
		var b authzBody
		_ = json.Unmarshal([]byte(body), &b)
		if b.TableName != table || b.IndexName != index {
			t.Errorf("%s: read %q %q, decoded %q %q", body, table, index, b.TableName, b.IndexName)
		}
	})
}
