package cassandra

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
//	repairs ((hour, shard), id)  the columns of an intent
//
// hour is the Unix hour the repair was written in, id a random number and
// shard id modulo repairShards. Rows are plain inserts that expire after
// repairTTL. Each recovery pass (Recover, under its lease) reads the
// partitions of the hours from repairTTL ago up to now and applies every
// repair it finds: writeEffects with the stored images and version,
// without the write-history check of an intent (the writer saw its LWT
// apply). Effects are idempotent and stamped with the write's version, so
// a repair applied after newer writes of its item leaves their rows
// winning. An applied repair is deleted (one tombstone in a partition that
// expires anyway); one that fails stays for the next pass, and the others
// go on.
//
// The partitions stay bounded: one holds the repairs written in one hour
// that fell on its shard. A write stores at most one repair, after its
// effects failed, which takes a retried request against an unwell
// cluster; even at a sustained 1,000 such writes a second, a partition
// gets 1,000 × 3,600 / 8 = 450,000 rows in its hour and no more, and
// after repairTTL (plus gc_grace_seconds for the tombstones of applied
// ones) it is gone. A pass reads the hours from repairTTL ago to the next
// one (a writer's clock may run a little ahead): 26 hours × 8 shards = 208
// partitions in 26 queries, almost all empty.

const (
	// repairTTL is how long a repair is kept (seconds), as an intent.
	repairTTL = intentTTL
	// repairShards is how many partitions share one hour's repairs.
	repairShards = 8
	// repairTimeout bounds the storing of one repair (committed).
	repairTimeout = 5 * time.Second
)

// repairShardList is the shards, for a query's IN.
var repairShardList = func() []int {
	s := make([]int, repairShards)
	for i := range s {
		s[i] = i
	}
	return s
}()

func repairShard(id int64) int { return int(uint64(id) % repairShards) }

// writeRepair stores a repair of the committed write of nw over old (either
// nil) at key of t with version ver, by the identity of ctx. Cost: one
// plain QUORUM insert with the two images.
func (b *Backend) writeRepair(ctx context.Context, t *storage.Table, key storage.Key, old, nw item.Item, ver int64) error {
	vals, err := intentValues(ctx, t, key, old, nw, ver)
	if err != nil {
		return err
	}
	id := rand.Int64()
	hour := time.Now().Unix() / 3600
	vals = append([]any{hour, repairShard(id), id}, append(vals, repairTTL)...)
	err = b.retry(ctx, func() error {
		return b.s.Query(`INSERT INTO `+b.catalog+`.repairs (hour, shard, id, `+intentColumns+`)
			VALUES (?, ?, ?, `+intentMarks+`) USING TTL ?`, vals...).WithContext(ctx).Idempotent(true).Exec()
	})
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

// repairs applies the stored repairs, hour by hour from repairTTL ago to
// the next hour, up to replayParallel at a time. It returns how many it
// applied and the first error; a repair that fails does not stop the
// others. An hour that has ended (more than an hour ago, so no writer
// stores repairs in it any more) and that a pass of this process found
// with every repair applied is not read again by this process: its
// applied repairs leave tombstones, which each read would pass over until
// they are purged.
func (r *recovery) repairs(ctx context.Context) (int, error) {
	now := time.Now().Unix()
	var (
		total int
		first error
	)
	b := r.b
	for hour := (now - repairTTL) / 3600; hour <= now/3600+1 && ctx.Err() == nil; hour++ {
		closed := hour < now/3600-1
		if closed && b.repairHourDrained(hour) {
			continue
		}
		iter := b.s.Query(`SELECT id, `+intentColumns+`, WRITETIME(version) FROM `+b.catalog+`.repairs WHERE hour = ? AND shard IN ?`,
			hour, repairShardList).WithContext(ctx).PageSize(100).Iter()
		n, err := r.applyAll(ctx, iter, func(in *intent) (bool, error) { return r.repair(ctx, hour, in) })
		total += n
		if errors.Is(err, errLeaseLost) {
			return total, err
		}
		if err != nil && first == nil {
			first = fmt.Errorf("repairs of hour %d: %w", hour, err)
		}
		if err == nil && closed {
			b.drainRepairHour(hour, (now-repairTTL)/3600)
		}
	}
	return total, cmp.Or(first, ctx.Err())
}

// repairHourDrained reports whether this process found every repair of
// the ended hour applied (drainRepairHour).
func (b *Backend) repairHourDrained(hour int64) bool {
	b.repairsMu.Lock()
	defer b.repairsMu.Unlock()
	_, ok := b.repairsDrained[hour]
	return ok
}

// drainRepairHour records that every repair of the ended hour was applied,
// and forgets the hours before oldest, which no pass reads any more.
func (b *Backend) drainRepairHour(hour, oldest int64) {
	b.repairsMu.Lock()
	defer b.repairsMu.Unlock()
	if b.repairsDrained == nil {
		b.repairsDrained = map[int64]struct{}{}
	}
	b.repairsDrained[hour] = struct{}{}
	for h := range b.repairsDrained {
		if h < oldest {
			delete(b.repairsDrained, h)
		}
	}
}

// repair applies the repair in, stored in hour, and deletes it. A repair
// of a table deleted since is deleted without being applied. The delete
// is stamped after the repair's own write time, which a writer whose clock
// runs ahead of this process's set in the future: a delete at this
// process's time would lose to it, and the repair be applied again every
// pass.
func (r *recovery) repair(ctx context.Context, hour int64, in *intent) (bool, error) {
	ok, err := r.apply(ctx, in, false)
	if err != nil {
		return false, fmt.Errorf("repair of %s version %d: %w", in.tname, in.version, err)
	}
	b := r.b
	if ok {
		b.noteRepair("applied")
	}
	at := max(time.Now().UnixMicro(), in.written+1)
	return ok, b.retry(ctx, func() error {
		return b.s.Query(`DELETE FROM `+b.catalog+`.repairs USING TIMESTAMP ? WHERE hour = ? AND shard = ? AND id = ?`,
			at, hour, repairShard(in.id), in.id).WithContext(ctx).Idempotent(true).Exec()
	})
}
