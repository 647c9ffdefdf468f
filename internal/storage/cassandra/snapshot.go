package cassandra

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

// One-instant table reads (storage.SnapshotScanner). Cassandra has no
// multi-partition snapshot, so the read is rebuilt from the table's change
// history (docs/adr/0013g):
//
//  1. the catalog entry gets a history capture (Table.HistoryCaptures),
//     which makes every write record its history record as point in time
//     recovery does;
//  2. the read waits backfillGrace, as an index backfill does: a write
//     committed after that derives its effects from an entry that has the
//     capture (freshEntry), so it records history;
//  3. the instant is a version T issued then;
//  4. a scan visits each row of version at most T as it is; a row of a
//     later version (a tombstone included) is replaced by the image
//     before its earliest write after T (its history record's old image),
//     or left out when the item did not exist at T;
//  5. the capture is removed when the read ends, whichever way.
//
// A capture left by a frontend that stopped mid-read is removed by the
// next capture on the table once it is staleCapture old.

// staleCapture is the age past which a history capture is taken to be
// left over by a read that will never end.
const staleCapture = 6 * time.Hour

// historyWait bounds how long a snapshot read waits for the history
// record of a write it found committed (a write records it just after it
// commits; an interrupted one is completed by the intent sweeper).
var historyWait = 2 * time.Minute

var _ storage.SnapshotScanner = (*Backend)(nil)

// ScanSnapshot implements storage.SnapshotScanner: every item of t, in the
// order of Scan, as of one instant, rebuilt from the change history as
// described above. It takes at least backfillGrace. Errors: wrapped
// ErrTableNotFound, ErrClosed, cluster failures, and an error when the
// history record of a committed write does not appear within historyWait.
func (b *Backend) ScanSnapshot(ctx context.Context, t *storage.Table, visit storage.VisitFunc) error {
	if b.closed.Load() {
		return storage.ErrClosed
	}
	id, err := b.captureHistory(ctx, t)
	if err != nil {
		return wrap("scan snapshot", err)
	}
	defer b.releaseCapture(context.WithoutCancel(ctx), t, id)
	if err := sleepCtx(ctx, b.backfillGrace()); err != nil {
		return err
	}
	// Every later write of this frontend gets a higher version; another
	// frontend's writes that start after now do too, up to clock skew.
	h := &historySince{b: b, t: t, after: b.nextVersion(0)}
	p := b.phys(t)
	err = b.withTable(ctx, t, func() error { return b.snapshotScan(ctx, p, h, visit) })
	return wrap("scan snapshot", err)
}

// captureHistory adds a history capture to t's catalog entry, removing
// stale ones, and returns its ID.
func (b *Backend) captureHistory(ctx context.Context, t *storage.Table) (string, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw[:])
	now := time.Now()
	// changeEntry, not UpdateTable: a capture changes no Cassandra table,
	// so the schema statements of UpdateTable are not sent.
	_, _, err := b.changeEntry(ctx, t.Account, t.Name, func(cur *storage.Table) (bool, error) {
		if cur.ID != t.ID {
			return false, storage.ErrTableNotFound
		}
		for k, at := range cur.HistoryCaptures {
			if now.Sub(at) > staleCapture {
				delete(cur.HistoryCaptures, k)
			}
		}
		if cur.HistoryCaptures == nil {
			cur.HistoryCaptures = map[string]time.Time{}
		}
		cur.HistoryCaptures[id] = now.UTC()
		return true, nil
	})
	return id, err
}

// releaseCapture removes capture id from t's catalog entry. A table that
// is gone has nothing to release; other failures leave the capture to be
// removed as stale.
func (b *Backend) releaseCapture(ctx context.Context, t *storage.Table, id string) {
	_, _, _ = b.changeEntry(ctx, t.Account, t.Name, func(cur *storage.Table) (bool, error) {
		if _, ok := cur.HistoryCaptures[id]; !ok || cur.ID != t.ID {
			return false, nil
		}
		delete(cur.HistoryCaptures, id)
		if len(cur.HistoryCaptures) == 0 {
			cur.HistoryCaptures = nil
		}
		return true, nil
	})
}

// snapshotScan visits the items of the table of p as of version h.after,
// in the order of Scan.
func (b *Backend) snapshotScan(ctx context.Context, p phys, h *historySince, visit storage.VisitFunc) error {
	l := tableListing(nil)
	first, last := l.buckets()
	for bk := first; bk <= last; bk++ {
		more, err := eachPartition(b.listedPartitions(ctx, p, l, bk), func(pk []byte) (bool, error) {
			return b.snapshotPartition(ctx, p, pk, h, visit)
		})
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// snapshotPartition visits the items of partition pk as of h.after.
func (b *Backend) snapshotPartition(ctx context.Context, p phys, pk []byte, h *historySince, visit storage.VisitFunc) (bool, error) {
	iter := b.s.Query(`SELECT sk, item, size, version, writes FROM `+p.items+` WHERE pk = ?`, pk).
		WithContext(ctx).Consistency(gocql.Quorum).PageSize(pageSize).Iter()
	var sk, blob, writes []byte
	var size int
	var ver int64
	for ; iter.Scan(&sk, &blob, &size, &ver, &writes); sk, blob, writes = nil, nil, nil {
		key := storage.Key{PK: pk, SK: storage.LoadedSK(sk)}
		var it item.Item
		if ver > h.after {
			img, err := h.imageAt(ctx, key, ver, writes)
			if err != nil {
				iter.Close()
				return false, err
			}
			it, size = img, item.Size(img)
		} else if blob != nil {
			var err error
			if it, err = item.UnmarshalItem(blob); err != nil {
				iter.Close()
				return false, fmt.Errorf("cassandra: corrupt row in %s: %w", p.items, err)
			}
		}
		if it == nil {
			continue // absent at the instant
		}
		if !visit(storage.Row{Item: it, Size: size, Pos: storage.Position{Key: key}}) {
			return false, iter.Close()
		}
	}
	return true, iter.Close()
}

// historySince is what a snapshot read knows of a table's history after
// version after: the versions recorded per item and the earliest record.
type historySince struct {
	b      *Backend
	t      *storage.Table
	after  int64
	cursor uint64 // sequence number read up to; 0: from after
	seen   map[historyWrite]struct{}
	first  map[string]historyFirst
}

type historyWrite struct {
	key string
	ver int64
}

type historyFirst struct {
	ver int64
	old item.Item
}

// historyKey is the map key of an item key.
func historyKey(k storage.Key) string {
	return string(binary.AppendUvarint(nil, uint64(len(k.PK)))) + string(k.PK) + string(k.SK)
}

// imageAt returns the item of key as of h.after (nil: absent), given its
// row at version ver with recent writes writes: the image before its
// earliest recorded write after h.after, once the history holds every
// write of the row after h.after.
func (h *historySince) imageAt(ctx context.Context, key storage.Key, ver int64, writes []byte) (item.Item, error) {
	k := historyKey(key)
	need := []int64{ver}
	for i := 0; i+16 <= len(writes); i += 16 {
		if v := int64(binary.BigEndian.Uint64(writes[i+8:])); v > h.after {
			need = append(need, v)
		}
	}
	deadline := time.Now().Add(historyWait)
	for attempt := 0; ; attempt++ {
		if h.has(k, need) {
			return h.first[k].old, nil
		}
		if attempt > 0 {
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("cassandra: snapshot: no history record of the write at version %d", ver)
			}
			if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
				return nil, err
			}
			h.cursor = 0 // a late record may sit before the cursor
		}
		if err := h.read(ctx); err != nil {
			return nil, err
		}
	}
}

func (h *historySince) has(k string, need []int64) bool {
	if _, ok := h.first[k]; !ok {
		return false
	}
	for _, v := range need {
		if _, ok := h.seen[historyWrite{k, v}]; !ok {
			return false
		}
	}
	return true
}

// read takes in the history records after the cursor.
func (h *historySince) read(ctx context.Context) error {
	if h.seen == nil {
		h.seen, h.first = map[historyWrite]struct{}{}, map[string]historyFirst{}
	}
	if h.cursor == 0 {
		h.cursor = seqOf(h.after, 1<<seqHashBits-1)
	}
	const limit = 1000
	for {
		recs, err := h.b.ReadStream(ctx, h.t.ID, storage.HistoryLabel, h.cursor, limit)
		if err != nil {
			return err
		}
		for _, r := range recs {
			h.cursor = r.Seq
			key, err := storage.ItemKey(h.t, r.Keys)
			if err != nil {
				return errors.Join(errors.New("cassandra: snapshot: history record without its keys"), err)
			}
			ver, _ := splitSeq(r.Seq)
			k := historyKey(key)
			h.seen[historyWrite{k, ver}] = struct{}{}
			if f, ok := h.first[k]; !ok || ver < f.ver {
				h.first[k] = historyFirst{ver: ver, old: r.OldImage}
			}
		}
		if len(recs) < limit {
			return nil
		}
	}
}
