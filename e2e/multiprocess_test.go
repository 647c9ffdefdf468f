package e2e

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TestMultiProcessPostgres runs two extenddb processes on one PostgreSQL
// schema and drives both at once from many goroutines with conditional
// increments, optimistic (compare-and-set) updates, conditional creates and
// TransactWriteItems transfers on a few hot keys. Every write the servers
// acknowledged must be there exactly once: counters equal the number of
// acknowledged increments and never pass their cap, exactly one create wins
// per key, and transfers conserve the total and leave every account with
// exactly its acknowledged balance. Both processes must read the same
// final state.
func TestMultiProcessPostgres(t *testing.T) {
	requirePostgres(t)
	schema := newSchema(t)
	a := startServerOn(t, backendPostgres, "--postgres-schema", schema)
	b := startServerOn(t, backendPostgres, "--postgres-schema", schema)
	clients := []*dynamodb.Client{newClient(t, a.Endpoint), newClient(t, b.Endpoint)}

	// The table is created through A; B caches table metadata for about a
	// second, so wait until B serves it.
	name := tableName("multi")
	createHashTable(t, clients[0], name, "S")
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := clients[1].DescribeTable(ctxT(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process B does not see table %s created through A: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	const (
		counters     = 3
		counterCap   = 250 // conditional increments stop here
		casKeys      = 2
		createKeys   = 20
		accounts     = 6
		initBalance  = 100
		workers      = 16 // half on each process
		opsPerWorker = 150
	)
	for i := range counters {
		putItem(t, clients[i%2], name, item{"pk": avS(fmt.Sprint("ctr", i)), "n": avN("0")})
	}
	for i := range casKeys {
		putItem(t, clients[i%2], name, item{"pk": avS(fmt.Sprint("cas", i)), "n": avN("0"), "ver": avN("0")})
	}
	for i := range accounts {
		putItem(t, clients[i%2], name, item{"pk": avS(fmt.Sprint("acct", i)), "bal": avN(strconv.Itoa(initBalance))})
	}

	var (
		incAcked   [counters]atomic.Int64
		casAcked   [casKeys]atomic.Int64
		createWins [createKeys]atomic.Int64
		winner     [createKeys]atomic.Int64
		mu         sync.Mutex
		delta      [accounts]int64 // acknowledged transfers' effect
		transfers  atomic.Int64
		refused    sync.Map // error code -> *atomic.Int64
		failures   atomic.Int64
	)
	count := func(code string) {
		v, _ := refused.LoadOrStore(code, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	// expected sorts an error: a refusal the operation may legitimately
	// get (the write did not happen), or a failure of the test.
	expected := func(err error, codes ...string) bool {
		var ae smithy.APIError
		if errors.As(err, &ae) {
			for _, c := range codes {
				if ae.ErrorCode() == c {
					count(c)
					return true
				}
			}
		}
		if failures.Add(1) <= 10 {
			t.Errorf("unexpected error: %v", err)
		}
		return false
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w%2]
			for i := range opsPerWorker {
				switch (i + w) % 5 {
				case 0, 1: // conditional increment
					k := (i + w) % counters
					_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName:                 aws.String(name),
						Key:                       item{"pk": avS(fmt.Sprint("ctr", k))},
						UpdateExpression:          aws.String("ADD n :one"),
						ConditionExpression:       aws.String("attribute_exists(pk) AND n < :cap"),
						ExpressionAttributeValues: item{":one": avN("1"), ":cap": avN(strconv.Itoa(counterCap))},
					})
					if err == nil {
						incAcked[k].Add(1)
					} else {
						expected(err, "ConditionalCheckFailedException")
					}
				case 2: // read, then compare-and-set on the version
					k := (i + w) % casKeys
					key := item{"pk": avS(fmt.Sprint("cas", k))}
					got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: key, ConsistentRead: aws.Bool(true)})
					if err != nil {
						expected(err)
						continue
					}
					ver := got.Item["ver"].(*types.AttributeValueMemberN).Value
					v, _ := strconv.Atoi(ver)
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName:                 aws.String(name),
						Key:                       key,
						UpdateExpression:          aws.String("SET n = n + :one, ver = :new"),
						ConditionExpression:       aws.String("ver = :old"),
						ExpressionAttributeValues: item{":one": avN("1"), ":old": avN(ver), ":new": avN(strconv.Itoa(v + 1))},
					})
					if err == nil {
						casAcked[k].Add(1)
					} else {
						expected(err, "ConditionalCheckFailedException")
					}
				case 3: // conditional create
					k := (i / 5) % createKeys // every worker races for the same key
					_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
						TableName:           aws.String(name),
						Item:                item{"pk": avS(fmt.Sprint("new", k)), "owner": avN(strconv.Itoa(w))},
						ConditionExpression: aws.String("attribute_not_exists(pk)"),
					})
					if err == nil {
						createWins[k].Add(1)
						winner[k].Store(int64(w))
					} else {
						expected(err, "ConditionalCheckFailedException")
					}
				case 4: // transfer between two accounts
					from := (i + w) % accounts
					to := (from + 1 + (i*3+w)%(accounts-1)) % accounts
					amt := 1 + (i*13+w)%50
					_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						{Update: &types.Update{
							TableName:                 aws.String(name),
							Key:                       item{"pk": avS(fmt.Sprint("acct", from))},
							UpdateExpression:          aws.String("SET bal = bal - :amt"),
							ConditionExpression:       aws.String("bal >= :amt"),
							ExpressionAttributeValues: item{":amt": avN(strconv.Itoa(amt))},
						}},
						{Update: &types.Update{
							TableName:                 aws.String(name),
							Key:                       item{"pk": avS(fmt.Sprint("acct", to))},
							UpdateExpression:          aws.String("SET bal = bal + :amt"),
							ConditionExpression:       aws.String("attribute_exists(pk)"),
							ExpressionAttributeValues: item{":amt": avN(strconv.Itoa(amt))},
						}},
					}})
					if err == nil {
						transfers.Add(1)
						mu.Lock()
						delta[from] -= int64(amt)
						delta[to] += int64(amt)
						mu.Unlock()
					} else {
						// Refused or cancelled transactions wrote nothing.
						expected(err, "TransactionCanceledException", "TransactionConflictException")
					}
				}
			}
		}()
	}
	wg.Wait()
	if failures.Load() > 0 {
		t.Fatalf("%d requests failed unexpectedly", failures.Load())
	}

	// The final state, read through both processes.
	for pi, c := range clients {
		get := func(pk string) item {
			return getItem(t, c, name, item{"pk": avS(pk)})
		}
		num := func(it item, attr string) int64 {
			t.Helper()
			v, ok := it[attr].(*types.AttributeValueMemberN)
			if !ok {
				t.Fatalf("process %d: %s has no number %s: %s", pi, it["pk"], attr, itemText(it))
			}
			n, err := strconv.ParseInt(v.Value, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		for k := range counters {
			n := num(get(fmt.Sprint("ctr", k)), "n")
			if n != incAcked[k].Load() || n > counterCap {
				t.Errorf("process %d: counter ctr%d = %d, acknowledged increments %d (cap %d)", pi, k, n, incAcked[k].Load(), counterCap)
			}
		}
		for k := range casKeys {
			it := get(fmt.Sprint("cas", k))
			if n, v := num(it, "n"), num(it, "ver"); n != casAcked[k].Load() || v != n {
				t.Errorf("process %d: cas%d n=%d ver=%d, acknowledged updates %d", pi, k, n, v, casAcked[k].Load())
			}
		}
		for k := range createKeys {
			it := get(fmt.Sprint("new", k))
			wins := createWins[k].Load()
			switch {
			case wins == 0 && it == nil:
			case wins != 1:
				t.Errorf("process %d: new%d: %d conditional creates succeeded", pi, k, wins)
			case it == nil || num(it, "owner") != winner[k].Load():
				t.Errorf("process %d: new%d = %s, but worker %d's create won", pi, k, itemText(it), winner[k].Load())
			}
		}
		var sum int64
		for k := range accounts {
			bal := num(get(fmt.Sprint("acct", k)), "bal")
			sum += bal
			if want := initBalance + delta[k]; bal != want || bal < 0 {
				t.Errorf("process %d: acct%d balance %d, acknowledged transfers give %d", pi, k, bal, want)
			}
		}
		if sum != accounts*initBalance {
			t.Errorf("process %d: balances sum to %d, want %d", pi, sum, accounts*initBalance)
		}
	}
	var inc, cas, wins int64
	for k := range counters {
		inc += incAcked[k].Load()
	}
	for k := range casKeys {
		cas += casAcked[k].Load()
	}
	for k := range createKeys {
		wins += createWins[k].Load()
	}
	var refusals []string
	refused.Range(func(k, v any) bool {
		refusals = append(refusals, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("%d workers on 2 processes: %d increments, %d compare-and-set updates, %d of %d keys created once, %d transfers acknowledged; refused: %v",
		workers, inc, cas, wins, createKeys, transfers.Load(), refusals)
	for k := range counters {
		if incAcked[k].Load() != counterCap {
			t.Logf("counter ctr%d stopped at %d, below its cap %d", k, incAcked[k].Load(), counterCap)
		}
	}
}
