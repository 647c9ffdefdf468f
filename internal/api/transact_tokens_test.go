package api

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/storage"
)

// ClientRequestToken: a repeat within 10 minutes succeeds without applying
// anything again; other parameters under the same token are refused; a
// token expires 10 minutes after its transaction completed; a failed
// transaction does not claim its token.
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#DDB-TransactWriteItems-request-ClientRequestToken
func TestTransactWriteClientRequestToken(t *testing.T) {
	e := itemEngine(t)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	add := func(token, by string) string {
		return `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"c"}},"UpdateExpression":"ADD n :v","ExpressionAttributeValues":{":v":{"N":"` + by + `"}}}}],"ClientRequestToken":"` + token + `"`
	}
	runSteps(t, e, []step{
		{op: "TransactWriteItems", body: add("t1", "1") + `}`, want: `{}`},
		{name: "repeat applies nothing", op: "TransactWriteItems", body: add("t1", "1") + `}`, want: `{}`},
		// A repeat reports the capacity of reading the item. [api]
		{name: "repeat with capacity", op: "TransactWriteItems", body: add("t1", "1") + `,"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":[{"TableName":"hash","CapacityUnits":2.0,"ReadCapacityUnits":2.0}]}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}}}`, want: `{"Item":{"pk":{"S":"c"},"n":{"N":"1"}}}`},
		{name: "other parameters", op: "TransactWriteItems", body: add("t1", "2") + `}`,
			err: "IdempotentParameterMismatchException: Request parameters do not match the previous request with the same idempotency token"},
		{name: "another token applies", op: "TransactWriteItems", body: add("t2", "1") + `,"ReturnConsumedCapacity":"TOTAL"}`,
			want: `{"ConsumedCapacity":[{"TableName":"hash","CapacityUnits":2.0,"WriteCapacityUnits":2.0}]}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}}}`, want: `{"Item":{"pk":{"S":"c"},"n":{"N":"2"}}}`},
	})

	now = now.Add(storage.TokenTTL - time.Second)
	runSteps(t, e, []step{{name: "still claimed", op: "TransactWriteItems", body: add("t1", "1") + `}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}}}`, want: `{"Item":{"pk":{"S":"c"},"n":{"N":"2"}}}`}})
	now = now.Add(time.Second)
	runSteps(t, e, []step{{name: "expired: applies again", op: "TransactWriteItems", body: add("t1", "5") + `}`, want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}}}`, want: `{"Item":{"pk":{"S":"c"},"n":{"N":"7"}}}`}})

	// A cancelled transaction leaves its token free.
	cond := func(v string) string {
		return `{"TransactItems":[{"Update":{"TableName":"hash","Key":{"pk":{"S":"c"}},"UpdateExpression":"ADD n :one","ConditionExpression":"n = :v",
			"ExpressionAttributeValues":{":one":{"N":"1"},":v":{"N":"` + v + `"}}}}],"ClientRequestToken":"t3"}`
	}
	txCanceled(t, e, "TransactWriteItems", cond("100"))
	runSteps(t, e, []step{
		{name: "same token after a failure, other parameters", op: "TransactWriteItems", body: cond("7"), want: `{}`},
		{op: "GetItem", body: `{"TableName":"hash","Key":{"pk":{"S":"c"}}}`, want: `{"Item":{"pk":{"S":"c"},"n":{"N":"8"}}}`},
	})
}

// Transfers between accounts with conditional TransactWriteItems, racing
// TransactGetItems snapshots: every snapshot sees the same total, and the
// final balances account for every successful transfer.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-isolation
func TestTransactSerializable(t *testing.T) {
	e := itemEngine(t)
	const accounts, start = 5, 100
	for i := range accounts {
		mustServe(t, e, "PutItem", fmt.Sprintf(`{"TableName":"hash","Item":{"pk":{"S":"acct%d"},"bal":{"N":"%d"}}}`, i, start))
	}
	var gets []string
	for i := range accounts {
		gets = append(gets, fmt.Sprintf(`{"Get":{"TableName":"hash","Key":{"pk":{"S":"acct%d"}}}}`, i))
	}
	readAll := `{"TransactItems":[` + joinComma(gets) + `]}`
	var wg sync.WaitGroup
	var mu sync.Mutex
	moved := make([]int, accounts) // net change per account from successful transfers
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				from, to, amt := (w+i)%accounts, (w+2*i+1)%accounts, 1+(i*7+w)%30
				if from == to {
					continue
				}
				body := fmt.Sprintf(`{"TransactItems":[
					{"Update":{"TableName":"hash","Key":{"pk":{"S":"acct%d"}},"UpdateExpression":"SET bal = bal - :a","ConditionExpression":"bal >= :a","ExpressionAttributeValues":{":a":{"N":"%d"}}}},
					{"Update":{"TableName":"hash","Key":{"pk":{"S":"acct%d"}},"UpdateExpression":"SET bal = bal + :a","ExpressionAttributeValues":{":a":{"N":"%d"}}}}]}`, from, amt, to, amt)
				_, errMsg := call(e, "TransactWriteItems", body)
				switch {
				case errMsg == "":
					mu.Lock()
					moved[from] -= amt
					moved[to] += amt
					mu.Unlock()
				case errMsg != "TransactionCanceledException: Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]":
					t.Errorf("transfer: %s", errMsg)
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 40 {
				out, errMsg := call(e, "TransactGetItems", readAll)
				if errMsg != "" {
					t.Errorf("read: %s", errMsg)
					return
				}
				if sum := sumBalances(t, out); sum != accounts*start {
					t.Errorf("snapshot total %d, want %d: %s", sum, accounts*start, out)
				}
			}
		})
	}
	wg.Wait()
	out, _ := call(e, "TransactGetItems", readAll)
	bals := balances(t, out)
	for i, b := range bals {
		if b != start+moved[i] || b < 0 {
			t.Errorf("acct%d: balance %d, want %d", i, b, start+moved[i])
		}
	}
}

// balances returns the bal attribute of each item of a TransactGetItems
// response, in order.
func balances(t *testing.T, out string) []int {
	t.Helper()
	var resp struct {
		Responses []struct {
			Item map[string]struct{ N string }
		}
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	bals := make([]int, len(resp.Responses))
	for i, r := range resp.Responses {
		n, err := strconv.Atoi(r.Item["bal"].N)
		if err != nil {
			t.Fatalf("item %d: %v: %s", i, err, out)
		}
		bals[i] = n
	}
	return bals
}

func sumBalances(t *testing.T, out string) int {
	sum := 0
	for _, b := range balances(t, out) {
		sum += b
	}
	return sum
}
