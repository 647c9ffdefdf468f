package cassandra

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// failEffects makes the effects of b's committed writes fail (they outlast
// effectsTimeout) until the returned function is called.
func failEffects(b *Backend) (restore func()) {
	b.effectsTimeout = 50 * time.Millisecond
	stall := func() { time.Sleep(300 * time.Millisecond) }
	b.beforeIndexes.Store(&stall)
	return func() {
		b.beforeIndexes.Store(nil)
		b.effectsTimeout = effectsTimeout
	}
}

// storedRepair is one stored repair, as the tests look at it.
type storedRepair struct {
	minute, id, version int64
	pk                  string
}

// storedRepairRows returns the repairs stored for table tb in the minutes
// listed for the hours a recovery pass reads (repairHours).
func storedRepairRows(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table) []storedRepair {
	t.Helper()
	var out []storedRepair
	from, to := repairHours(time.Now())
	for hour := from; hour <= to; hour++ {
		minutes, err := b.repairMinutes(ctx, hour)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range minutes {
			for shard := range repairShards {
				iter := b.s.Query(`SELECT tid, id, version, pk FROM `+b.catalog+`.repairs WHERE minute = ? AND shard = ?`, m, shard).
					WithContext(ctx).Iter()
				var tid string
				var r storedRepair
				var pk []byte
				for iter.Scan(&tid, &r.id, &r.version, &pk) {
					if tid == tb.ID {
						r.minute, r.pk = m, string(pk)
						out = append(out, r)
					}
				}
				if err := iter.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return out
}

// storedRepairs returns the versions of the repairs stored for table tb
// (storedRepairRows).
func storedRepairs(t *testing.T, ctx context.Context, b *Backend, tb *storage.Table) []int64 {
	t.Helper()
	var out []int64
	for _, r := range storedRepairRows(t, ctx, b, tb) {
		out = append(out, r.version)
	}
	return out
}

// plantRepair stores a repair with vals (intentValues) in minute under id
// directly, as a writer would, and removes it at the end of the test.
func plantRepair(t *testing.T, ctx context.Context, b *Backend, minute, id int64, vals []any) {
	t.Helper()
	t.Cleanup(func() {
		_ = b.s.Query(`DELETE FROM `+b.catalog+`.repairs WHERE minute = ? AND shard = ? AND id = ?`, minute, repairShard(id), id).Exec()
	})
	err := b.s.Query(`INSERT INTO `+b.catalog+`.repair_minutes (hour, minute) VALUES (?, ?)`, minute/60, minute).WithContext(ctx).Exec()
	if err == nil {
		err = b.s.Query(`INSERT INTO `+b.catalog+`.repairs (minute, shard, id, `+intentColumns+`) VALUES (?, ?, ?, `+intentMarks+`)`,
			append([]any{minute, repairShard(id), id}, vals...)...).WithContext(ctx).Exec()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// failedWrite writes fn on key through b2 with its effects failing, and
// checks that the write succeeds and leaves a repair.
func failedWrite(t *testing.T, ctx context.Context, b, b2 *Backend, tb *storage.Table, k storage.Key, fn storage.MutateFunc) {
	t.Helper()
	before := len(storedRepairs(t, ctx, b, tb))
	restore := failEffects(b2)
	err := b2.Mutate(ctx, tb, k, fn)
	restore()
	if err != nil {
		t.Fatalf("Mutate whose effects failed after its commit: %v", err)
	}
	if got := len(storedRepairs(t, ctx, b, tb)); got != before+1 {
		t.Fatalf("%d repairs stored, want %d", got, before+1)
	}
}

// repairEvents records the events of Options.OnRepair (safe for
// concurrent use).
type repairEvents struct {
	mu     sync.Mutex
	events []string
}

// watch records the repair events of bs until the test ends.
func (e *repairEvents) watch(t *testing.T, bs ...*Backend) {
	note := func(ev string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.events = append(e.events, ev)
	}
	for _, b := range bs {
		b.onRepair.Store(&note)
		t.Cleanup(func() { b.onRepair.Store(nil) })
	}
}

// list returns the events recorded so far, in order.
func (e *repairEvents) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.events)
}

// logRecords is a slog.Handler that keeps every record it is given (safe
// for concurrent use).
type logRecords struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecords) WithGroup(string) slog.Handler            { return h }

func (h *logRecords) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}

// at returns the records of level, each as its message and its attributes
// ("msg" holds the message).
func (h *logRecords) at(level slog.Level) []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]string
	for _, r := range h.recs {
		if r.Level != level {
			continue
		}
		m := map[string]string{"msg": r.Message}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = a.Value.String()
			return true
		})
		out = append(out, m)
	}
	return out
}

// recoverOnce runs one recovery pass that must succeed.
func recoverOnce(t *testing.T, ctx context.Context, b *Backend) int {
	t.Helper()
	n, err := b.Recover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFailedEffectsAreRepaired: a write whose index rows and stream record
// fail after its commit, on a server that goes on running, succeeds and
// stores a repair; the next recovery pass (of another process: the
// writer's own intents are not replayed while it lives) writes them, so a
// query of the global secondary index finds the item, and deletes the
// repair. In DynamoDB a global secondary index follows its table
// asynchronously and an item's stream record appears once
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Writes,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html).
func TestFailedEffectsAreRepaired(t *testing.T) {
	ctx, b, b2, tb, k := twoFrontends(t, gItem("a", "x1"))
	owner := b2.fe.id.Load().owner
	var events repairEvents
	events.watch(t, b, b2)
	failedWrite(t, ctx, b, b2, tb, k, put(gItem("a", "x2")))
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) == 0 {
		t.Fatalf("the index agreed with the item (%v, %v): the effects did not fail", d, err)
	}
	if n := recoverOnce(t, ctx, b); n != 1 {
		t.Errorf("Recover applied %d writes, want 1", n)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x1"), gItem("a", "x2")); err != nil || len(d) != 0 {
		t.Errorf("index after the repair: %v, %v", d, err)
	}
	if got := streamSummary(t, b, tb); !slices.Equal(got, []string{"INSERT a >x1", "MODIFY a x1>x2"}) {
		t.Errorf("records %q", got)
	}
	if got := storedRepairs(t, ctx, b, tb); len(got) != 0 {
		t.Errorf("repairs left after they were applied: %v", got)
	}
	if n := recoverOnce(t, ctx, b); n != 0 {
		t.Errorf("second Recover applied %d writes, want 0", n)
	}
	if got := events.list(); !slices.Equal(got, []string{"stored", "applied"}) {
		t.Errorf("repair events %q, want stored then applied", got)
	}
	if got := b2.fe.id.Load().owner; got != owner {
		t.Errorf("the writer changed its owner ID from %s to %s", owner, got)
	}
	settle(t, ctx, b, b2)
}

// TestRepairAfterNewerWrites: a repair applied after its item was written
// again, and one applied after its item was deleted, leave only the
// current item's index row (none after the delete): the repair's rows are
// stamped with its older version and lose to the newer write's. Stream
// records are keyed by version and key, so a record written again (here
// by the writer's intents replayed at the end as well) is the same record:
// each write has exactly one.
func TestRepairAfterNewerWrites(t *testing.T) {
	ctx, b, b2, tb, k := twoFrontends(t, gItem("a", "x1"))
	images := []item.Item{gItem("a", "x1"), gItem("a", "x2"), gItem("a", "x3"), gItem("a", "x4")}
	check := func(when string) {
		t.Helper()
		if d, err := divergences(ctx, b, tb, k, images...); err != nil || len(d) != 0 {
			t.Errorf("index %s: %v, %v", when, d, err)
		}
	}
	failedWrite(t, ctx, b, b2, tb, k, put(gItem("a", "x2")))
	if err := b.Mutate(ctx, tb, k, put(gItem("a", "x3"))); err != nil {
		t.Fatal(err)
	}
	if n := recoverOnce(t, ctx, b); n != 1 {
		t.Errorf("Recover applied %d writes, want 1", n)
	}
	check("after a repair older than the item")
	failedWrite(t, ctx, b, b2, tb, k, put(gItem("a", "x4")))
	if err := b.Mutate(ctx, tb, k, del); err != nil {
		t.Fatal(err)
	}
	if n := recoverOnce(t, ctx, b); n != 1 {
		t.Errorf("Recover applied %d writes, want 1", n)
	}
	check("after a repair older than the delete")
	settle(t, ctx, b, b2)
	check("after the writer's intents were replayed too")
	want := []string{"INSERT a >x1", "MODIFY a x1>x2", "MODIFY a x2>x3", "MODIFY a x3>x4", "REMOVE a x4>"}
	if got := streamSummary(t, b, tb); !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestFailingRepairDoesNotBlockOthers: a repair that fails at every pass
// (its image is corrupt), stored on every shard of the minute of another
// write's repair (and of the next, should the minute end meanwhile) with
// the lowest IDs so that a pass meets it first, is left for the next pass
// and reported, while the repair of the other write is applied and
// deleted.
func TestFailingRepairDoesNotBlockOthers(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := intentTable(t, b)
	vals := plantValues(t, ctx, b, tb, gItem("a", "bad"), badImage)
	now := time.Now().Unix() / 60
	// More in each shard than a pass applies at once, so that a pass that
	// stopped at the first failure would never reach the good repair.
	const perShard = replayParallel + 2
	for i := range 2 * int64(repairShards*perShard) {
		minute := now + i/(repairShards*perShard)
		id := math.MinInt64 + i%(repairShards*perShard) // shard i%repairShards
		plantRepair(t, ctx, b, minute, id, vals)
	}
	b2 := openFrontend(t)
	failedWrite(t, ctx, b, b2, tb, strKey(t, tb, "b"), put(gItem("b", "y")))
	n, err := b.Recover(ctx)
	if err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Recover's error %v, want the corrupt repair's", err)
	}
	if n != 1 {
		t.Errorf("Recover applied %d writes, want 1", n)
	}
	if d, err := divergences(ctx, b, tb, strKey(t, tb, "b"), gItem("b", "y")); err != nil || len(d) != 0 {
		t.Errorf("index after the repair: %v, %v", d, err)
	}
	if got := storedRepairs(t, ctx, b, tb); len(got) != 2*repairShards*perShard {
		t.Errorf("%d repairs left, want the %d corrupt ones", len(got), 2*repairShards*perShard)
	}
	settle(t, ctx, b, b2, failingRepairsLeft)
}

// TestRecoverGoesPastFailingFrontend: a stopped frontend whose replay
// fails (its intent's table definition is corrupt), listed first, stays
// listed and is reported, and does not keep the next stopped frontend's
// writes from being recovered.
func TestRecoverGoesPastFailingFrontend(t *testing.T) {
	b := backend(t)
	ctx := ctxT(t, 3*time.Minute)
	tb := intentTable(t, b)
	bad := "00000000-" + uuid.NewString()[9:]
	t.Cleanup(func() {
		_ = b.s.Query(`DELETE FROM `+b.catalog+`.frontends WHERE k = 0 AND owner = ?`, bad).Exec()
	})
	started := time.Now().Add(-time.Minute)
	if err := b.listFrontend(ctx, &frontendID{owner: bad, started: started}); err != nil {
		t.Fatal(err)
	}
	plantIntent(t, ctx, b, bad, time.Now().Unix()/60, 1, plantValues(t, ctx, b, tb, gItem("z", "z"), badDef))
	b2 := openFrontend(t)
	owner2 := b2.fe.id.Load().owner
	commitWithoutEffects(t, ctx, b2, tb, strKey(t, tb, "a"), gItem("a", "x"))
	b2.Close()
	total := 0
	for deadline := time.Now().Add(10 * testLease); total == 0; time.Sleep(300 * time.Millisecond) {
		n, err := b.Recover(ctx)
		if err == nil {
			t.Fatal("Recover reported no error with a frontend whose replay fails")
		}
		total += n
		if time.Now().After(deadline) {
			t.Fatalf("the stopped frontend behind a failing one was not recovered: %v", err)
		}
	}
	if total != 1 {
		t.Errorf("Recover repaired %d writes, want 1", total)
	}
	if d, err := divergences(ctx, b, tb, strKey(t, tb, "a"), gItem("a", "x")); err != nil || len(d) != 0 {
		t.Errorf("index after recovery: %v, %v", d, err)
	}
	owners := listedOwners(t, ctx, b)
	if !slices.Contains(owners, bad) || slices.Contains(owners, owner2) {
		t.Errorf("listed owners %v: want %s (failing) and not %s (recovered)", owners, bad, owner2)
	}
}

// TestRepairOfSupersededWriteSkipsNewIndex: a repair applied after its
// item was deleted, or updated out of an index, and after that index was
// added and built, writes no row into the new index. The later write did
// not know the index, and its build read the item as it is now, so a row
// for the repaired write's older image would be one that nothing ever
// deletes: a query of the index would return an item the table no longer
// holds, where DynamoDB's global secondary index follows the table
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Writes).
func TestRepairOfSupersededWriteSkipsNewIndex(t *testing.T) {
	ctx, b, b2, tb, _ := twoFrontends(t, nil)
	indexed := func(pk string) item.Item {
		it := gItem(pk, "x")
		it["g1"], it["g1s"] = item.S("p"), item.S(pk)
		return it
	}
	deleted, moved := strKey(t, tb, "deleted"), strKey(t, tb, "moved")
	failedWrite(t, ctx, b, b2, tb, deleted, put(indexed("deleted")))
	failedWrite(t, ctx, b, b2, tb, moved, put(indexed("moved")))
	if err := b.Mutate(ctx, tb, deleted, del); err != nil {
		t.Fatal(err)
	}
	if err := b.Mutate(ctx, tb, moved, put(gItem("moved", "y"))); err != nil {
		t.Fatal(err)
	}
	ix := storage.Index{IndexName: "added", Global: true, ID: uuid.NewString(), Status: storage.StatusCreating, Backfilling: true,
		KeySchema:  []storage.KeyElement{{AttributeName: "g1", KeyType: "HASH"}, {AttributeName: "g1s", KeyType: "RANGE"}},
		Projection: storage.Projection{ProjectionType: storage.ProjectAll}}
	if _, err := b.UpdateTable(ctx, tb.Account, tb.Name, func(t *storage.Table) error {
		t.AttributeDefinitions = append(t.AttributeDefinitions, storage.AttributeDefinition{AttributeName: "g1", AttributeType: "S"},
			storage.AttributeDefinition{AttributeName: "g1s", AttributeType: "S"})
		t.Indexes = append(t.Indexes, ix)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		var err error
		if done, err = b.BackfillIndex(ctx, tb.Account, tb.Name, ix.ID, 100); err != nil {
			t.Fatal(err)
		}
	}
	if n := recoverOnce(t, ctx, b); n != 2 {
		t.Errorf("Recover applied %d writes, want 2", n)
	}
	cur, err := b.GetTable(ctx, tb.Account, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Index("added") == nil || storage.IndexRowFor(cur, cur.Index("added"), indexed("moved")) == nil {
		t.Fatalf("the added index would hold no row for the repaired image: %+v", cur.Indexes)
	}
	for _, k := range []storage.Key{deleted, moved} {
		pk := string(k.PK)
		if d, err := divergences(ctx, b, cur, k, indexed("deleted"), indexed("moved"), gItem("moved", "y")); err != nil || len(d) != 0 {
			t.Errorf("%q: index after the repair: %v, %v", pk, d, err)
		}
	}
	settle(t, ctx, b, b2)
}

// TestRepairFromAClockAheadIsDeleted: a repair stored by a writer whose
// clock runs a minute ahead (its cells carry that write time) is deleted
// once applied, not applied again at every pass: the delete is stamped
// after the repair's own write time.
func TestRepairFromAClockAheadIsDeleted(t *testing.T) {
	ctx, b, b2, tb, k := twoFrontends(t, nil)
	failedWrite(t, ctx, b, b2, tb, k, put(gItem("a", "x")))
	rs := storedRepairRows(t, ctx, b, tb)
	if len(rs) != 1 {
		t.Fatalf("repairs %v, want one", rs)
	}
	r := rs[0]
	ahead := time.Now().Add(time.Minute).UnixMicro()
	if err := b.s.Query(`UPDATE `+b.catalog+`.repairs USING TIMESTAMP ? SET version = ? WHERE minute = ? AND shard = ? AND id = ?`,
		ahead, r.version, r.minute, repairShard(r.id), r.id).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	if n := recoverOnce(t, ctx, b); n != 1 {
		t.Errorf("Recover applied %d writes, want 1", n)
	}
	if got := storedRepairRows(t, ctx, b, tb); len(got) != 0 {
		t.Errorf("repairs left after they were applied: %v", got)
	}
	if n := recoverOnce(t, ctx, b); n != 0 {
		t.Errorf("second Recover applied %d writes, want 0", n)
	}
	settle(t, ctx, b, b2)
}

// repairPasses plants repairs for a table of its own and runs recovery
// passes over them on a backend of its own (opened with set, as
// openFrontend), which has drained nothing yet.
type repairPasses struct {
	t   *testing.T
	ctx context.Context
	b   *Backend
	tb  *storage.Table
	r   *recovery
}

func newRepairPasses(t *testing.T, set ...func(*Options)) *repairPasses {
	b := backend(t)
	b3 := openFrontend(t, set...)
	return &repairPasses{t: t, ctx: ctxT(t, 3*time.Minute), b: b, tb: intentTable(t, b),
		r: &recovery{b: b3, me: b3.fe.id.Load().owner, ttl: time.Hour, renewed: time.Now(), tables: map[string]*storage.Table{}}}
}

// store plants a repair of an insert of pk in minute, on shard, whose new
// image is corrupt when bad is set (it fails at every pass).
func (p *repairPasses) store(minute int64, shard int, pk string, bad bool) {
	p.t.Helper()
	spoil := intact
	if bad {
		spoil = badImage
	}
	vals := plantValues(p.t, p.ctx, p.b, p.tb, gItem(pk, "x"), spoil)
	plantRepair(p.t, p.ctx, p.b, minute, rand.Int64N(1<<40)*repairShards+int64(shard), vals)
}

// left returns the keys of the repairs left in minute.
func (p *repairPasses) left(minute int64) []string {
	p.t.Helper()
	var out []string
	for _, r := range storedRepairRows(p.t, p.ctx, p.b, p.tb) {
		if r.minute == minute {
			out = append(out, r.pk)
		}
	}
	slices.Sort(out)
	return out
}

func (p *repairPasses) pass() error {
	_, err := p.r.repairs(p.ctx)
	return err
}

// TestDrainedRepairShardNotReadAgain: the partition (minute and shard) of
// a minute that ended more than repairSkew ago, whose repairs a pass
// applied all, is not read again by the same process, so the tombstones
// of its applied repairs are not passed over at every pass; a repair that
// appears there afterwards (only a writer whose clock is further behind
// could store one) is left alone. A shard of the same minute that holds a
// repair that keeps failing is read again at every pass, and a repair
// stored there later is applied.
func TestDrainedRepairShardNotReadAgain(t *testing.T) {
	p := newRepairPasses(t)
	minute := time.Now().Add(-3*repairSkew).Unix() / 60
	p.store(minute, 1, "bad", true)
	p.store(minute, 2, "a", false)
	if err := p.pass(); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("pass: %v, want the corrupt repair's error", err)
	}
	if got := p.left(minute); !slices.Equal(got, []string{"bad"}) {
		t.Fatalf("repairs left in the settled minute after a pass: %q, want the failing one", got)
	}
	p.store(minute, 2, "b", false)
	p.store(minute, 1, "c", false)
	_ = p.pass()
	if got := p.left(minute); !slices.Equal(got, []string{"b", "bad"}) {
		t.Errorf("repairs left after another pass: %q, want the one stored in the drained shard and the failing one", got)
	}
}

// TestRecentRepairMinuteReadAgain: a minute that ended less than
// repairSkew ago is read at every pass, drained or not, so a repair that a
// writer with a slower clock stores there afterwards is applied.
func TestRecentRepairMinuteReadAgain(t *testing.T) {
	p := newRepairPasses(t)
	minute := time.Now().Add(-repairSkew/2).Unix() / 60
	p.store(minute, 3, "a", false)
	if err := p.pass(); err != nil {
		t.Fatal(err)
	}
	p.store(minute, 3, "b", false)
	if err := p.pass(); err != nil {
		t.Fatal(err)
	}
	if got := p.left(minute); len(got) != 0 {
		t.Errorf("repairs left in a recent minute after two passes: %q", got)
	}
}

// TestOverdueRepairReported: a repair that still fails more than
// repairOverdue after its minute, 4 h before its TTL drops it unapplied
// (and its write's index rows, stream record and expiry rows are never
// written), is counted as "overdue" at each pass that fails to apply it
// and logged at error level with its table, its error and the time it has
// left, once for passes less than a minute apart; a failing repair that
// is younger, and an old one that applies, are not reported.
func TestOverdueRepairReported(t *testing.T) {
	var logged logRecords
	p := newRepairPasses(t, func(o *Options) { o.Log = slog.New(&logged) })
	var events repairEvents
	events.watch(t, p.r.b)
	now := time.Now()
	old := now.Add(-repairOverdue-time.Hour).Unix() / 60
	young := now.Add(-repairOverdue+time.Hour).Unix() / 60
	p.store(old, 1, "old-bad", true)
	p.store(old, 2, "old-good", false)
	p.store(young, 1, "young-bad", true)
	for range 2 {
		if err := p.pass(); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("pass: %v, want the corrupt repairs' error", err)
		}
	}
	if got, want := events.list(), []string{"overdue", "applied", "overdue"}; !slices.Equal(got, want) {
		t.Errorf("repair events %q, want %q (the old failing repair at each pass, the old good one applied)", got, want)
	}
	if got := p.left(old); !slices.Equal(got, []string{"old-bad"}) {
		t.Errorf("repairs left in the old minute: %q, want the failing one", got)
	}
	if got := p.left(young); !slices.Equal(got, []string{"young-bad"}) {
		t.Errorf("repairs left in the younger minute: %q, want the failing one", got)
	}
	errs := logged.at(slog.LevelError)
	if len(errs) != 1 {
		t.Fatalf("%d error lines, want 1 for two passes close together: %v", len(errs), errs)
	}
	e := errs[0]
	if e["table"] != p.tb.Name || !strings.Contains(e["error"], "corrupt") || e["overdue_failures"] != "1" ||
		!strings.Contains(e["msg"], "expires soon") {
		t.Errorf("error line %v, want the table %q, the corrupt repair's error and one overdue failure", e, p.tb.Name)
	}
	if left, err := time.ParseDuration(e["expires_in"]); err != nil || left < 3*time.Hour-2*time.Minute || left > 3*time.Hour {
		t.Errorf("expires_in %q (%v), want about 3h", e["expires_in"], err)
	}
}

// TestReplayGoesPastFailingIntent: within one stopped frontend, an intent
// that fails at every replay (its table definition is corrupt), met
// first, does not keep the frontend's other writes from being recovered;
// the frontend stays listed and the error is reported.
func TestReplayGoesPastFailingIntent(t *testing.T) {
	ctx, b, b2, tb, _ := twoFrontends(t, nil)
	owner := b2.fe.id.Load().owner
	t.Cleanup(func() {
		_ = b.s.Query(`DELETE FROM `+b.catalog+`.frontends WHERE k = 0 AND owner = ?`, owner).Exec()
	})
	vals := plantValues(t, ctx, b, tb, gItem("z", "z"), badDef)
	minute := time.Now().Unix() / 60
	// More than a replay applies at once, all before the good intent.
	for i := range int64(replayParallel + 2) {
		plantIntent(t, ctx, b, owner, minute, math.MinInt64+i, vals)
	}
	commitWithoutEffects(t, ctx, b2, tb, strKey(t, tb, "a"), gItem("a", "x"))
	if now := time.Now().Unix() / 60; now != minute {
		t.Skipf("the minute ended between the two intents (%d, %d)", minute, now)
	}
	b2.Close()
	// The pass that recovers the good write replays the failing intents
	// too, and reports them.
	for deadline := time.Now().Add(10 * testLease); ; time.Sleep(300 * time.Millisecond) {
		n, err := b.Recover(ctx)
		d, derr := divergences(ctx, b, tb, strKey(t, tb, "a"), gItem("a", "x"))
		if derr != nil {
			t.Fatal(derr)
		}
		if n > 0 && len(d) == 0 {
			if err == nil || !strings.Contains(err.Error(), "intents of "+owner) {
				t.Errorf("Recover's error %v, want the failing intents'", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the write behind failing intents was not recovered: %v, %v", d, err)
		}
	}
	if !slices.Contains(listedOwners(t, ctx, b), owner) {
		t.Errorf("the frontend with a failing intent was unlisted")
	}
}

// TestRepairOfWriteRewrittenUnchanged: a repair applied after its item was
// written again with the same image writes the item's index rows. The
// newer write changed no index row (storage.IndexChanges writes nothing
// for a row that stays the same), so the rows the repaired write owed
// would otherwise never be written; a restore resumed after a crash
// rewrites its items exactly so.
func TestRepairOfWriteRewrittenUnchanged(t *testing.T) {
	ctx, b, b2, tb, k := twoFrontends(t, nil)
	failedWrite(t, ctx, b, b2, tb, k, put(gItem("a", "x")))
	if err := b.Mutate(ctx, tb, k, put(gItem("a", "x"))); err != nil {
		t.Fatal(err)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x")); err != nil || len(d) == 0 {
		t.Fatalf("the index agreed with the item before the repair (%v, %v): the test shows nothing", d, err)
	}
	if n := recoverOnce(t, ctx, b); n != 1 {
		t.Errorf("Recover applied %d writes, want 1", n)
	}
	if d, err := divergences(ctx, b, tb, k, gItem("a", "x")); err != nil || len(d) != 0 {
		t.Errorf("index after the repair: %v, %v", d, err)
	}
	settle(t, ctx, b, b2)
}
