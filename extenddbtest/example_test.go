package extenddbtest_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/extenddb/extenddb/extenddbtest"
)

// TestHelperRecipe is the Go recipe of docs/testing-with-extenddb.md: a
// baseline snapshot restored between subtests, and the clock advanced a
// day so that an item's TTL passes.
func TestHelperRecipe(t *testing.T) {
	srv := extenddbtest.Start(t, extenddbtest.Options{ManualClock: true})
	db := srv.Client()
	ctx := context.Background()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("sessions"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("sessions"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("expires")}}); err != nil {
		t.Fatal(err)
	}
	srv.SaveSnapshot("empty")
	count := func() int32 {
		out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("sessions"), Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}

	t.Run("expires after a day", func(t *testing.T) {
		defer srv.RestoreSnapshot("empty")
		expires := strconv.FormatInt(srv.Now().Add(time.Hour).Unix(), 10)
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("sessions"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "a"}, "expires": &types.AttributeValueMemberN{Value: expires}}}); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 1 {
			t.Fatalf("%d items before the advance", n)
		}
		srv.Advance(24 * time.Hour)
		if n := count(); n != 0 {
			t.Fatalf("%d items a day later", n)
		}
	})
	t.Run("starts empty", func(t *testing.T) {
		if n := count(); n != 0 {
			t.Fatalf("the previous test left %d items", n)
		}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("sessions"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "b"}}}); err != nil {
			t.Fatal(err)
		}
		srv.Truncate("sessions")
		if n := count(); n != 0 {
			t.Fatalf("%d items after truncate", n)
		}
	})
}
