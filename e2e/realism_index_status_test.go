package e2e

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestRealismIndexStatusDelay: with a status delay (the table's tag
// extenddb:realism:status-delay, or the server-wide realism setting), a
// global secondary index added by UpdateTable stays CREATING (Backfilling,
// unreadable) for that long however soon it is built, and a deleted one
// stays DELETING, as DynamoDB's indexes do for a while. The delay follows
// the manual clock, so the test moves it rather than sleeping.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexDescription.html (IndexStatus, Backfilling)
func TestRealismIndexStatusDelay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		realism string
		tags    []types.Tag
	}{
		{"tag", "on", []types.Tag{{Key: aws.String("extenddb:realism:status-delay"), Value: aws.String("1h")}}},
		{"global", "status-delay=1h", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := startClient(t, "--admin-api", "--clock", "manual", "--realism", tc.realism)
			a := adminAPI(s, testAccessKey, testSecretKey)
			advance := func() {
				t.Helper()
				if _, err := a.AdvanceClock(ctxT(t), "61m"); err != nil {
					t.Fatal(err)
				}
			}
			name := tableName("ixdelay")
			if _, err := c.CreateTable(ctxT(t), &dynamodb.CreateTableInput{TableName: aws.String(name),
				AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
				BillingMode: types.BillingModePayPerRequest, Tags: tc.tags}); err != nil {
				t.Fatal(err)
			}
			advance() // the table's own CREATING
			putItem(t, c, name, item{"pk": avS("a"), "g": avS("x")})
			if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
				AttributeDefinitions: attrDefs("g", "S"),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("byG"), KeySchema: keySchema("g"),
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}}); err != nil {
				t.Fatal(err)
			}
			query := func() error {
				_, err := c.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
					KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: item{":g": avS("x")}})
				return err
			}
			// Once the build is done (the server logs it), the index stays
			// CREATING for the delay nonetheless.
			for deadline := time.Now().Add(60 * time.Second); !strings.Contains(s.log.String(), `msg="index built"`); time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the index was not built within 60s")
				}
			}
			if st, bf := indexStatus(t, c, name, "byG"); st != types.IndexStatusCreating || bf == nil || !*bf {
				t.Fatalf("index before its delay: %s backfilling %v, want CREATING backfilling", st, bf)
			}
			wantAPIError(t, query(), "ValidationException", "Cannot read from backfilling global secondary index: byG")
			_, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("nope")}}}})
			wantAPIError(t, err, "ResourceNotFoundException", "")
			_, err = c.DeleteTable(ctxT(t), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
			wantAPIError(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.")
			advance()
			if st, bf := indexStatus(t, c, name, "byG"); st != types.IndexStatusActive || bf != nil {
				t.Fatalf("index after its delay: %s backfilling %v, want ACTIVE", st, bf)
			}
			if err := query(); err != nil {
				t.Fatal(err)
			}
			if _, err := c.UpdateTable(ctxT(t), &dynamodb.UpdateTableInput{TableName: aws.String(name),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}}}}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(6 * time.Second) // past the index worker's sweep
			if st, _ := indexStatus(t, c, name, "byG"); st != types.IndexStatusDeleting {
				t.Fatalf("index before its delay: %s, want DELETING", st)
			}
			advance()
			deadline := time.Now().Add(30 * time.Second)
			for {
				st, _ := indexStatus(t, c, name, "byG")
				if st == "" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("index after its delay: still %s", st)
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}

// indexStatus returns the IndexStatus and Backfilling of a table's global
// secondary index, or "" when the table has no such index.
func indexStatus(t *testing.T, c *dynamodb.Client, table, index string) (types.IndexStatus, *bool) {
	t.Helper()
	d, err := c.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return "", nil
		}
		t.Fatal(err)
	}
	for _, ix := range d.Table.GlobalSecondaryIndexes {
		if aws.ToString(ix.IndexName) == index {
			return ix.IndexStatus, ix.Backfilling
		}
	}
	return "", nil
}
