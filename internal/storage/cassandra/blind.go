package cassandra

import (
	"context"
	"hash/maphash"
	"sync/atomic"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Blind inserts (docs/adr/0018e): a single-item write's first read is
// skipped when the item is probably absent. The write then runs its
// function on no item and, if that yields an image, makes the fenced
// write an absent item gets (the directory entry, the intent, then
// INSERT ... IF NOT EXISTS). The LWT is the fence either way: if the item
// exists (a row, a tombstone, or a transaction's mark), it does not apply,
// and the write goes on as any write whose first attempt lost a race, from
// a SERIAL read. A function that on no item fails or writes nothing (a
// condition that wants the item, a delete) is never run blind: its outcome
// must rest on a read.
//
// Whether an item is probably absent is guessed per table from this
// process's recent writes (the absence counters): a table being loaded with new items
// gets blind inserts, one whose writes mostly find their items does not,
// so that a wrong guess (an intent and an LWT that does not apply, then
// the read after all) stays rare.

// absentSlots is the number of absence counters; tables share them by a
// hash of their ID, which bounds the memory whatever the number of tables
// (a shared slot only makes the guess worse).
const absentSlots = 256

// A counter counts up by absentHit for a write that found its item absent,
// down by absentMiss for one that found it present, within [0, absentMax];
// writes of a table whose counter is at least absentBlind go blind. A
// table's first writes read (the counter starts at 0); from then on one
// miss in five keeps the counter where it is.
const (
	absentHit   = 1
	absentMiss  = 4
	absentMax   = 16
	absentBlind = 8
)

var absentSeed = maphash.MakeSeed()

// absence holds the counters of Backend.absent.
type absence [absentSlots]atomic.Int32

func (f *absence) slot(tableID string) *atomic.Int32 {
	return &f[maphash.String(absentSeed, tableID)%absentSlots]
}

// blind reports whether a write of table tableID should skip its first
// read.
func (f *absence) blind(tableID string) bool {
	return f.slot(tableID).Load() >= absentBlind
}

// note records whether a write of table tableID found its item absent.
func (f *absence) note(tableID string, absent bool) {
	s := f.slot(tableID)
	for {
		v := s.Load()
		n := max(v-absentMiss, 0)
		if absent {
			n = min(v+absentHit, absentMax)
		}
		if n == v || s.CompareAndSwap(v, n) {
			return
		}
	}
}

// insertBlind makes a blind first attempt of a write of key (see the top
// of this file) when the table's counter calls for it. tried reports
// whether it sent the LWT; done that the write is complete (applied, its
// derived rows written). When tried and not done, the item exists (or the
// attempt is in doubt, in doubtful) and the caller reads it at SERIAL.
func (b *Backend) insertBlind(ctx context.Context, t *storage.Table, p phys, key storage.Key, fn storage.MutateFunc,
	doubtful *[]attemptInDoubt) (tried, done bool, err error) {
	if !b.blindAlways.Load() && !b.absent.blind(t.ID) {
		return false, false, nil
	}
	nw, fnErr := storage.CallMutateFunc(fn, nil)
	if fnErr != nil || nw == nil {
		return false, false, nil
	}
	// An image that is not the item of key is the normal path's to refuse,
	// after its read: on the item that exists, fn may build another image.
	if k, err := storage.ItemKey(t, nw); err != nil || string(k.PK) != string(key.PK) || string(k.SK) != string(key.SK) {
		return false, false, nil
	}
	ver, applied, err := b.attemptWrite(ctx, t, p, key, nil, nw, nil, doubtful)
	if err != nil {
		return true, false, err
	}
	b.absent.note(t.ID, applied)
	if !applied {
		return true, false, nil
	}
	return true, true, b.committed(ctx, t, p, key, nil, nw, ver)
}

// effectsTimeout is how long the effects of a committed write may take
// after its caller went away (committed).
const effectsTimeout = 10 * time.Second

// committed writes the effects of a write whose LWT applied (old -> nw at
// version ver: writeEffects), after the test hook between the two. The
// item has changed, so its index rows, stream record and expiry rows are
// written even when the caller has gone away: under ctx's values but not
// its cancellation, for up to effectsTimeout. When they fail, it stores a
// repair (repairs.go), which the next recovery pass applies, and the
// write succeeds: the item is committed, and its effects are bound to
// follow, as a global secondary index follows its table in DynamoDB
// (docs/adr/0018i). Only when the repair cannot be stored either is the
// error returned (the write's intent still covers it once this process
// stops).
func (b *Backend) committed(ctx context.Context, t *storage.Table, p phys, key storage.Key, old, nw item.Item, ver int64) error {
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.effectsTimeout)
	defer cancel()
	if hook := b.beforeIndexes.Load(); hook != nil {
		(*hook)()
	}
	err := b.writeEffects(ectx, t, p, key, old, nw, ver)
	if err == nil {
		return nil
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), repairTimeout)
	defer rcancel()
	rerr := b.writeRepair(rctx, t, key, old, nw, ver)
	b.warnEffects(t, ver, err, rerr)
	if rerr != nil {
		return err
	}
	return nil
}

// warnEffects logs that the effects of a committed write of t at version
// ver failed with err, and that storing their repair failed with rerr (or
// not: nil): the first time, then at most once every 10 s, with how many
// failed since the previous line, so that an unwell cluster does not also
// flood the log.
func (b *Backend) warnEffects(t *storage.Table, ver int64, err, rerr error) {
	b.effectsFailed.Add(1)
	b.effectsWarn.Do(func() {
		n := b.effectsFailed.Swap(0)
		if rerr != nil {
			b.opts.Log.Warn("cassandra: the effects of a committed write failed, and so did storing their repair; they wait for this server's intents to be replayed after it stops",
				"table", t.Name, "version", ver, "error", err, "repair_error", rerr, "failed_writes", n)
			return
		}
		b.opts.Log.Warn("cassandra: the effects of a committed write failed; stored a repair for the next recovery pass",
			"table", t.Name, "version", ver, "error", err, "failed_writes", n)
	})
}
