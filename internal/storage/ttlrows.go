package storage

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// Time to Live: a table whose TTL is enabled keeps one expiry row per item
// that holds its TTL attribute as a Number (epoch seconds). Item writes
// maintain the rows in their own transaction, from TTLChanges; a backfill
// registers the items written before the TTL was enabled; a drain removes
// the rows once it is disabled. See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html
// and docs/adr/0005-ttl-and-streams.md.

// TTL statuses (TimeToLiveDescription.TimeToLiveStatus).
const (
	TTLDisabled  = "DISABLED"
	TTLEnabling  = "ENABLING"
	TTLEnabled   = "ENABLED"
	TTLDisabling = "DISABLING"
)

// TTLMaxAge is how far in the past an expiry time may lie for the item to
// be deleted: DynamoDB leaves alone items whose TTL is more than five years
// old (they are taken for a value in another unit).
const TTLMaxAge = 5 * 365 * 24 * time.Hour

// Maintained reports whether item writes maintain expiry rows: while the
// TTL is ENABLING (its backfill registers the older items) or ENABLED.
func (ttl *TimeToLive) Maintained() bool {
	return ttl.AttributeName != "" && (ttl.Status == TTLEnabling || ttl.Status == TTLEnabled)
}

// TTLRow is one expiry row: the item with table key Key expires at
// ExpireAt (epoch seconds). Its identity is (ExpireAt, Key).
type TTLRow struct {
	ExpireAt int64
	Key      Key
}

// Same reports whether a and b are the same row.
func (a *TTLRow) Same(b *TTLRow) bool {
	return a.ExpireAt == b.ExpireAt && bytes.Equal(a.Key.PK, b.Key.PK) && bytes.Equal(a.Key.SK, b.Key.SK)
}

// TTLExpireAt returns the expiry time of it under TTL attribute attr: ok is
// false when it lacks attr or holds it as anything but a Number. A
// fractional value is rounded down; values beyond the int64 range clamp.
func TTLExpireAt(it item.Item, attr string) (at int64, ok bool) {
	if it == nil || attr == "" {
		return 0, false
	}
	v, found := it[attr]
	if !found || v.Type != item.TypeN {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.S, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	f = math.Floor(f)
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64, true
	case f <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}

// TTLRowFor returns the expiry row of it in t, or nil when t's TTL is not
// maintained (see TimeToLive.Maintained) or it has no Number TTL attribute.
func TTLRowFor(t *Table, it item.Item) *TTLRow {
	if !t.TTL.Maintained() {
		return nil
	}
	return ttlRowOf(t, t.TTL.AttributeName, it)
}

// ttlRowOf is TTLRowFor for TTL attribute attr whatever t's TTL state: the
// backfill of an ENABLING table uses it.
func ttlRowOf(t *Table, attr string, it item.Item) *TTLRow {
	at, ok := TTLExpireAt(it, attr)
	if !ok {
		return nil
	}
	k, err := ItemKey(t, it)
	if err != nil {
		return nil
	}
	return &TTLRow{ExpireAt: at, Key: k}
}

// TTLChanges derives the expiry-row maintenance of one item write of t:
// remove del, then insert put; either may be nil, and when old and new map
// to the same row both are. It is pure: every backend persists exactly
// these rows.
func TTLChanges(t *Table, old, new item.Item) (del, put *TTLRow) {
	o, n := TTLRowFor(t, old), TTLRowFor(t, new)
	if o != nil && n != nil && o.Same(n) {
		return nil, nil
	}
	return o, n
}

// ExpiredAt reports whether an item with expiry row time at is due for
// deletion at now: at is not after now, and not more than TTLMaxAge
// before it.
func ExpiredAt(at int64, now time.Time) bool {
	s := now.Unix()
	return at <= s && at > s-int64(TTLMaxAge/time.Second)
}

// StillExpired reports whether it, the current image of an item of t, is
// due for deletion at now under t's TTL attribute: the condition of every
// expiry delete, re-checked against the locked image.
func StillExpired(t *Table, it item.Item, now time.Time) bool {
	if !t.TTL.Maintained() {
		return false
	}
	at, ok := TTLExpireAt(it, t.TTL.AttributeName)
	return ok && ExpiredAt(at, now)
}

// TTLBackfillRow returns the expiry row a backfill page writes for it, the
// committed image of an item of t whose TTL is ENABLING, or nil.
func TTLBackfillRow(t *Table, it item.Item) *TTLRow {
	return ttlRowOf(t, t.TTL.AttributeName, it)
}
