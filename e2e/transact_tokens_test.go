package e2e

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tokenTx is a TransactWriteItems under ClientRequestToken token that adds
// by to the counter n of item pk "c" of table, reporting its capacity.
func tokenTx(table, token, by string) *dynamodb.TransactWriteItemsInput {
	return &dynamodb.TransactWriteItemsInput{
		ClientRequestToken:     aws.String(token),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(table), Key: item{"pk": avS("c")}, UpdateExpression: aws.String("ADD n :v"), ExpressionAttributeValues: item{":v": avN(by)}}},
		},
	}
}

// wantReplay asserts a TransactWriteItems response was a replay: DynamoDB
// reports the read capacity of the items of a repeated token instead of the
// write capacity of applying it.
func wantReplay(t *testing.T, out *dynamodb.TransactWriteItemsOutput, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(out.ConsumedCapacity) != 1 || out.ConsumedCapacity[0].ReadCapacityUnits == nil || out.ConsumedCapacity[0].WriteCapacityUnits != nil {
		t.Fatalf("replay reported %+v, want read capacity only", out.ConsumedCapacity)
	}
}

// A ClientRequestToken outlives the server: after a crash (kill -9) and a
// restart on the same data, a repeat succeeds without applying anything
// again and other parameters under the token are refused.
func TestTransactTokenSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s, c := startClient(t, "--data-dir", dir)
	name := tableName("tx-token-restart")
	createHashTable(t, c, name, "S")
	out, err := c.TransactWriteItems(ctxT(t), tokenTx(name, "restart-token", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ConsumedCapacity) != 1 || out.ConsumedCapacity[0].WriteCapacityUnits == nil {
		t.Fatalf("first request reported %+v, want write capacity", out.ConsumedCapacity)
	}
	s.kill()

	_, c2 := startClient(t, "--data-dir", dir)
	out, err = c2.TransactWriteItems(ctxT(t), tokenTx(name, "restart-token", "1"))
	wantReplay(t, out, err)
	_, err = c2.TransactWriteItems(ctxT(t), tokenTx(name, "restart-token", "2"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
	wantItem(t, getItem(t, c2, name, item{"pk": avS("c")}), item{"pk": avS("c"), "n": avN("1")})

	// A token whose transaction was cancelled stays free, restart or not.
	_, err = c2.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{
		ClientRequestToken: aws.String("cancelled-token"),
		TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(name), Key: item{"pk": avS("c")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		},
	})
	wantAPIError(t, err, "TransactionCanceledException", "")
	if _, err := c2.TransactWriteItems(ctxT(t), tokenTx(name, "cancelled-token", "5")); err != nil {
		t.Fatalf("a cancelled transaction's token: %v", err)
	}
	wantItem(t, getItem(t, c2, name, item{"pk": avS("c")}), item{"pk": avS("c"), "n": avN("6")})
}

// Two processes on one PostgreSQL schema, or one Cassandra keyspace prefix,
// share their tokens: a repeat through B of a transaction made through A
// succeeds without applying it twice, and other parameters under the token
// are refused through B too.
func TestTransactTokenAcrossProcesses(t *testing.T) {
	var shared []string // the storage flags naming one database for both
	switch e2eBackend {
	case backendPostgres:
		shared = []string{"--postgres-schema", newSchema(t)}
	case backendCassandra:
		shared = []string{"--cassandra-keyspace-prefix", newKeyspacePrefix(t)}
	default:
		t.Skipf("several processes on one database need PostgreSQL or Cassandra (EXTENDDB_E2E_STORAGE=postgres or cassandra); this run's backend is %s", e2eBackend)
	}
	a := startServerOn(t, e2eBackend, shared...)
	b := startServerOn(t, e2eBackend, shared...)
	ca, cb := newClient(t, a.Endpoint), newClient(t, b.Endpoint)
	name := tableName("tx-token-multi")
	createHashTable(t, ca, name, "S")
	// B caches table metadata for about a second: wait until it serves
	// the table created through A.
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := cb.DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process B does not see table %s created through A: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	if _, err := ca.TransactWriteItems(ctxT(t), tokenTx(name, "shared-token", "1")); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		out, err := cb.TransactWriteItems(ctxT(t), tokenTx(name, "shared-token", "1"))
		wantReplay(t, out, err)
	}
	_, err := cb.TransactWriteItems(ctxT(t), tokenTx(name, "shared-token", "2"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
	_, err = ca.TransactWriteItems(ctxT(t), tokenTx(name, "shared-token", "2"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
	wantItem(t, getItem(t, cb, name, item{"pk": avS("c")}), item{"pk": avS("c"), "n": avN("1")})
	wantItem(t, getItem(t, ca, name, item{"pk": avS("c")}), item{"pk": avS("c"), "n": avN("1")})
}
