package storagetest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

func putFn(it item.Item) storage.MutateFunc {
	return func(item.Item) (item.Item, error) { return it, nil }
}

func testTransact(t *testing.T, e *env) {
	gsi := storage.Index{IndexName: "g", Global: true,
		KeySchema:  []storage.KeyElement{{AttributeName: "g", KeyType: "HASH"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectKeysOnly}}
	ta := e.table("a", "S", gsi)
	ta.AttributeDefinitions = append(ta.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "g", AttributeType: "S"})
	a := e.create(ta)
	bt := e.create(e.table("b", ""))

	a1 := item.Item{"pk": s("1"), "sk": s("x"), "g": s("G")}
	a2 := item.Item{"pk": s("2"), "sk": s("x"), "g": s("G")}
	b1 := item.Item{"pk": s("1"), "v": n("10")}
	err := e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: a, Key: e.key(a, a1), Fn: putFn(a1)},
		{Table: a, Key: e.key(a, a2), Fn: putFn(a2)},
		{Table: bt, Key: e.key(bt, b1), Fn: putFn(b1)},
	})
	if err != nil {
		t.Fatalf("TransactWrite: %v", err)
	}
	e.wantItem("a1", e.get(a, e.key(a, a1)), a1)
	e.wantItem("a2", e.get(a, e.key(a, a2)), a2)
	e.wantItem("b1", e.get(bt, e.key(bt, b1)), b1)
	if rows := e.query(a, storage.QueryRequest{Index: "g", PK: enc(s("G")), Forward: true}); len(rows) != 2 {
		t.Fatalf("index after transaction: %d rows, want 2", len(rows))
	}

	// One failing condition cancels every write, and each mutation's fate
	// is reported.
	cond := errors.New("condition failed")
	a3 := item.Item{"pk": s("3"), "sk": s("x"), "g": s("G")}
	err = e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: a, Key: e.key(a, a3), Fn: putFn(a3)},
		{Table: a, Key: e.key(a, a1), Fn: func(old item.Item) (item.Item, error) { return nil, nil }},
		{Table: bt, Key: e.key(bt, b1), Fn: func(old item.Item) (item.Item, error) {
			if old["v"].S != "10" {
				return nil, fmt.Errorf("unexpected image %v", old)
			}
			return nil, cond
		}},
		{Table: bt, Key: storage.Key{PK: enc(s("9"))}, Fn: putFn(item.Item{"pk": s("9")})},
	})
	var te *storage.TransactionError
	if !errors.As(err, &te) {
		t.Fatalf("TransactWrite error = %v, want *TransactionError", err)
	}
	if len(te.Reasons) != 4 || te.Reasons[0] != nil || te.Reasons[1] != nil || te.Reasons[2] != cond || te.Reasons[3] != nil {
		t.Fatalf("reasons = %v", te.Reasons)
	}
	if e.get(a, e.key(a, a3)) != nil || e.get(a, e.key(a, a1)) == nil || e.get(bt, storage.Key{PK: enc(s("9"))}) != nil {
		t.Fatal("a cancelled transaction wrote")
	}
	if rows := e.query(a, storage.QueryRequest{Index: "g", PK: enc(s("G")), Forward: true}); len(rows) != 2 {
		t.Fatalf("index after a cancelled transaction: %d rows, want 2", len(rows))
	}

	// Several failures: every failing mutation has its reason.
	c2 := errors.New("second")
	err = e.b.TransactWrite(e.ctx, []storage.Mutation{
		{Table: a, Key: e.key(a, a1), Fn: func(item.Item) (item.Item, error) { return nil, cond }},
		{Table: a, Key: e.key(a, a2), Fn: putFn(a2)},
		{Table: bt, Key: e.key(bt, b1), Fn: func(item.Item) (item.Item, error) { return nil, c2 }},
	})
	if !errors.As(err, &te) || te.Reasons[0] != cond || te.Reasons[1] != nil || te.Reasons[2] != c2 {
		t.Fatalf("two failures: %v %+v", err, te)
	}
	transactRace(t, e, bt)
}

// transactRace: transactions racing with each other and with single writes
// keep a sum invariant: every transfer moves one unit between two accounts
// of table bt, and read-only transactions (TransactGetItems) running
// meanwhile see one snapshot: always the same total.
func transactRace(t *testing.T, e *env, bt *storage.Table) {
	const accounts, workers, transfers = 4, 8, 25
	for i := range accounts {
		e.put(bt, item.Item{"pk": s(fmt.Sprint("acct", i)), "v": n("100")})
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	snapshots := make([]int, 2)
	for r := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				vals := make([]int, accounts)
				ms := make([]storage.Mutation, accounts)
				for i := range accounts {
					ms[i] = storage.Mutation{Table: bt, Key: storage.Key{PK: enc(s(fmt.Sprint("acct", i)))}, Fn: func(old item.Item) (item.Item, error) {
						v, err := strconv.Atoi(old["v"].S)
						vals[i] = v
						return old, err
					}}
				}
				if err := e.b.TransactWrite(e.ctx, ms); err != nil {
					e.t.Errorf("read-only transaction: %v", err)
					return
				}
				total := 0
				for _, v := range vals {
					total += v
				}
				if total != accounts*100 {
					e.t.Errorf("a read-only transaction saw a total of %d, want %d: %v", total, accounts*100, vals)
					return
				}
				snapshots[r]++
			}
		}()
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range transfers {
				from, to := (w+j)%accounts, (w+j+1)%accounts
				move := func(name string, delta int) storage.Mutation {
					return storage.Mutation{Table: bt, Key: storage.Key{PK: enc(s(name))}, Fn: func(old item.Item) (item.Item, error) {
						v, err := strconv.Atoi(old["v"].S)
						if err != nil {
							return nil, err
						}
						return item.Item{"pk": s(name), "v": n(strconv.Itoa(v + delta))}, nil
					}}
				}
				if err := e.b.TransactWrite(e.ctx, []storage.Mutation{move(fmt.Sprint("acct", from), -1), move(fmt.Sprint("acct", to), 1)}); err != nil {
					e.t.Errorf("transfer: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if snapshots[0]+snapshots[1] == 0 {
		t.Fatal("no read-only transaction completed during the transfers")
	}
	sum := 0
	for i := range accounts {
		v, _ := strconv.Atoi(e.get(bt, storage.Key{PK: enc(s(fmt.Sprint("acct", i)))})["v"].S)
		sum += v
	}
	if sum != accounts*100 {
		t.Fatalf("sum after transfers = %d, want %d", sum, accounts*100)
	}
}
