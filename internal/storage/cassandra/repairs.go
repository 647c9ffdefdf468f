package cassandra

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// Repairs (docs/adr/0018i) finish the effects of committed writes whose
// effects failed on a server that goes on running. A write intent
// (intents.go) is replayed only once its frontend has stopped, so such a
// write's index rows, stream record and expiry rows would otherwise be
// missing for as long as its server runs. When committed's effects fail,
// it stores a repair instead, in the catalog keyspace:
//
//	repair_minutes ((hour), minute)      the minutes that hold repairs
//	repairs        ((minute, shard), id) the columns of an intent
//
// minute is the Unix minute the repair was written in (hour = minute/60),
// id a random number and shard id modulo repairShards. Rows of both are
// plain inserts that expire after repairTTL; a minute's row is written
// before its first repair and never deleted. Each recovery pass (Recover,
// under its lease) reads the minutes listed for the hours from repairTTL
// ago up to now and applies every repair it finds, shard by shard:
// writeEffects with the stored images and version, without the
// write-history check of an intent (the writer saw its LWT apply). Effects
// are idempotent and stamped with the write's version, so a repair
// applied after newer writes of its item leaves their rows winning. An
// applied repair is deleted; one that fails stays for the next pass, and
// the others go on. One that still fails repairOverdue after its minute,
// shortly before its TTL drops it unapplied, is counted and logged as an
// error (reportOverdue).
//
// Bounds. A pass reads the 26 hours' lists (at most 60 rows each, no
// tombstones) and the minutes they list. A minute that ended more than
// repairSkew ago (no writer whose clock is within repairSkew of this
// process's still stores repairs in it) and whose repairs a pass of this
// process applied all is not read again by this process, so the
// tombstones of applied repairs are passed over only while their minute
// is recent: about repairSkew / 10 s passes (drained is kept per shard, so
// a repair that keeps failing keeps only its own shard read). A process
// lists a minute once, however many repairs it stores in it. A repair partition holds one
// minute's repairs of one shard: even at a sustained 1,000 failed
// effects a second, 7,500 rows, far below Cassandra's default
// tombstone_failure_threshold (100,000), and each shard is read on its
// own, so one that fails keeps no other from being applied.

const (
	// repairTTL is how long a repair is kept (seconds), as an intent.
	repairTTL = intentTTL
	// repairShards is how many partitions share one minute's repairs.
	repairShards = 8
	// repairTimeout bounds the storing of one repair (committed).
	repairTimeout = 5 * time.Second
	// repairSkew is how far behind this process's clock a writer's may
	// run: a minute that ended longer ago than this gets no new repairs.
	repairSkew = 10 * time.Minute
	// repairOverdue is the age (from the start of its minute) past which
	// a repair that still fails is reported as overdue (reportOverdue): 4 h
	// before its TTL drops it unapplied, time for an alert to reach someone
	// and for them to mend the cluster, while 20 h of failing passes rule
	// out a passing fault (docs/adr/0018i).
	repairOverdue = 20 * time.Hour
	// overdueLogEvery is the least time between two log lines of
	// reportOverdue.
	overdueLogEvery = time.Minute
)

func repairShard(id int64) int { return int(uint64(id) % repairShards) }

// writeRepair stores a repair of the committed write of nw over old (either
// nil) at key of t with version ver, by the identity of ctx. Cost: two
// plain QUORUM inserts, the minute's listing and the repair with the two
// images.
func (b *Backend) writeRepair(ctx context.Context, t *storage.Table, key storage.Key, old, nw item.Item, ver int64) error {
	vals, err := intentValues(ctx, t, key, old, nw, ver)
	if err != nil {
		return err
	}
	id := rand.Int64()
	minute := time.Now().Unix() / 60
	vals = append([]any{minute, repairShard(id), id}, append(vals, repairTTL)...)
	if !b.repairsListed.has(minute) {
		// Kept a little longer than the minute's last repair.
		err = b.retry(ctx, func() error {
			return b.s.Query(`INSERT INTO `+b.catalog+`.repair_minutes (hour, minute) VALUES (?, ?) USING TTL ?`,
				minute/60, minute, repairTTL+120).WithContext(ctx).Idempotent(true).Exec()
		})
		if err == nil {
			b.repairsListed.add(minute, minute) // a writer lists only the current minute
		}
	}
	if err == nil {
		err = b.retry(ctx, func() error {
			return b.s.Query(`INSERT INTO `+b.catalog+`.repairs (minute, shard, id, `+intentColumns+`)
			VALUES (?, ?, ?, `+intentMarks+`) USING TTL ?`, vals...).WithContext(ctx).Idempotent(true).Exec()
		})
	}
	if err != nil {
		return fmt.Errorf("cassandra: store repair (version %d): %w", ver, err)
	}
	b.noteRepair("stored")
	return nil
}

// noteRepair calls Options.OnRepair.
func (b *Backend) noteRepair(event string) {
	if f := b.onRepair.Load(); f != nil {
		(*f)(event)
	}
}

// repairs applies the stored repairs of the minutes listed for the hours
// from repairTTL ago to the next one, up to replayParallel at a time. It
// returns how many it applied and the first error; a repair, a shard or
// an hour that fails does not stop the others.
func (r *recovery) repairs(ctx context.Context) (int, error) {
	now := time.Now()
	oldest := (now.Unix() - repairTTL) / 60
	settled := now.Add(-repairSkew).Unix()/60 - 1 // minutes up to this one get no new repairs
	var (
		total int
		first error
	)
	b := r.b
	from, to := repairHours(now)
	for hour := from; hour <= to && ctx.Err() == nil; hour++ {
		minutes, err := b.repairMinutes(ctx, hour)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		for _, m := range minutes {
			n, err := r.repairMinute(ctx, m, m <= settled, oldest)
			total += n
			if errors.Is(err, errLeaseLost) {
				return total, err
			}
			first = cmp.Or(first, err)
		}
	}
	return total, cmp.Or(first, ctx.Err())
}

// repairHours returns the first and the last hour (Unix hours) whose
// listed minutes a pass at now reads: from repairTTL ago (older repairs
// have expired) to the next hour (a writer's clock may run a little
// ahead of now).
func repairHours(now time.Time) (from, to int64) {
	return (now.Unix() - repairTTL) / 3600, now.Unix()/3600 + 1
}

// repairMinutes returns the minutes (Unix minutes, ascending) listed in
// repair_minutes for hour (a Unix hour): those in which some process
// stored a repair. Cost: one QUORUM read of one partition of at most 60
// rows.
func (b *Backend) repairMinutes(ctx context.Context, hour int64) ([]int64, error) {
	var minutes []int64
	iter := b.s.Query(`SELECT minute FROM `+b.catalog+`.repair_minutes WHERE hour = ?`, hour).WithContext(ctx).Iter()
	var m int64
	for iter.Scan(&m) {
		minutes = append(minutes, m)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("repair minutes of hour %d: %w", hour, err)
	}
	return minutes, nil
}

// repairMinute applies the repairs of minute, shard by shard, and returns
// how many it applied and the first error. Of a settled minute, it skips
// the shards drained before and records those it drains now.
func (r *recovery) repairMinute(ctx context.Context, minute int64, settled bool, oldest int64) (int, error) {
	var (
		total int
		first error
	)
	for shard := range repairShards {
		part := repairPart{minute, shard}
		if settled && r.b.repairsDrained.has(part) {
			continue
		}
		iter := r.b.s.Query(`SELECT id, `+intentColumns+`, WRITETIME(version) FROM `+r.b.catalog+`.repairs WHERE minute = ? AND shard = ?`,
			minute, shard).WithContext(ctx).PageSize(100).Iter()
		n, err := r.applyAll(ctx, iter, func(in *intent) (bool, error) { return r.repair(ctx, minute, in) })
		total += n
		if errors.Is(err, errLeaseLost) {
			return total, err
		}
		if err != nil && first == nil {
			first = fmt.Errorf("repairs of minute %d, shard %d: %w", minute, shard, err)
		}
		if err == nil && settled {
			r.b.repairsDrained.add(part, oldest)
		}
	}
	return total, first
}

// repairPart is one partition of the repairs table.
type repairPart struct {
	minute int64
	shard  int
}

// minuteSet is a set of keys that each belong to a minute, safe for
// concurrent use, whose keys of minutes gone by are forgotten.
type minuteSet[K comparable] struct {
	mu     sync.Mutex
	keys   map[K]struct{}
	minute func(K) int64
}

func newMinuteSet[K comparable](minute func(K) int64) *minuteSet[K] {
	return &minuteSet[K]{keys: map[K]struct{}{}, minute: minute}
}

// has reports whether k is in the set.
func (s *minuteSet[K]) has(k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.keys[k]
	return ok
}

// add puts k in the set and forgets the keys of minutes before oldest.
func (s *minuteSet[K]) add(k K, oldest int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[k] = struct{}{}
	for k := range s.keys {
		if s.minute(k) < oldest {
			delete(s.keys, k)
		}
	}
}

// reportOverdue reports the repair in, stored in minute (a Unix minute),
// which failed to apply with err, if it is older than repairOverdue: it
// counts it ("overdue", Options.OnRepair) and logs it at error level, the
// first time, then at most once every overdueLogEvery with how many were
// counted since the previous line. Each pass that fails to apply an
// overdue repair counts it again, until it is applied or expires, so the
// count goes on rising for as long as a write's effects are at risk.
func (b *Backend) reportOverdue(minute int64, in *intent, err error) {
	stored := time.Unix(minute*60, 0)
	if time.Since(stored) <= repairOverdue {
		return
	}
	left := time.Until(stored.Add(repairTTL * time.Second))
	b.noteRepair("overdue")
	b.overdueFailed.Add(1)
	b.overdueLog.Do(func() {
		b.opts.Log.Error("cassandra: a repair of a committed write still fails and expires soon; its index rows, stream record and expiry rows will then never be written",
			"table", in.tname, "version", in.version, "expires_in", left.Round(time.Minute).String(), "error", err,
			"overdue_failures", b.overdueFailed.Swap(0))
	})
}

// repair applies the repair in, stored in minute, and deletes it. A
// repair of a table deleted since is deleted without being applied. The
// delete is stamped after the repair's own write time, which a writer
// whose clock runs ahead of this process's set in the future: a delete at
// this process's time would lose to it, and the repair be applied again
// every pass.
func (r *recovery) repair(ctx context.Context, minute int64, in *intent) (bool, error) {
	ok, err := r.apply(ctx, in, false)
	if err != nil {
		err = fmt.Errorf("repair of %s version %d: %w", in.tname, in.version, err)
		if ctx.Err() == nil {
			r.b.reportOverdue(minute, in, err)
		}
		return false, err
	}
	b := r.b
	if ok {
		b.noteRepair("applied")
	}
	at := max(time.Now().UnixMicro(), in.written+1)
	return ok, b.retry(ctx, func() error {
		return b.s.Query(`DELETE FROM `+b.catalog+`.repairs USING TIMESTAMP ? WHERE minute = ? AND shard = ? AND id = ?`,
			at, minute, repairShard(in.id), in.id).WithContext(ctx).Idempotent(true).Exec()
	})
}
