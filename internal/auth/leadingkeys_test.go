package auth

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
	"github.com/extenddb/extenddb/internal/storage"
)

// TestAuthorizeLeadingKeys: dynamodb:LeadingKeys holds the partition key
// values of each request, on every item operation, batches and
// transactions per table and Query through its key condition, with the
// policy of AWS's fine-grained access control example (a user confined to
// the items whose partition key is their own ID), from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html.
// Scan names no key, so ForAllValues holds, as AWS documents for absent
// keys; the example leaves Scan out of its actions for that reason.
func TestAuthorizeLeadingKeys(t *testing.T) {
	ctx := context.Background()
	st, b := openTestStore(t)
	const acct = "111122223333"
	if err := st.Bootstrap(ctx, acct, testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []*storage.Table{
		{Account: acct, Name: "GameScores", ID: "0a1b2c3d4e5f60718293a4b5c6d7e8f0", Status: storage.StatusActive, BillingMode: "PAY_PER_REQUEST",
			KeySchema: []storage.KeyElement{{AttributeName: "UserId", KeyType: "HASH"}, {AttributeName: "GameTitle", KeyType: "RANGE"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "UserId", AttributeType: "S"},
				{AttributeName: "GameTitle", AttributeType: "S"}, {AttributeName: "TopScore", AttributeType: "N"}},
			Indexes: []storage.Index{{IndexName: "ByTitle", Global: true, ID: "1a1b2c3d4e5f60718293a4b5c6d7e8f0",
				KeySchema: []storage.KeyElement{{AttributeName: "GameTitle", KeyType: "HASH"}, {AttributeName: "TopScore", KeyType: "RANGE"}}}}},
		{Account: acct, Name: "Ids", ID: "2a1b2c3d4e5f60718293a4b5c6d7e8f0", Status: storage.StatusActive, BillingMode: "PAY_PER_REQUEST",
			KeySchema:            []storage.KeyElement{{AttributeName: "id", KeyType: "HASH"}},
			AttributeDefinitions: []storage.AttributeDefinition{{AttributeName: "id", AttributeType: "N"}}},
	} {
		if err := b.CreateTable(ctx, tbl); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CreateUser(ctx, acct, "bob"); err != nil {
		t.Fatal(err)
	}
	k, err := st.CreateAccessKey(ctx, acct, "bob", "AKIABOB0000000000000", "bob-secret")
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutUserPolicy(ctx, acct, "bob", "own-items", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:BatchGetItem","dynamodb:Query","dynamodb:PutItem",
			"dynamodb:UpdateItem","dynamodb:DeleteItem","dynamodb:BatchWriteItem","dynamodb:ConditionCheckItem","dynamodb:Scan"],
		 "Resource":["arn:aws:dynamodb:*:*:table/GameScores","arn:aws:dynamodb:*:*:table/GameScores/index/*"],
		 "Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["bob","Chess"]}}},
		{"Effect":"Allow","Action":"dynamodb:GetItem","Resource":"arn:aws:dynamodb:*:*:table/Ids",
		 "Condition":{"ForAllValues:StringEquals":{"dynamodb:LeadingKeys":["7"]}}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Tables: b.GetTable, Now: func() time.Time { return now }})
	authz := func(op, body string) error {
		r, _ := signedRequest(t, body, testSecret, "us-east-1", now, nil)
		r, sum := resign(t, r, body, k.ID, "bob-secret", now)
		c, err := a.Authenticate(r, sum)
		if err != nil {
			return err
		}
		_, err = a.Authorize(r, c, "DynamoDB", op, []byte(body))
		return err
	}
	const bob = "arn:aws:iam::" + acct + ":user/bob"
	denied := func(action, res string) string {
		return "User: " + bob + " is not authorized to perform: " + action + " on resource: arn:aws:dynamodb:us-east-1:" + acct + ":" + res +
			" because no identity-based policy allows the " + action + " action"
	}
	cases := []struct{ op, body, want string }{
		{"GetItem", `{"TableName":"GameScores","Key":{"UserId":{"S":"bob"},"GameTitle":{"S":"Go"}}}`, ""},
		{"GetItem", `{"TableName":"GameScores","Key":{"UserId":{"S":"alice"},"GameTitle":{"S":"Go"}}}`, denied("dynamodb:GetItem", "table/GameScores")},
		{"GetItem", `{"TableName":"arn:aws:dynamodb:us-east-1:111122223333:table/GameScores","Key":{"UserId":{"S":"alice"},"GameTitle":{"S":"Go"}}}`, denied("dynamodb:GetItem", "table/GameScores")},
		{"PutItem", `{"TableName":"GameScores","Item":{"UserId":{"S":"bob"},"GameTitle":{"S":"Go"},"TopScore":{"N":"1"}}}`, ""},
		{"PutItem", `{"TableName":"GameScores","Item":{"UserId":{"S":"alice"},"GameTitle":{"S":"Go"}}}`, denied("dynamodb:PutItem", "table/GameScores")},
		{"UpdateItem", `{"TableName":"GameScores","Key":{"UserId":{"S":"alice"},"GameTitle":{"S":"Go"}}}`, denied("dynamodb:UpdateItem", "table/GameScores")},
		{"DeleteItem", `{"TableName":"GameScores","Key":{"UserId":{"S":"bob"},"GameTitle":{"S":"Go"}}}`, ""},
		{"GetItem", `{"TableName":"Ids","Key":{"id":{"N":"7"}}}`, ""},
		{"GetItem", `{"TableName":"Ids","Key":{"id":{"N":"8"}}}`, denied("dynamodb:GetItem", "table/Ids")},
		// Batches: every key of the table must be allowed.
		{"BatchGetItem", `{"RequestItems":{"GameScores":{"Keys":[{"UserId":{"S":"bob"},"GameTitle":{"S":"a"}},{"UserId":{"S":"bob"},"GameTitle":{"S":"b"}}]}}}`, ""},
		{"BatchGetItem", `{"RequestItems":{"GameScores":{"Keys":[{"UserId":{"S":"bob"},"GameTitle":{"S":"a"}},{"UserId":{"S":"eve"},"GameTitle":{"S":"b"}}]}}}`, denied("dynamodb:BatchGetItem", "table/GameScores")},
		{"BatchWriteItem", `{"RequestItems":{"GameScores":[{"PutRequest":{"Item":{"UserId":{"S":"bob"},"GameTitle":{"S":"a"}}}},{"DeleteRequest":{"Key":{"UserId":{"S":"bob"},"GameTitle":{"S":"b"}}}}]}}`, ""},
		{"BatchWriteItem", `{"RequestItems":{"GameScores":[{"PutRequest":{"Item":{"UserId":{"S":"bob"},"GameTitle":{"S":"a"}}}},{"DeleteRequest":{"Key":{"UserId":{"S":"eve"},"GameTitle":{"S":"b"}}}}]}}`, denied("dynamodb:BatchWriteItem", "table/GameScores")},
		// Transactions: each action on its own key.
		{"TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"GameScores","Item":{"UserId":{"S":"bob"},"GameTitle":{"S":"a"}}}},{"ConditionCheck":{"TableName":"GameScores","Key":{"UserId":{"S":"bob"},"GameTitle":{"S":"b"}}}}]}`, ""},
		{"TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"GameScores","Item":{"UserId":{"S":"bob"},"GameTitle":{"S":"a"}}}},{"Delete":{"TableName":"GameScores","Key":{"UserId":{"S":"eve"},"GameTitle":{"S":"b"}}}}]}`, denied("dynamodb:DeleteItem", "table/GameScores")},
		// Query: the partition key value of the key condition, on the index
		// queried when there is one.
		{"Query", `{"TableName":"GameScores","KeyConditionExpression":"UserId = :u AND begins_with(GameTitle, :g)","ExpressionAttributeValues":{":u":{"S":"bob"},":g":{"S":"C"}}}`, ""},
		{"Query", `{"TableName":"GameScores","KeyConditionExpression":"#u = :u","ExpressionAttributeNames":{"#u":"UserId"},"ExpressionAttributeValues":{":u":{"S":"eve"}}}`, denied("dynamodb:Query", "table/GameScores")},
		{"Query", `{"TableName":"GameScores","KeyConditions":{"UserId":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"eve"}]}}}`, denied("dynamodb:Query", "table/GameScores")},
		{"Query", `{"TableName":"GameScores","IndexName":"ByTitle","KeyConditionExpression":"GameTitle = :g","ExpressionAttributeValues":{":g":{"S":"Chess"}}}`, ""},
		{"Query", `{"TableName":"GameScores","IndexName":"ByTitle","KeyConditionExpression":"GameTitle = :g","ExpressionAttributeValues":{":g":{"S":"Go"}}}`, denied("dynamodb:Query", "table/GameScores/index/ByTitle")},
		{"Scan", `{"TableName":"GameScores"}`, ""},
	}
	for _, c := range cases {
		err := authz(c.op, c.body)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: %v", c.op, c.body, err)
			}
			continue
		}
		e := ddberr.As(err)
		if err == nil || e.Type != "com.amazon.coral.service#AccessDeniedException" || e.Message != c.want {
			t.Errorf("%s %s: got %v\nwant %q", c.op, c.body, err, c.want)
		}
	}
}
