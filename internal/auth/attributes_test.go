package auth

import (
	"context"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/ddberr"
)

// TestAuthorizeAttributes: dynamodb:Attributes with AWS's documented
// example policies. Read-only access to some attributes, with the
// dynamodb:Select requirement, from IAM's example
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_examples_dynamodb_attributes.html
// and the knowledge-center article (key attributes must be listed too)
// https://repost.aws/knowledge-center/dynamodb-table-restrict-attributes;
// and a Deny on one attribute with ForAnyValue, from
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html.
func TestAuthorizeAttributes(t *testing.T) {
	ctx := context.Background()
	st, _ := openTestStore(t)
	const acct = "111122223333"
	if err := st.Bootstrap(ctx, acct, testKey, testSecret); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, acct, "dana"); err != nil {
		t.Fatal(err)
	}
	k, err := st.CreateAccessKey(ctx, acct, "dana", "AKIADANA000000000000", "dana-secret")
	if err != nil {
		t.Fatal(err)
	}
	err = st.PutUserPolicy(ctx, acct, "dana", "columns", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:BatchGetItem","dynamodb:Query","dynamodb:PutItem","dynamodb:UpdateItem",
			"dynamodb:DeleteItem","dynamodb:BatchWriteItem","dynamodb:TransactGetItems"],
		 "Resource":["arn:aws:dynamodb:*:*:table/GameScores"],
		 "Condition":{"ForAllValues:StringEquals":{"dynamodb:Attributes":["UserId","GameTitle","TopScore","TopScoreDateTime"]},
		              "StringEqualsIfExists":{"dynamodb:Select":"SPECIFIC_ATTRIBUTES"}}},
		{"Effect":"Allow","Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:Scan"],"Resource":"arn:aws:dynamodb:*:*:table/Profiles",
		 "Condition":{"StringEqualsIfExists":{"dynamodb:ReturnConsumedCapacity":"NONE"}}},
		{"Effect":"Deny","Action":["dynamodb:GetItem","dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:Scan"],"Resource":"arn:aws:dynamodb:*:*:table/Profiles",
		 "Condition":{"ForAnyValue:StringEquals":{"dynamodb:Attributes":["SSN"]}}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := New(Config{Store: st, HomeRegion: "us-east-1", Now: func() time.Time { return now }})
	authz := func(op, body string) error {
		r, _ := signedRequest(t, body, testSecret, "us-east-1", now, nil)
		r, sum := resign(t, r, body, k.ID, "dana-secret", now)
		c, err := a.Authenticate(r, sum)
		if err != nil {
			return err
		}
		_, err = a.Authorize(r, c, "DynamoDB", op, []byte(body))
		return err
	}
	const dana = "arn:aws:iam::" + acct + ":user/dana"
	denied := func(action, table string) string {
		return "User: " + dana + " is not authorized to perform: " + action + " on resource: arn:aws:dynamodb:us-east-1:" + acct + ":table/" + table +
			" because no identity-based policy allows the " + action + " action"
	}
	explicit := func(action string) string {
		return "User: " + dana + " is not authorized to perform: " + action + " on resource: arn:aws:dynamodb:us-east-1:" + acct +
			":table/Profiles with an explicit deny in an identity-based policy"
	}
	key := `"Key":{"UserId":{"S":"u"},"GameTitle":{"S":"g"}}`
	cases := []struct{ op, body, want string }{
		// Reads that project allowed attributes only.
		{"GetItem", `{"TableName":"GameScores",` + key + `,"ProjectionExpression":"TopScore, #d","ExpressionAttributeNames":{"#d":"TopScoreDateTime"}}`, ""},
		{"GetItem", `{"TableName":"GameScores",` + key + `,"AttributesToGet":["TopScore"]}`, ""},
		{"GetItem", `{"TableName":"GameScores",` + key + `,"ProjectionExpression":"TopScore, Wins"}`, denied("dynamodb:GetItem", "GameScores")},
		// A whole-item read names no attributes: refused.
		{"GetItem", `{"TableName":"GameScores",` + key + `}`, denied("dynamodb:GetItem", "GameScores")},
		{"Query", `{"TableName":"GameScores","KeyConditionExpression":"UserId = :u","ExpressionAttributeValues":{":u":{"S":"u"}},"Select":"SPECIFIC_ATTRIBUTES","ProjectionExpression":"TopScore"}`, ""},
		{"Query", `{"TableName":"GameScores","KeyConditionExpression":"UserId = :u","ExpressionAttributeValues":{":u":{"S":"u"}},"Select":"ALL_ATTRIBUTES"}`, denied("dynamodb:Query", "GameScores")},
		{"Query", `{"TableName":"GameScores","KeyConditionExpression":"UserId = :u","FilterExpression":"Wins > :u","ExpressionAttributeValues":{":u":{"S":"u"}},"ProjectionExpression":"TopScore"}`, denied("dynamodb:Query", "GameScores")},
		{"BatchGetItem", `{"RequestItems":{"GameScores":{"Keys":[{"UserId":{"S":"u"},"GameTitle":{"S":"g"}}],"ProjectionExpression":"TopScore"}}}`, ""},
		{"BatchGetItem", `{"RequestItems":{"GameScores":{"Keys":[{"UserId":{"S":"u"},"GameTitle":{"S":"g"}}]}}}`, denied("dynamodb:BatchGetItem", "GameScores")},
		{"TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"GameScores",` + key + `,"ProjectionExpression":"TopScore"}}]}`, ""},
		// Writes: every attribute of the item, of the update and condition.
		{"PutItem", `{"TableName":"GameScores","Item":{"UserId":{"S":"u"},"GameTitle":{"S":"g"},"TopScore":{"N":"1"}}}`, ""},
		{"PutItem", `{"TableName":"GameScores","Item":{"UserId":{"S":"u"},"GameTitle":{"S":"g"},"Wins":{"N":"1"}}}`, denied("dynamodb:PutItem", "GameScores")},
		{"UpdateItem", `{"TableName":"GameScores",` + key + `,"UpdateExpression":"SET TopScore = :s","ExpressionAttributeValues":{":s":{"N":"1"}}}`, ""},
		{"UpdateItem", `{"TableName":"GameScores",` + key + `,"UpdateExpression":"SET TopScore = Wins"}`, denied("dynamodb:UpdateItem", "GameScores")},
		{"UpdateItem", `{"TableName":"GameScores",` + key + `,"UpdateExpression":"SET TopScore = :s","ConditionExpression":"attribute_exists(Losses)","ExpressionAttributeValues":{":s":{"N":"1"}}}`, denied("dynamodb:UpdateItem", "GameScores")},
		{"UpdateItem", `{"TableName":"GameScores",` + key + `,"AttributeUpdates":{"Wins":{"Action":"DELETE"}}}`, denied("dynamodb:UpdateItem", "GameScores")},
		{"DeleteItem", `{"TableName":"GameScores",` + key + `}`, ""},
		{"BatchWriteItem", `{"RequestItems":{"GameScores":[{"PutRequest":{"Item":{"UserId":{"S":"u"},"GameTitle":{"S":"g"},"PersonalDetails":{"S":"x"}}}}]}}`, denied("dynamodb:BatchWriteItem", "GameScores")},
		// A Deny with ForAnyValue on one attribute.
		{"PutItem", `{"TableName":"Profiles","Item":{"id":{"S":"1"},"nick":{"S":"n"}}}`, ""},
		{"PutItem", `{"TableName":"Profiles","Item":{"id":{"S":"1"},"SSN":{"S":"n"}}}`, explicit("dynamodb:PutItem")},
		{"UpdateItem", `{"TableName":"Profiles","Key":{"id":{"S":"1"}},"UpdateExpression":"REMOVE #s","ExpressionAttributeNames":{"#s":"SSN"}}`, explicit("dynamodb:UpdateItem")},
		{"GetItem", `{"TableName":"Profiles","Key":{"id":{"S":"1"}},"ProjectionExpression":"nick"}`, ""},
		// A whole-item read would return SSN: the Deny applies (fail closed).
		{"GetItem", `{"TableName":"Profiles","Key":{"id":{"S":"1"}}}`, explicit("dynamodb:GetItem")},
		{"Scan", `{"TableName":"Profiles","Select":"COUNT"}`, ""},
		// dynamodb:ReturnConsumedCapacity, as the knowledge-center article
		// uses it: NONE or absent only.
		{"Scan", `{"TableName":"Profiles","Select":"COUNT","ReturnConsumedCapacity":"NONE"}`, ""},
		{"Scan", `{"TableName":"Profiles","Select":"COUNT","ReturnConsumedCapacity":"TOTAL"}`, denied("dynamodb:Scan", "Profiles")},
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
