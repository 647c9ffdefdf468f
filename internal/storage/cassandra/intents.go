package cassandra

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Write intents close the crash gap of item writes (storage.Recoverer).
// Mutate commits an item with an LWT and writes its index rows, stream
// record and expiry rows afterwards; a process that stops in between
// leaves them behind. So before each LWT attempt the writer records the
// attempt, durably, in the catalog keyspace:
//
//	intents   ((owner, minute), id)  table, key, old and new images, version
//	frontends ((k), owner)           started, renewed: the live writers
//
// owner is a random ID of the writing process (a "frontend"), minute the
// attempt's start in Unix minutes and id its write ID, which the item row's
// write history records if the attempt applied. Intents are plain inserts
// that expire after intentTTL and are never deleted (no tombstones).
//
// A frontend holds the lease "frontend/<owner>" while it runs, renewing it
// every third of Options.FrontendLease. Recover, in one process at a time
// (lease "recover-intents"), takes over the lease of every listed frontend
// whose lease is free, which shows that the frontend stopped (and keeps it
// from taking the lease back), and replays its intents of the minutes from
// intentWindow before its last renewal up to now: an intent whose write ID
// the item row (read at SERIAL) remembers applied, and its derived rows
// are written again (they are idempotent: same cells, same timestamps);
// the others wrote nothing. Then it deletes the frontend's row.
//
// Effects that fail on a frontend that goes on running are stored as
// repairs (repairs.go), which each pass applies after the stopped
// frontends.
//
// A frontend that finds its lease gone or lapsed (it was paused or cut off
// for longer than the lease) takes a fresh owner ID and lists its old one
// again, so that the writes it started under the old ID are recovered as
// well should it stop later.

const (
	// intentTTL is how long an intent is kept (seconds): longer than any
	// write, so that a recovery pass that runs late still finds it.
	intentTTL = 24 * 60 * 60
	// intentWindow bounds how long an attempt can run from its intent to
	// its derived rows: Recover replays the intents of a stopped frontend
	// from this long before its last lease renewal on. An attempt that
	// took longer and was still running when its frontend stopped is not
	// repaired.
	intentWindow = 5 * time.Minute
	// replayParallel is how many intents a recovery pass replays at once.
	replayParallel = 8
	// recoverLease names the lease of the recovery pass.
	recoverLease = "recover-intents"
)

// frontend is this process's identity as a writer.
type frontend struct {
	id   atomic.Pointer[frontendID]
	stop context.CancelFunc
	done chan struct{}
}

// frontendID is one owner ID and when it was registered.
type frontendID struct {
	owner   string
	started time.Time
}

func frontendLease(owner string) string { return "frontend/" + owner }

// writeIntent records, before an LWT attempt, the attempt that writes nw
// over old (nil for an absent item; nw nil deletes) at key of t with
// version ver and write ID id, so that Recover can write its index rows,
// stream record and expiry rows if this process stops after the LWT
// applied and before they are written. It must return nil before the LWT
// is sent: an error means the attempt must not be made (the write fails
// with it, or is retried). The stream record's identity comes from ctx
// (storage.UserIdentityFrom), as in writeDerived. Cost: one plain QUORUM
// insert with the two images.
func (b *Backend) writeIntent(ctx context.Context, t *storage.Table, key storage.Key, old, nw item.Item, ver int64, id uint64) error {
	fid := b.fe.id.Load()
	if fid == nil {
		return errors.New("cassandra: write intent: no frontend registered")
	}
	vals, err := intentValues(ctx, t, key, old, nw, ver)
	if err != nil {
		return err
	}
	minute := time.Now().Unix() / 60
	vals = append([]any{fid.owner, minute, int64(id)}, append(vals, intentTTL)...)
	err = b.retry(ctx, func() error {
		return b.s.Query(`INSERT INTO `+b.catalog+`.intents (owner, minute, id, `+intentColumns+`)
			VALUES (?, ?, ?, `+intentMarks+`) USING TTL ?`, vals...).WithContext(ctx).Idempotent(true).Exec()
	})
	if err != nil {
		return fmt.Errorf("cassandra: write intent (version %d): %w", ver, err)
	}
	return nil
}

// intentColumns are the columns an intent and a repair (repairs.go) share,
// in the order of intentValues and scanIntent; intentMarks their markers.
const (
	intentColumns = `tid, account, tname, def, pk, sk, old, new, version, ident_type, ident_principal`
	intentMarks   = `?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`
)

// intentValues are the values of intentColumns for the write of nw over
// old (either nil) at key of t with version ver, by the identity of ctx.
func intentValues(ctx context.Context, t *storage.Table, key storage.Key, old, nw item.Item, ver int64) ([]any, error) {
	def, err := storage.EncodeTable(t)
	if err != nil {
		return nil, err
	}
	var ob, nb []byte
	if old != nil {
		ob = item.MarshalItem(old)
	}
	if nw != nil {
		nb = item.MarshalItem(nw)
	}
	var itype, iprincipal *string
	if u := storage.UserIdentityFrom(ctx); u != nil {
		itype, iprincipal = &u.Type, &u.PrincipalID
	}
	return []any{t.ID, t.Account, t.Name, def, key.PK, storage.StoredSK(key.SK), ob, nb, ver, itype, iprincipal}, nil
}

// startFrontend registers this process as a frontend (see claimFrontend)
// and starts renewing its lease.
func (b *Backend) startFrontend(ctx context.Context) error {
	fid, err := b.claimFrontend(ctx)
	if err != nil {
		return err
	}
	b.fe.id.Store(fid)
	rctx, stop := context.WithCancel(context.Background())
	b.fe.stop, b.fe.done = stop, make(chan struct{})
	go b.renewFrontend(rctx, fid.started)
	return nil
}

// stopFrontend stops the renewals; the lease then lapses.
func (b *Backend) stopFrontend() {
	if b.fe.stop != nil {
		b.fe.stop()
		<-b.fe.done
	}
}

// claimFrontend takes a new owner ID: its lease first, then its frontends
// row, so that a listed frontend without a lease has stopped.
func (b *Backend) claimFrontend(ctx context.Context) (*frontendID, error) {
	fid := &frontendID{owner: uuid.NewString(), started: time.Now()}
	ok, err := b.AcquireLease(ctx, frontendLease(fid.owner), fid.owner, b.opts.FrontendLease)
	if err == nil && !ok {
		err = errors.New("lease of a new owner ID is taken")
	}
	if err == nil {
		err = b.listFrontend(ctx, fid)
	}
	if err != nil {
		return nil, fmt.Errorf("cassandra: register frontend: %w", err)
	}
	return fid, nil
}

// listFrontend writes fid's frontends row (renewed: now).
func (b *Backend) listFrontend(ctx context.Context, fid *frontendID) error {
	return b.retry(ctx, func() error {
		return b.s.Query(`INSERT INTO `+b.catalog+`.frontends (k, owner, started, renewed) VALUES (0, ?, ?, ?)`,
			fid.owner, fid.started, time.Now()).WithContext(ctx).Idempotent(true).Exec()
	})
}

// renewFrontend renews the lease of the current owner ID every third of
// the lease until ctx ends. When the lease was lost (a recovery pass took
// it) or may have lapsed (no renewal succeeded for a whole lease), this
// process takes a fresh owner ID and lists the old one again: a recovery
// pass may have replayed and unlisted it already, without the intents
// this process wrote since.
func (b *Backend) renewFrontend(ctx context.Context, lastOK time.Time) {
	defer close(b.fe.done)
	ttl := b.opts.FrontendLease
	tick := time.NewTicker(ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		fid := b.fe.id.Load()
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, ttl)
		ok, err := b.AcquireLease(rctx, frontendLease(fid.owner), fid.owner, ttl)
		if err == nil && ok && start.Sub(lastOK) < ttl {
			lastOK = start
			_ = b.s.Query(`UPDATE `+b.catalog+`.frontends SET renewed = ? WHERE k = 0 AND owner = ?`, start, fid.owner).
				WithContext(rctx).Idempotent(true).Exec() // a missed update only widens the replay
			cancel()
			continue
		}
		if err != nil { // try again at the next tick
			cancel()
			continue
		}
		nfid, err := b.claimFrontend(rctx)
		if err == nil {
			b.fe.id.Store(nfid)
			lastOK = start
			err = b.listFrontend(rctx, fid)
			for try := 1; err != nil && ctx.Err() == nil && try < 5; try++ {
				time.Sleep(time.Duration(try) * time.Second / 2)
				err = b.listFrontend(rctx, fid)
			}
		}
		cancel()
	}
}

// Recover replays the write intents of stopped frontends (see the top of
// this file) and the repairs of live ones (repairs.go), and returns how
// many writes got their index rows, stream record and expiry rows written
// again (whether or not they had been written before). It does nothing,
// returning 0, while another process holds the recovery lease. It first
// finishes the transactions whose start is older than twice
// Options.TxTimeout (tx.go).
// Frontends whose lease is held are alive and skipped. A frontend whose
// replay fails stays listed, so the next pass replays it again, and a
// repair that fails stays stored; neither stops the others, and the
// first error is returned at the end.
func (b *Backend) Recover(ctx context.Context) (int, error) {
	if b.closed.Load() {
		return 0, storage.ErrClosed
	}
	b.recoverMu.Lock()
	defer b.recoverMu.Unlock()
	me := b.fe.id.Load()
	if me == nil {
		return 0, errors.New("cassandra: recover: no frontend registered")
	}
	ttl := b.opts.FrontendLease
	if ok, err := b.AcquireLease(ctx, recoverLease, me.owner, ttl); err != nil || !ok {
		return 0, wrap("recover", err)
	}
	fes, err := b.listedFrontends(ctx)
	if err != nil {
		return 0, wrap("recover", err)
	}
	// Transactions older than twice TxTimeout first (tx.go): PREPARE
	// rolled back, COMMITTING rolled forward.
	// A failure here does not stop the pass either.
	total, terr := b.recoverTransactions(ctx)
	if terr != nil {
		terr = fmt.Errorf("transactions: %w", terr)
	}
	r := &recovery{b: b, me: me.owner, ttl: ttl, renewed: time.Now(), tables: map[string]*storage.Table{}}
	n, ferr := r.frontends(ctx, fes)
	total += n
	if errors.Is(ferr, errLeaseLost) {
		return total, nil
	}
	n, rerr := r.repairs(ctx)
	total += n
	if errors.Is(rerr, errLeaseLost) {
		return total, nil
	}
	return total, wrap("recover", cmp.Or(terr, ferr, rerr))
}

// listedFrontend is a row of the frontends table.
type listedFrontend struct {
	owner            string
	started, renewed time.Time
}

// frontends replays the frontends of fes that stopped, except this
// process, one after the other. It goes past one whose replay fails and
// returns the first error, unless the recovery lease was lost.
func (r *recovery) frontends(ctx context.Context, fes []listedFrontend) (int, error) {
	var (
		total int
		first error
	)
	for _, f := range fes {
		if f.owner == r.me {
			continue
		}
		n, err := r.frontend(ctx, f)
		total += n
		if errors.Is(err, errLeaseLost) {
			return total, err
		}
		first = cmp.Or(first, err)
	}
	return total, first
}

// frontend replays the intents of f if it stopped, then unlists it.
func (r *recovery) frontend(ctx context.Context, f listedFrontend) (int, error) {
	b := r.b
	// A free lease shows that the frontend stopped; holding it keeps the
	// frontend, should it only have paused, from taking it back.
	ok, err := b.AcquireLease(ctx, frontendLease(f.owner), r.me, r.ttl)
	if err != nil || !ok {
		return 0, err
	}
	r.owner = f.owner
	defer func() { r.owner = "" }()
	scanStart := time.Now()
	last := maxTime(f.started, f.renewed) // its last sign of life
	from := maxTime(last.Add(-intentWindow), f.started, scanStart.Add(-intentTTL*time.Second))
	n, err := r.replay(ctx, from.Unix()/60-1, scanStart.Unix()/60+1)
	if err != nil {
		return n, err
	}
	// Unlist it, unless it listed itself again after scanStart (it had
	// only paused, see renewFrontend).
	return n, b.retry(ctx, func() error {
		return b.s.Query(`DELETE FROM `+b.catalog+`.frontends USING TIMESTAMP ? WHERE k = 0 AND owner = ?`,
			scanStart.UnixMicro(), f.owner).WithContext(ctx).Idempotent(true).Exec()
	})
}

func maxTime(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// errLeaseLost stops a recovery pass whose lease another process took.
var errLeaseLost = errors.New("cassandra: recovery lease lost")

// recovery is one Recover pass: over one frontend at a time, then over
// the repairs.
type recovery struct {
	b       *Backend
	me      string // this process's owner ID
	ttl     time.Duration
	owner   string    // the stopped frontend being replayed ("": none)
	renewed time.Time // when the leases were last renewed (at the latest)
	mu      sync.Mutex
	tables  map[string]*storage.Table // catalog entries by account and name (nil: gone)
}

// keepLeases renews the recovery lease and the stopped frontend's lease
// (if one is being replayed) when a third of their time has passed.
func (r *recovery) keepLeases(ctx context.Context) error {
	if time.Since(r.renewed) < r.ttl/3 {
		return nil
	}
	r.renewed = time.Now()
	names := []string{recoverLease}
	if r.owner != "" {
		names = append(names, frontendLease(r.owner))
	}
	for _, name := range names {
		ok, err := r.b.AcquireLease(ctx, name, r.me, r.ttl)
		if err != nil {
			return err
		}
		if !ok {
			return errLeaseLost
		}
	}
	return nil
}

// intent is one stored write intent, or repair (repairs.go).
type intent struct {
	id               int64
	written          int64 // when it was stored: WRITETIME, µs
	tid, account     string
	tname            string
	def              []byte
	pk, sk           []byte
	old, new         []byte
	version          int64
	itype, principal *string
}

// replay replays the intents of r.owner of the minutes from..to, up to
// replayParallel of them at a time. One that fails does not stop the
// others (the frontend stays listed, so the next pass replays them all
// again); the first error is returned, and a lost lease stops the replay.
func (r *recovery) replay(ctx context.Context, from, to int64) (int, error) {
	var (
		total int
		first error
	)
	for m := from; m <= to && ctx.Err() == nil; m++ {
		iter := r.b.s.Query(`SELECT id, `+intentColumns+`, WRITETIME(version) FROM `+r.b.catalog+`.intents WHERE owner = ? AND minute = ?`,
			r.owner, m).WithContext(ctx).PageSize(100).Iter()
		n, err := r.applyAll(ctx, iter, func(in *intent) (bool, error) { return r.apply(ctx, in, true) })
		total += n
		if errors.Is(err, errLeaseLost) {
			return total, err
		}
		if err != nil && first == nil {
			first = fmt.Errorf("intents of %s, minute %d: %w", r.owner, m, err)
		}
	}
	return total, cmp.Or(first, ctx.Err())
}

// applyAll calls apply, up to replayParallel at a time, on each intent
// iter yields (columns id, intentColumns and the WRITETIME of version),
// renewing the pass's leases as it goes, and returns how many calls
// reported true and the first error (of a call, or of iter). A call that
// fails does not stop the others; a lost lease stops the reading
// (errLeaseLost).
func (r *recovery) applyAll(ctx context.Context, iter *gocql.Iter, apply func(*intent) (bool, error)) (int, error) {
	var (
		mu    sync.Mutex
		n     int
		first error
		wg    sync.WaitGroup
	)
	sem := make(chan struct{}, replayParallel)
	for {
		if err := r.keepLeases(ctx); err != nil {
			wg.Wait()
			_ = iter.Close()
			return n, err
		}
		in := &intent{}
		if !iter.Scan(&in.id, &in.tid, &in.account, &in.tname, &in.def, &in.pk, &in.sk, &in.old, &in.new, &in.version,
			&in.itype, &in.principal, &in.written) {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ok, err := apply(in)
			mu.Lock()
			defer mu.Unlock()
			first = cmp.Or(first, err)
			if ok {
				n++
			}
		})
	}
	wg.Wait()
	return n, cmp.Or(first, iter.Close())
}

// currentTable returns the catalog entry of the table in was written to,
// or nil when that table was deleted since (or replaced by one of the
// same name).
func (r *recovery) currentTable(ctx context.Context, in *intent) (*storage.Table, error) {
	ck := in.account + "\x00" + in.tname
	r.mu.Lock()
	cur, seen := r.tables[ck]
	r.mu.Unlock()
	if !seen {
		var err error
		if cur, err = r.b.readTable(ctx, in.account, in.tname, gocql.Quorum); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.tables[ck] = cur
		r.mu.Unlock()
	}
	if cur == nil || cur.ID != in.tid {
		return nil, nil
	}
	return cur, nil
}

// apply writes the derived rows of the write of in, and reports whether it
// did. With checkWrite (an intent) it does so only if the item row's write
// history shows that the write applied; without (a repair) the writer knew
// it did. A table deleted since (or replaced by one of the same name) is
// skipped. When the item has been written again since (its row holds a
// newer version), the index rows are changed from the write's old image
// to the item's current one (none for a deleted item), not to the write's
// new image, still stamped with the write's version: an index added since
// the write, which the newer write did not know of, was built from the
// item as it is now, so a row for the write's new image would be one
// nothing ever deletes; and a newer write whose image left an index row
// unchanged wrote nothing for it (storage.IndexChanges), so the row this
// write owed must still be written (ADR 0018i).
func (r *recovery) apply(ctx context.Context, in *intent, checkWrite bool) (bool, error) {
	b := r.b
	if cur, err := r.currentTable(ctx, in); cur == nil || err != nil {
		return false, err
	}
	// The table as the writer saw it: its stream label, TTL generation and
	// indexes are the ones the write's derived rows belong to.
	t, err := storage.DecodeTable(in.def, 0)
	if err != nil || t.ID != in.tid {
		return false, err
	}
	key := storage.Key{PK: in.pk, SK: storage.LoadedSK(in.sk)}
	p := b.phys(t)
	var row *current
	err = b.retry(ctx, func() (err error) {
		row, err = b.readItem(ctx, p, key, gocql.Serial)
		return err
	})
	if err != nil {
		return false, r.unlessDropped(ctx, in, err)
	}
	// The row's write history tells whether the attempt applied (a
	// delete keeps the row as a tombstone with its history).
	if checkWrite && (row == nil || !hasWrite(row.writes, uint64(in.id))) {
		return false, nil
	}
	var old, nw item.Item
	if len(in.old) > 0 {
		if old, err = item.UnmarshalItem(in.old); err != nil {
			return false, fmt.Errorf("corrupt intent: %w", err)
		}
	}
	if len(in.new) > 0 {
		if nw, err = item.UnmarshalItem(in.new); err != nil {
			return false, fmt.Errorf("corrupt intent: %w", err)
		}
	}
	if in.itype != nil && in.principal != nil {
		ctx = storage.WithUserIdentity(ctx, &storage.UserIdentity{Type: *in.itype, PrincipalID: *in.principal})
	}
	indexed := nw
	if row == nil || row.version > in.version {
		indexed = nil
		if row != nil {
			indexed = row.item
		}
	}
	// effects derives them from a fresh entry (the intent's has no load
	// time), so an index added since the write is maintained too.
	if err := b.effects(ctx, t, p, key, old, nw, indexed, in.version); err != nil {
		return false, r.unlessDropped(ctx, in, err)
	}
	return true, nil
}

// unlessDropped returns err, a failure to replay in, unless it is
// Cassandra's answer for a table it does not know and the table of in is
// gone from the catalog (or replaced by one of the same name): then
// there is nothing to replay, and it returns nil. The catalog is read
// again, not taken from the pass's cache, since a node that has not yet
// learned of a new physical table gives the same answer.
func (r *recovery) unlessDropped(ctx context.Context, in *intent, err error) error {
	if !isUnconfigured(err) {
		return err
	}
	cur, rerr := r.b.readTable(ctx, in.account, in.tname, gocql.Quorum)
	if rerr != nil {
		return rerr
	}
	if cur == nil || cur.ID != in.tid {
		return nil
	}
	return err
}
