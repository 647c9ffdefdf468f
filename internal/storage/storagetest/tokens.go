package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Contract tests of storage.TokenStore: exactly one of racing claims wins,
// the completion commits with the transaction's writes and a cancelled
// transaction leaves the token claimable, claims and records expire.
//
// Subtests may share a backend and SweepTokens deletes every dead record,
// so each test's clock is its own: the sweep test lives in 1990, the
// others around time.Now(), whose records a 1990 sweep cannot reach.

// tokenTests are added to Run's list.
var tokenTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"TokenClaimRace", testTokenClaimRace},
	{"TokenCompletionAtomic", testTokenCompletion},
	{"TokenLostClaim", testTokenLostClaim},
	{"TokenExpiry", testTokenExpiry},
	{"TokenSweep", testTokenSweep},
}

func (e *env) tokenStore() storage.TokenStore { return e.b }

// tokenHash is a request hash; i tells them apart.
func tokenHash(i int) []byte { return []byte(fmt.Sprintf("request-hash-%02d", i)) }

// claim is ClaimToken that fails the test on an error.
func (e *env) claim(ts storage.TokenStore, token string, hash []byte, now time.Time) (bool, *storage.TokenRecord) {
	e.t.Helper()
	ok, rec, err := ts.ClaimToken(e.ctx, e.account, token, hash, now)
	if err != nil {
		e.t.Fatalf("ClaimToken(%s): %v", token, err)
	}
	if ok == (rec != nil) {
		e.t.Fatalf("ClaimToken(%s) = %v, %+v: want exactly one of claimed and a record", token, ok, rec)
	}
	return ok, rec
}

// complete runs a transaction of ms completing the claim of token taken
// at claimedAt, with result.
func (e *env) complete(ts storage.TokenStore, ms []storage.Mutation, token string, claimedAt, now time.Time, result string) error {
	return ts.TransactWriteToken(e.ctx, ms, &storage.TokenCompletion{Account: e.account, Token: token, ClaimedAt: claimedAt, Now: now,
		Result: func() []byte { return []byte(result) }})
}

// raceClaims has 16 goroutines claim token at now, each with its own
// hash, and returns the index of the only winner; every loser must see the
// winner's running claim.
func (e *env) raceClaims(ts storage.TokenStore, token string, now time.Time) int {
	e.t.Helper()
	const racers = 16
	type outcome struct {
		ok  bool
		rec *storage.TokenRecord
		err error
	}
	res := make([]outcome, racers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			<-start
			ok, rec, err := ts.ClaimToken(e.ctx, e.account, token, tokenHash(i), now)
			res[i] = outcome{ok, rec, err}
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, r := range res {
		if r.err != nil {
			e.t.Fatalf("racer %d: %v", i, r.err)
		}
		if r.ok {
			if winner >= 0 {
				e.t.Fatalf("racers %d and %d both claimed %s", winner, i, token)
			}
			winner = i
		}
	}
	if winner < 0 {
		e.t.Fatalf("no racer claimed %s", token)
	}
	for i, r := range res {
		if i == winner {
			continue
		}
		if r.rec == nil || r.rec.Completed || !bytes.Equal(r.rec.RequestHash, tokenHash(winner)) || !r.rec.ClaimedAt.Equal(now) {
			e.t.Fatalf("racer %d lost to %d but saw %+v", i, winner, r.rec)
		}
	}
	return winner
}

func testTokenClaimRace(t *testing.T, e *env) {
	ts := e.tokenStore()
	now := time.Now()
	w := e.raceClaims(ts, "race", now)

	// Tokens are per account: another account's claim is independent.
	other := *e
	other.account = newAccount()
	if ok, _ := other.claim(ts, "race", tokenHash(w), now); !ok {
		t.Fatal("the same token of another account was not claimable")
	}

	// A lapsed claim is taken over by exactly one of racing claimers.
	later := now.Add(storage.TokenLease)
	e.raceClaims(ts, "race", later)

	// So is an expired record.
	tb := e.create(e.table("race", ""))
	it := item.Item{"pk": s("a")}
	if ok, _ := e.claim(ts, "done", tokenHash(0), now); !ok {
		t.Fatal("claim")
	}
	if err := e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, it), Fn: putFn(it)}}, "done", now, now, "r"); err != nil {
		t.Fatal(err)
	}
	e.raceClaims(ts, "done", now.Add(storage.TokenTTL))
}

func testTokenCompletion(t *testing.T, e *env) {
	ts := e.tokenStore()
	tb := e.create(e.table("complete", ""))
	now := time.Now()
	a := item.Item{"pk": s("a"), "v": n("1")}
	bIt := item.Item{"pk": s("b"), "v": n("2")}
	if ok, _ := e.claim(ts, "tok", tokenHash(1), now); !ok {
		t.Fatal("first claim lost")
	}

	// A cancelled transaction writes nothing and completes nothing: the
	// claim is still running, and once released the token is free.
	cond := errors.New("condition failed")
	calls := 0
	err := ts.TransactWriteToken(e.ctx, []storage.Mutation{
		{Table: tb, Key: e.key(tb, a), Fn: putFn(a)},
		{Table: tb, Key: e.key(tb, bIt), Fn: func(item.Item) (item.Item, error) { return nil, cond }},
	}, &storage.TokenCompletion{Account: e.account, Token: "tok", ClaimedAt: now, Now: now, Result: func() []byte { calls++; return []byte("no") }})
	var te *storage.TransactionError
	if !errors.As(err, &te) || len(te.Reasons) != 2 || te.Reasons[1] != cond {
		t.Fatalf("cancelled TransactWriteToken = %v, want a *TransactionError", err)
	}
	if calls != 0 {
		t.Errorf("Result was called %d times for a cancelled transaction", calls)
	}
	if e.get(tb, e.key(tb, a)) != nil {
		t.Fatal("a cancelled transaction wrote")
	}
	ok, rec := e.claim(ts, "tok", tokenHash(2), now.Add(time.Second))
	if ok || rec.Completed || !bytes.Equal(rec.RequestHash, tokenHash(1)) {
		t.Fatalf("after a cancelled transaction: claimed %v, record %+v; want the running claim", ok, rec)
	}
	if err := ts.ReleaseToken(e.ctx, e.account, "tok", now); err != nil {
		t.Fatal(err)
	}
	// Releasing with another claim's time, or twice, changes nothing.
	claimedAt := now.Add(2 * time.Second)
	if ok, _ := e.claim(ts, "tok", tokenHash(3), claimedAt); !ok {
		t.Fatal("a released token was not claimable")
	}
	if err := ts.ReleaseToken(e.ctx, e.account, "tok", now); err != nil {
		t.Fatal(err)
	}

	// A committed transaction completes its claim with its writes.
	done := claimedAt.Add(time.Millisecond)
	if err := e.complete(ts, []storage.Mutation{
		{Table: tb, Key: e.key(tb, a), Fn: putFn(a)},
		{Table: tb, Key: e.key(tb, bIt), Fn: putFn(bIt)},
	}, "tok", claimedAt, done, "result-1"); err != nil {
		t.Fatalf("TransactWriteToken: %v", err)
	}
	e.wantItem("a", e.get(tb, e.key(tb, a)), a)
	e.wantItem("b", e.get(tb, e.key(tb, bIt)), bIt)
	ok, rec = e.claim(ts, "tok", tokenHash(4), done)
	if ok || !rec.Completed || !rec.CompletedAt.Equal(done) || !rec.ClaimedAt.Equal(claimedAt) ||
		!bytes.Equal(rec.RequestHash, tokenHash(3)) || string(rec.Result) != "result-1" {
		t.Fatalf("after the commit: claimed %v, record %+v", ok, rec)
	}
	// Releasing a completed record leaves it; its result can be replaced.
	if err := ts.ReleaseToken(e.ctx, e.account, "tok", claimedAt); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetTokenResult(e.ctx, e.account, "tok", claimedAt, []byte("result-2")); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetTokenResult(e.ctx, e.account, "tok", now, []byte("other claim")); err != nil {
		t.Fatal(err)
	}
	if ok, rec = e.claim(ts, "tok", tokenHash(3), done); ok || !rec.Completed || string(rec.Result) != "result-2" {
		t.Fatalf("after release and SetTokenResult: claimed %v, record %+v", ok, rec)
	}
	// Completing it again is refused and writes nothing.
	c := item.Item{"pk": s("c")}
	err = e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, c), Fn: putFn(c)}}, "tok", claimedAt, done, "again")
	if !errors.Is(err, storage.ErrTokenLost) {
		t.Fatalf("completing a completed token: %v, want ErrTokenLost", err)
	}
	if e.get(tb, e.key(tb, c)) != nil {
		t.Fatal("a transaction whose completion was refused wrote")
	}

	// A transaction that changes nothing (a condition check) completes its
	// claim all the same.
	if ok, _ := e.claim(ts, "check", tokenHash(5), now); !ok {
		t.Fatal("claim")
	}
	if err := e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, a), Fn: func(old item.Item) (item.Item, error) { return old, nil }}}, "check", now, now, "checked"); err != nil {
		t.Fatal(err)
	}
	if ok, rec := e.claim(ts, "check", tokenHash(5), now); ok || !rec.Completed || string(rec.Result) != "checked" {
		t.Fatalf("condition-check-only transaction: claimed %v, record %+v", ok, rec)
	}
}

// A claim that outlived the lease and was taken over cannot complete, and
// its transaction writes nothing; the new claim completes normally.
func testTokenLostClaim(t *testing.T, e *env) {
	ts := e.tokenStore()
	tb := e.create(e.table("lost", ""))
	first := time.Now()
	second := first.Add(storage.TokenLease)
	if ok, _ := e.claim(ts, "tok", tokenHash(1), first); !ok {
		t.Fatal("first claim lost")
	}
	if ok, rec := e.claim(ts, "tok", tokenHash(2), second.Add(-time.Nanosecond)); ok || rec.Completed {
		t.Fatalf("a claim inside its lease was taken over: %v %+v", ok, rec)
	}
	if ok, _ := e.claim(ts, "tok", tokenHash(2), second); !ok {
		t.Fatal("a lapsed claim was not taken over")
	}
	a := item.Item{"pk": s("a")}
	err := e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, a), Fn: putFn(a)}}, "tok", first, second, "first")
	if !errors.Is(err, storage.ErrTokenLost) {
		t.Fatalf("completing a lost claim: %v, want ErrTokenLost", err)
	}
	if e.get(tb, e.key(tb, a)) != nil {
		t.Fatal("the transaction of a lost claim wrote")
	}
	// The loser's release does not free the winner's claim.
	if err := ts.ReleaseToken(e.ctx, e.account, "tok", first); err != nil {
		t.Fatal(err)
	}
	if ok, rec := e.claim(ts, "tok", tokenHash(3), second); ok || !bytes.Equal(rec.RequestHash, tokenHash(2)) {
		t.Fatalf("after the loser's release: claimed %v, record %+v", ok, rec)
	}
	bIt := item.Item{"pk": s("b")}
	if err := e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, bIt), Fn: putFn(bIt)}}, "tok", second, second, "second"); err != nil {
		t.Fatal(err)
	}
	e.wantItem("b", e.get(tb, e.key(tb, bIt)), bIt)
}

func testTokenExpiry(t *testing.T, e *env) {
	ts := e.tokenStore()
	tb := e.create(e.table("expiry", ""))
	now := time.Now()
	if ok, _ := e.claim(ts, "tok", tokenHash(1), now); !ok {
		t.Fatal("claim")
	}
	done := now.Add(30 * time.Second) // completion, not the claim, starts the 10 minutes
	a := item.Item{"pk": s("a")}
	if err := e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, a), Fn: putFn(a)}}, "tok", now, done, "r"); err != nil {
		t.Fatal(err)
	}
	if ok, rec := e.claim(ts, "tok", tokenHash(2), done.Add(storage.TokenTTL-time.Nanosecond)); ok || !rec.Completed {
		t.Fatalf("just before expiry: claimed %v, record %+v", ok, rec)
	}
	if ok, _ := e.claim(ts, "tok", tokenHash(2), done.Add(storage.TokenTTL)); !ok {
		t.Fatal("an expired token was not claimable")
	}
}

func testTokenSweep(t *testing.T, e *env) {
	ts := e.tokenStore()
	tb := e.create(e.table("sweep", ""))
	base := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	completeAt := func(token string, at time.Time) {
		t.Helper()
		if ok, _ := e.claim(ts, token, tokenHash(1), at); !ok {
			t.Fatalf("claim %s", token)
		}
		it := item.Item{"pk": s(token)}
		if err := e.complete(ts, []storage.Mutation{{Table: tb, Key: e.key(tb, it), Fn: putFn(it)}}, token, at, at, token); err != nil {
			t.Fatal(err)
		}
	}
	completeAt("old", base)
	if ok, _ := e.claim(ts, "lapsed", tokenHash(1), base); !ok {
		t.Fatal("claim lapsed")
	}
	completeAt("young", base.Add(time.Minute))
	if ok, _ := e.claim(ts, "running", tokenHash(1), base.Add(storage.TokenTTL-time.Second)); !ok {
		t.Fatal("claim running")
	}
	n, err := ts.SweepTokens(e.ctx, base.Add(storage.TokenTTL))
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("SweepTokens deleted %d records, want at least the 2 dead ones", n)
	}
	at := base.Add(storage.TokenTTL)
	if ok, rec := e.claim(ts, "young", tokenHash(1), at); ok || !rec.Completed || string(rec.Result) != "young" {
		t.Errorf("a live completed record after the sweep: claimed %v, record %+v", ok, rec)
	}
	if ok, rec := e.claim(ts, "running", tokenHash(1), at); ok || rec.Completed {
		t.Errorf("a live claim after the sweep: claimed %v, record %+v", ok, rec)
	}
	for _, tok := range []string{"old", "lapsed"} {
		if ok, _ := e.claim(ts, tok, tokenHash(2), at); !ok {
			t.Errorf("swept token %s was not claimable", tok)
		}
	}
}
