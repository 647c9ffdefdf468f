package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// DynamoDB Streams: the change records every item write of a table with an
// enabled stream appends, in the same transaction as the write. A backend
// derives them with StreamRecordFor, stores them with EncodeStreamRecord,
// and gives each a sequence number that increases with commit order within
// the stream (see StreamStore). See
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html

// Stream event names (Record.eventName).
const (
	EventInsert = "INSERT"
	EventModify = "MODIFY"
	EventRemove = "REMOVE"
)

// Stream view types (StreamSpecification.StreamViewType).
const (
	ViewKeysOnly       = "KEYS_ONLY"
	ViewNewImage       = "NEW_IMAGE"
	ViewOldImage       = "OLD_IMAGE"
	ViewNewAndOldImage = "NEW_AND_OLD_IMAGES"
)

// UserIdentity is who made a change, as DynamoDB Streams reports it: only
// the deletions of the Time to Live service carry one.
type UserIdentity struct {
	Type        string
	PrincipalID string
}

// TTLService is the identity of Time to Live deletions.
var TTLService = &UserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}

type identityKey struct{}

// WithUserIdentity returns a context whose item writes (Mutate,
// TransactWrite) record id as the userIdentity of their stream records.
func WithUserIdentity(ctx context.Context, id *UserIdentity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// UserIdentityFrom returns the identity WithUserIdentity put in ctx, or nil.
func UserIdentityFrom(ctx context.Context) *UserIdentity {
	id, _ := ctx.Value(identityKey{}).(*UserIdentity)
	return id
}

// StreamRecord is one change record of a stream. Seq is assigned by the
// backend when it stores the record (0 before).
type StreamRecord struct {
	Seq       uint64
	EventName string
	// CreatedAt is ApproximateCreationDateTime, whole seconds.
	CreatedAt time.Time
	Keys      item.Item
	NewImage  item.Item // per ViewType
	OldImage  item.Item // per ViewType
	SizeBytes int64
	ViewType  string
	Identity  *UserIdentity
}

// StreamEnabled reports whether item writes of t append stream records.
func (t *Table) StreamEnabled() bool {
	return t.Stream.StreamEnabled && t.LatestStreamLabel != ""
}

// changeRecord is the record of a write of t from old to new (nil when
// absent) at now, with view type viewType: its event, its keys and
// CreatedAt in whole seconds, and no images. It is nil when the write
// changes nothing.
func changeRecord(t *Table, old, new item.Item, viewType string, now time.Time) *StreamRecord {
	if (old == nil && new == nil) || (old != nil && new != nil && itemsEqual(old, new)) {
		return nil
	}
	r := &StreamRecord{CreatedAt: now.Truncate(time.Second), ViewType: viewType}
	img := new
	switch {
	case old == nil:
		r.EventName = EventInsert
	case new == nil:
		r.EventName, img = EventRemove, old
	default:
		r.EventName = EventModify
	}
	r.Keys = make(item.Item, 2)
	for _, k := range t.KeySchema {
		if v, ok := img[k.AttributeName]; ok {
			r.Keys[k.AttributeName] = v
		}
	}
	return r
}

// StreamRecordFor derives the stream record of one item write of t, from
// the image before it (old) and after it (new), nil when absent. It returns
// nil when t's stream is disabled and when the write changes nothing (both
// absent, or equal images), as DynamoDB writes no record then. id is the
// writer's identity (UserIdentityFrom), nil for ordinary writes. It is pure:
// every backend stores exactly this record.
func StreamRecordFor(t *Table, old, new item.Item, id *UserIdentity, now time.Time) *StreamRecord {
	if !t.StreamEnabled() {
		return nil
	}
	r := changeRecord(t, old, new, t.Stream.StreamViewType, now)
	if r == nil {
		return nil
	}
	return withImages(r, t.Stream.StreamViewType, old, new, id)
}

// withImages completes change record r as a stream record of view type
// viewType: its identity, images and size.
func withImages(r *StreamRecord, viewType string, old, new item.Item, id *UserIdentity) *StreamRecord {
	r.ViewType, r.Identity = viewType, id
	switch r.ViewType {
	case ViewNewImage:
		r.NewImage = new
	case ViewOldImage:
		r.OldImage = old
	case ViewNewAndOldImage:
		r.NewImage, r.OldImage = new, old
	}
	r.SizeBytes = int64(item.Size(r.Keys))
	if r.NewImage != nil {
		r.SizeBytes += int64(item.Size(r.NewImage))
	}
	if r.OldImage != nil {
		r.SizeBytes += int64(item.Size(r.OldImage))
	}
	return r
}

// SequenceNumberDigits is the width of a rendered sequence number: zero
// padded, so that string order is numeric order.
const SequenceNumberDigits = 21

// FormatSequenceNumber renders seq as DynamoDB Streams' SequenceNumber.
func FormatSequenceNumber(seq uint64) string {
	s := strconv.FormatUint(seq, 10)
	for len(s) < SequenceNumberDigits {
		s = "0" + s
	}
	return s
}

// ParseSequenceNumber parses a SequenceNumber; ok is false when s is not a
// decimal number of at most SequenceNumberDigits digits.
func ParseSequenceNumber(s string) (seq uint64, ok bool) {
	if s == "" || len(s) > SequenceNumberDigits {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// Stored form of a record: a version byte, then the event, view type,
// creation time (unix seconds), size, identity type and principal, and the
// three images (item.MarshalItem), each length-prefixed (uvarint).
const streamRecordVersion = 1

// EncodeStreamRecord returns the stored form of r (without Seq, which the
// backend keeps in its own column).
func EncodeStreamRecord(r *StreamRecord) []byte {
	return EncodeStreamRecordImages(r, nil, nil)
}

// EncodeStreamRecordImages is EncodeStreamRecord for a writer that already
// holds the stored form (item.MarshalItem) of r's NewImage as newBlob and of
// its OldImage as oldBlob, typically the item row it wrote and the one it
// read: it copies those bytes instead of encoding the images again. A nil
// blob is encoded from r's image as EncodeStreamRecord does; a blob whose
// image r does not keep (by its view type) is ignored. The result is the
// same as EncodeStreamRecord(r) whenever each blob is the image's
// encoding.
func EncodeStreamRecordImages(r *StreamRecord, newBlob, oldBlob []byte) []byte {
	b := make([]byte, 0, 48+len(r.EventName)+len(r.ViewType)+len(newBlob)+len(oldBlob))
	b = append(b, streamRecordVersion)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	img := func(it item.Item, blob []byte) {
		if it == nil {
			b = binary.AppendUvarint(b, 0)
			return
		}
		if blob == nil {
			blob = item.MarshalItem(it)
		}
		b = binary.AppendUvarint(b, uint64(len(blob))+1)
		b = append(b, blob...)
	}
	str(r.EventName)
	str(r.ViewType)
	b = binary.AppendVarint(b, r.CreatedAt.Unix())
	b = binary.AppendVarint(b, r.SizeBytes)
	if r.Identity != nil {
		str(r.Identity.Type)
		str(r.Identity.PrincipalID)
	} else {
		str("")
		str("")
	}
	img(r.Keys, nil)
	img(r.NewImage, newBlob)
	img(r.OldImage, oldBlob)
	return b
}

var errCorruptRecord = errors.New("storage: corrupt stream record")

// readVarint reads a varint off the front of *b with read (binary.Uvarint
// or binary.Varint); when *b holds none it sets *bad and returns 0.
func readVarint[T uint64 | int64](b *[]byte, bad *bool, read func([]byte) (T, int)) T {
	v, n := read(*b)
	if n <= 0 {
		*bad = true
		return 0
	}
	*b = (*b)[n:]
	return v
}

// DecodeStreamRecord parses the stored form of a record and sets its Seq.
func DecodeStreamRecord(b []byte, seq uint64) (*StreamRecord, error) {
	if len(b) == 0 || b[0] != streamRecordVersion {
		return nil, errCorruptRecord
	}
	b = b[1:]
	bad := false
	uv := func() uint64 { return readVarint(&b, &bad, binary.Uvarint) }
	sv := func() int64 { return readVarint(&b, &bad, binary.Varint) }
	str := func() string {
		n := uv()
		if bad || n > uint64(len(b)) {
			bad = true
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	img := func() item.Item {
		n := uv()
		if bad || n == 0 {
			return nil
		}
		n--
		if n > uint64(len(b)) {
			bad = true
			return nil
		}
		it, err := item.UnmarshalItem(b[:n])
		if err != nil {
			bad = true
			return nil
		}
		b = b[n:]
		return it
	}
	r := &StreamRecord{Seq: seq}
	r.EventName = str()
	r.ViewType = str()
	r.CreatedAt = time.Unix(sv(), 0).UTC()
	r.SizeBytes = sv()
	if typ, principal := str(), str(); typ != "" {
		r.Identity = &UserIdentity{Type: typ, PrincipalID: principal}
	}
	r.Keys = img()
	r.NewImage = img()
	r.OldImage = img()
	if bad {
		return nil, fmt.Errorf("%w (sequence number %d)", errCorruptRecord, seq)
	}
	return r, nil
}

// StreamRetention is how long stream records are kept.
const StreamRetention = 24 * time.Hour

// StreamBounds describe the records a stream keeps.
type StreamBounds struct {
	// First and Last are the sequence numbers of the oldest and newest
	// kept records; both 0 when there are none.
	First, Last uint64
	// Trimmed is the highest sequence number removed by TrimStreams, 0 when
	// none was: a reader positioned before it has lost records.
	Trimmed uint64
}
