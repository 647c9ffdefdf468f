package postgres

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Two Backends on one schema stand for two processes: of 16 claims of one
// token racing through both, exactly one wins, and a transaction completed
// through one is a completed record through the other.
func TestTokensAcrossBackends(t *testing.T) {
	dsn, schema := freshSchema(t)
	backends := []*Backend{openSchema(t, dsn, schema, Options{}), openSchema(t, dsn, schema, Options{})}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const account = "000000000007"
	now := time.Now()

	claimed := make([]bool, 16)
	var wg sync.WaitGroup
	for i := range claimed {
		wg.Go(func() {
			ok, rec, err := backends[i%2].ClaimToken(ctx, account, "tok", []byte(fmt.Sprint("hash", i)), now)
			if err != nil || ok == (rec != nil) {
				t.Errorf("claim %d: %v %+v %v", i, ok, rec, err)
			}
			claimed[i] = ok
		})
	}
	wg.Wait()
	winner := -1
	for i, ok := range claimed {
		if ok {
			if winner >= 0 {
				t.Fatalf("claims %d and %d both won", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("no claim won")
	}

	tb := testTable("tokens", "")
	tb.ID = uuid.NewString()
	tb.Account = account
	if err := backends[0].CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	it := item.Item{"pk": item.S("a")}
	key, _ := storage.ItemKey(tb, it)
	err := backends[winner%2].TransactWriteToken(ctx, []storage.Mutation{{Table: tb, Key: key, Fn: func(item.Item) (item.Item, error) { return it, nil }}},
		&storage.TokenCompletion{Account: account, Token: "tok", ClaimedAt: now, Now: now, Result: func() []byte { return []byte("done") }})
	if err != nil {
		t.Fatal(err)
	}
	other := backends[(winner+1)%2]
	ok, rec, err := other.ClaimToken(ctx, account, "tok", []byte("hash-x"), now.Add(time.Second))
	if err != nil || ok || !rec.Completed || string(rec.Result) != "done" || !bytes.Equal(rec.RequestHash, []byte(fmt.Sprint("hash", winner))) {
		t.Fatalf("through the other backend: %v %+v %v", ok, rec, err)
	}
	if got, err := other.GetItem(ctx, tb, key, true); err != nil || got == nil {
		t.Fatalf("the transaction's write through the other backend: %v %v", got, err)
	}
}
