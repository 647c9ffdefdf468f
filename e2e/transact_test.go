package e2e

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sources of the behaviour and messages asserted here:
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
//   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
//   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
//   getmoto/moto tests/test_dynamodb/test_dynamodb_transact.py and
//   exceptions/test_dynamodb_transactions.py (tests marked aws_verified ran against DynamoDB).

// canceled asserts err is a TransactionCanceledException as the SDK parses
// it and returns its reasons.
func canceled(t *testing.T, err error, message string) []types.CancellationReason {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("want TransactionCanceledException, got %v", err)
	}
	if tce.ErrorMessage() != message {
		t.Fatalf("message:\n got %q\nwant %q", tce.ErrorMessage(), message)
	}
	return tce.CancellationReasons
}

func reasonText(rs []types.CancellationReason) string {
	var parts []string
	for _, r := range rs {
		s := aws.ToString(r.Code)
		if r.Message != nil {
			s += ":" + *r.Message
		}
		if r.Item != nil {
			s += ":" + itemText(r.Item)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

func TestTransactWriteItems(t *testing.T) {
	_, c := startClient(t)
	a, b := tableName("tx-a"), tableName("tx-b")
	createHashTable(t, c, a, "S")
	createRangeTable(t, c, b, "N")
	putItem(t, c, a, item{"pk": avS("upd"), "n": avN("1")})
	putItem(t, c, a, item{"pk": avS("del")})
	putItem(t, c, b, item{"pk": avS("chk"), "sk": avN("1"), "ok": avBool(true)})

	out, err := c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(a), Item: item{"pk": avS("new"), "v": avS("x")}, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
			{Update: &types.Update{TableName: aws.String(a), Key: item{"pk": avS("upd")}, UpdateExpression: aws.String("SET n = n + :one"),
				ConditionExpression: aws.String("n = :one"), ExpressionAttributeValues: item{":one": avN("1")}}},
			{Delete: &types.Delete{TableName: aws.String(a), Key: item{"pk": avS("del")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(b), Key: item{"pk": avS("chk"), "sk": avN("1")},
				ConditionExpression: aws.String("#o = :t"), ExpressionAttributeNames: map[string]string{"#o": "ok"}, ExpressionAttributeValues: item{":t": avBool(true)}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// 2 WCU per KB for each transactional write, per table in request order.
	if len(out.ConsumedCapacity) != 2 || aws.ToString(out.ConsumedCapacity[0].TableName) != a || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 6 ||
		aws.ToString(out.ConsumedCapacity[1].TableName) != b || aws.ToFloat64(out.ConsumedCapacity[1].CapacityUnits) != 2 {
		t.Errorf("ConsumedCapacity: %+v", out.ConsumedCapacity)
	}
	wantItem(t, getItem(t, c, a, item{"pk": avS("new")}), item{"pk": avS("new"), "v": avS("x")})
	wantItem(t, getItem(t, c, a, item{"pk": avS("upd")}), item{"pk": avS("upd"), "n": avN("2")})
	wantItem(t, getItem(t, c, a, item{"pk": avS("del")}), nil)

	// A failed condition cancels everything; the SDK parses the reasons, in
	// request order, with the item when ALL_OLD is asked for.
	// moto test_transact_write_items_failure__return_item (AWS-verified).
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(a), Item: item{"pk": avS("never")}}},
		{Update: &types.Update{TableName: aws.String(a), Key: item{"pk": avS("upd")}, UpdateExpression: aws.String("SET n = :z"),
			ConditionExpression: aws.String("n = :z"), ExpressionAttributeValues: item{":z": avN("0")},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(b), Key: item{"pk": avS("absent"), "sk": avN("1")}, ConditionExpression: aws.String("attribute_exists(pk)")}},
	}})
	rs := canceled(t, err, "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, ConditionalCheckFailed]")
	if got, want := reasonText(rs), `None | ConditionalCheckFailed:The conditional request failed:{"n":{"N":"2"},"pk":{"S":"upd"}} | ConditionalCheckFailed:The conditional request failed`; got != want {
		t.Errorf("reasons:\n got %s\nwant %s", got, want)
	}
	wantItem(t, getItem(t, c, a, item{"pk": avS("never")}), nil)
	wantItem(t, getItem(t, c, a, item{"pk": avS("upd")}), item{"pk": avS("upd"), "n": avN("2")})

	// Validation before anything runs.
	dup := []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(b), Item: item{"pk": avS("p"), "sk": avN("1")}}},
		{Delete: &types.Delete{TableName: aws.String(b), Key: item{"sk": avN("1"), "pk": avS("p")}}},
	}
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: dup})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(tableName("tx-none")), Key: item{"pk": avS("p")}}},
	}})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")
	var many []types.TransactWriteItem
	for i := range 101 {
		many = append(many, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(a), Item: item{"pk": avS(fmt.Sprint(i))}}})
	}
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: many})
	wantAPIErrorMatch(t, err, "ValidationException", regexp.MustCompile(`^1 validation error detected: Value '\[(com\.amazonaws\.dynamodb\.v20120810\.TransactWriteItem@[0-9a-f]+(, )?){101}\]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$`))
	if _, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: many[:100]}); err != nil {
		t.Errorf("100 actions: %v", err)
	}

	// A key that does not match the schema cancels with a ValidationError.
	_, err = c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(a), Item: item{"pk": avS("fine")}}},
		{Delete: &types.Delete{TableName: aws.String(b), Key: item{"pk": avS("p")}}},
	}})
	rs = canceled(t, err, "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]")
	if got := reasonText(rs); got != "None | ValidationError:The provided key element does not match the schema" {
		t.Errorf("reasons: %s", got)
	}
}

// ClientRequestToken makes a transaction idempotent for 10 minutes.
func TestTransactWriteItemsClientRequestToken(t *testing.T) {
	_, c := startClient(t)
	a := tableName("tx-token")
	createHashTable(t, c, a, "S")
	in := func(by string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("e2e-token-1"), TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(a), Key: item{"pk": avS("c")}, UpdateExpression: aws.String("ADD n :v"), ExpressionAttributeValues: item{":v": avN(by)}}},
		}}
	}
	for range 3 {
		if _, err := c.TransactWriteItems(ctxT(t), in("1")); err != nil {
			t.Fatal(err)
		}
	}
	wantItem(t, getItem(t, c, a, item{"pk": avS("c")}), item{"pk": avS("c"), "n": avN("1")})
	_, err := c.TransactWriteItems(ctxT(t), in("2"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
	wantItem(t, getItem(t, c, a, item{"pk": avS("c")}), item{"pk": avS("c"), "n": avN("1")})
}

func TestTransactGetItems(t *testing.T) {
	_, c := startClient(t)
	a, b := tableName("txg-a"), tableName("txg-b")
	createHashTable(t, c, a, "S")
	createRangeTable(t, c, b, "S")
	putItem(t, c, a, item{"pk": avS("x"), "v": avS("1"), "w": avN("2")})
	putItem(t, c, b, item{"pk": avS("x"), "sk": avS("y"), "v": avS("2")})
	out, err := c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(b), Key: item{"pk": avS("x"), "sk": avS("y")}}},
			{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": avS("missing")}}},
			{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": avS("x")}, ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: map[string]string{"#v": "v"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 3 {
		t.Fatalf("Responses: %d", len(out.Responses))
	}
	wantItem(t, out.Responses[0].Item, item{"pk": avS("x"), "sk": avS("y"), "v": avS("2")})
	wantItem(t, out.Responses[1].Item, nil)
	wantItem(t, out.Responses[2].Item, item{"v": avS("1")})
	// 2 RCU per item of up to 4 KB, a missing one included.
	if len(out.ConsumedCapacity) != 2 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 2 || aws.ToFloat64(out.ConsumedCapacity[1].CapacityUnits) != 4 ||
		aws.ToFloat64(out.ConsumedCapacity[1].ReadCapacityUnits) != 4 {
		t.Errorf("ConsumedCapacity: %+v", out.ConsumedCapacity)
	}
	_, err = c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": avS("x")}}},
		{Get: &types.Get{TableName: aws.String(a), Key: item{"pk": avS("x")}}},
	}})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")
}

// 32 writers move amounts between 10 accounts with conditional
// TransactWriteItems (balance >= amount) while readers take TransactGetItems
// snapshots of all 10. Transactions are serializable: no snapshot may show
// another total, and the final balances must account for exactly the
// transfers that succeeded.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-isolation
func TestTransactConcurrentTransfers(t *testing.T) {
	_, c := startClient(t)
	tbl := tableName("tx-bank")
	createHashTable(t, c, tbl, "S")
	const accounts, start, writers, readers = 10, 1000, 32, 4
	acct := func(i int) string { return fmt.Sprintf("acct%02d", i) }
	for i := range accounts {
		putItem(t, c, tbl, item{"pk": avS(acct(i)), "bal": avN(strconv.Itoa(start))})
	}
	gets := make([]types.TransactGetItem, accounts)
	for i := range gets {
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(tbl), Key: item{"pk": avS(acct(i))}}}
	}
	readAll := func() ([]int, error) {
		out, err := c.TransactGetItems(ctxT(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
		if err != nil {
			return nil, err
		}
		bals := make([]int, accounts)
		for i, r := range out.Responses {
			n, ok := r.Item["bal"].(*types.AttributeValueMemberN)
			if !ok {
				return nil, fmt.Errorf("response %d: %v", i, r.Item)
			}
			bals[i], _ = strconv.Atoi(n.Value)
		}
		return bals, nil
	}

	// Writers and readers run for this long.
	window := 8 * time.Second
	deadline := time.Now().Add(window)
	var mu sync.Mutex
	net := make([]int, accounts)
	var slowest time.Duration // the slowest snapshot
	var ok, refused, snapshots atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				from, to := (w*7+i*3)%accounts, (w+i*5+1)%accounts
				if from == to {
					continue
				}
				amt := 1 + (w*31+i*17)%400
				_, err := c.TransactWriteItems(ctxT(t), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String(tbl), Key: item{"pk": avS(acct(from))}, UpdateExpression: aws.String("SET bal = bal - :a"),
						ConditionExpression: aws.String("bal >= :a"), ExpressionAttributeValues: item{":a": avN(strconv.Itoa(amt))}}},
					{Update: &types.Update{TableName: aws.String(tbl), Key: item{"pk": avS(acct(to))}, UpdateExpression: aws.String("SET bal = bal + :a"),
						ExpressionAttributeValues: item{":a": avN(strconv.Itoa(amt))}}},
				}})
				if err != nil {
					var tce *types.TransactionCanceledException
					if !errors.As(err, &tce) || reasonText(tce.CancellationReasons) != "ConditionalCheckFailed:The conditional request failed | None" {
						t.Errorf("transfer %d -> %d of %d: %v", from, to, amt, err)
						return
					}
					refused.Add(1)
					continue
				}
				ok.Add(1)
				mu.Lock()
				net[from] -= amt
				net[to] += amt
				mu.Unlock()
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				began := time.Now()
				bals, err := readAll()
				took := time.Since(began)
				mu.Lock()
				slowest = max(slowest, took)
				mu.Unlock()
				if err != nil {
					t.Errorf("TransactGetItems: %v", err)
					return
				}
				sum := 0
				for _, b := range bals {
					sum += b
					if b < 0 {
						t.Errorf("negative balance in snapshot %v", bals)
					}
				}
				if sum != accounts*start {
					t.Errorf("snapshot total %d, want %d: %v", sum, accounts*start, bals)
				}
				snapshots.Add(1)
			}
		})
	}
	wg.Wait()
	final, err := readAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range final {
		if b != start+net[i] {
			t.Errorf("%s: balance %d, want %d", acct(i), b, start+net[i])
		}
	}
	t.Logf("%d transfers applied, %d refused, %d snapshots (the slowest took %v)", ok.Load(), refused.Load(), snapshots.Load(), slowest.Round(time.Millisecond))
	if ok.Load() == 0 || snapshots.Load() == 0 {
		t.Errorf("the test did no work")
	}
}
