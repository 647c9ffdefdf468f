package storage

import (
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

func streamTestTable(view string) *Table {
	return &Table{
		KeySchema:            []KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		Stream:               StreamSpecification{StreamEnabled: true, StreamViewType: view},
		LatestStreamLabel:    "2024-01-01T00:00:00.000",
		TTL:                  TimeToLive{AttributeName: "exp", Status: TTLEnabled},
	}
}

func TestStreamRecordFor(t *testing.T) {
	now := time.Unix(1700000000, 5e8)
	old := item.Item{"pk": item.S("a"), "v": item.N("1")}
	nw := item.Item{"pk": item.S("a"), "v": item.N("2")}
	for _, c := range []struct {
		view     string
		old, new bool
	}{{ViewKeysOnly, false, false}, {ViewNewImage, false, true}, {ViewOldImage, true, false}, {ViewNewAndOldImage, true, true}} {
		r := StreamRecordFor(streamTestTable(c.view), old, nw, nil, now)
		if r.EventName != EventModify || (r.OldImage != nil) != c.old || (r.NewImage != nil) != c.new || len(r.Keys) != 1 || r.CreatedAt.Unix() != 1700000000 {
			t.Errorf("%s: %+v", c.view, r)
		}
		got, err := DecodeStreamRecord(EncodeStreamRecord(r), 9)
		if err != nil || got.Seq != 9 || got.EventName != r.EventName || (got.OldImage != nil) != c.old || (got.NewImage != nil) != c.new || got.SizeBytes != r.SizeBytes {
			t.Errorf("%s round trip: %+v %v", c.view, got, err)
		}
	}
	tb := streamTestTable(ViewNewImage)
	if StreamRecordFor(tb, old, item.Item{"pk": item.S("a"), "v": item.N("1")}, nil, now) != nil || StreamRecordFor(tb, nil, nil, nil, now) != nil {
		t.Error("record for a write that changes nothing")
	}
	if r := StreamRecordFor(tb, nil, nw, nil, now); r.EventName != EventInsert {
		t.Errorf("insert: %+v", r)
	}
	r := StreamRecordFor(tb, old, nil, TTLService, now)
	got, _ := DecodeStreamRecord(EncodeStreamRecord(r), 1)
	if r.EventName != EventRemove || got.Identity == nil || *got.Identity != *TTLService {
		t.Errorf("remove: %+v", got)
	}
	tb.Stream.StreamEnabled = false
	if StreamRecordFor(tb, nil, nw, nil, now) != nil {
		t.Error("record with the stream disabled")
	}
	if _, err := DecodeStreamRecord([]byte{1, 200}, 1); err == nil {
		t.Error("corrupt record decoded")
	}
	if s := FormatSequenceNumber(42); len(s) != SequenceNumberDigits {
		t.Errorf("FormatSequenceNumber: %q", s)
	} else if n, ok := ParseSequenceNumber(s); !ok || n != 42 {
		t.Errorf("ParseSequenceNumber: %d %v", n, ok)
	}
}

func TestTTLRows(t *testing.T) {
	tb := streamTestTable(ViewKeysOnly)
	for v, want := range map[string]int64{"1700000000": 1700000000, "1.9": 1, "-2.5": -3, "1e30": 1<<63 - 1} {
		if at, ok := TTLExpireAt(item.Item{"exp": item.N(v)}, "exp"); !ok || at != want {
			t.Errorf("TTLExpireAt(%s) = %d %v, want %d", v, at, ok, want)
		}
	}
	for _, it := range []item.Item{{"exp": item.S("1")}, {}, {"exp": item.NS("1")}} {
		if _, ok := TTLExpireAt(it, "exp"); ok {
			t.Errorf("TTLExpireAt(%v) ok", it)
		}
	}
	a := item.Item{"pk": item.S("a"), "exp": item.N("10")}
	b := item.Item{"pk": item.S("a"), "exp": item.N("20"), "x": item.S("y")}
	if del, put := TTLChanges(tb, a, b); del == nil || put == nil || del.ExpireAt != 10 || put.ExpireAt != 20 {
		t.Errorf("changed expiry: %+v %+v", del, put)
	}
	if del, put := TTLChanges(tb, a, item.Item{"pk": item.S("a"), "exp": item.N("10"), "z": item.S("1")}); del != nil || put != nil {
		t.Error("same row rewritten")
	}
	tb.TTL.Status = TTLDisabling
	if del, put := TTLChanges(tb, a, b); del != nil || put != nil {
		t.Error("rows maintained while DISABLING")
	}
	now := time.Unix(1000000000, 0)
	if !ExpiredAt(999999999, now) || ExpiredAt(1000000001, now) || ExpiredAt(1, now) {
		t.Error("ExpiredAt")
	}
}

// TestEncodeStreamRecordImages: a record encoded from the stored forms of
// its images is byte for byte the record encoded from the images, for
// every view type and for the history record, and a blob of an image the
// record does not keep is not stored.
func TestEncodeStreamRecordImages(t *testing.T) {
	now := time.Unix(1700000000, 0)
	old := item.Item{"pk": item.S("a"), "v": item.N("1"), "l": item.L(item.S("x"))}
	nw := item.Item{"pk": item.S("a"), "v": item.N("2")}
	ob, nb := item.MarshalItem(old), item.MarshalItem(nw)
	for _, view := range []string{ViewKeysOnly, ViewNewImage, ViewOldImage, ViewNewAndOldImage} {
		tb := streamTestTable(view)
		tb.PointInTimeRecovery = &PointInTimeRecovery{RecoveryPeriodInDays: 35}
		for _, w := range []struct{ old, new item.Item }{{old, nw}, {nil, nw}, {old, nil}} {
			var o, n []byte
			if w.old != nil {
				o = ob
			}
			if w.new != nil {
				n = nb
			}
			s, h := ChangeRecords(tb, w.old, w.new, nil, now)
			for _, r := range []*StreamRecord{s, h} {
				want, got := EncodeStreamRecord(r), EncodeStreamRecordImages(r, n, o)
				if string(got) != string(want) {
					t.Errorf("%s %s: %x, want %x", view, r.EventName, got, want)
				}
			}
		}
	}
}
