package storage

import (
	"reflect"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
)

// ChangeRecords gives, for every combination of stream view type, point in
// time recovery and write, exactly the records of StreamRecordFor and
// HistoryRecordFor.
func TestChangeRecordsAsTheirParts(t *testing.T) {
	now := time.Unix(1700000000, 123)
	a := item.Item{"pk": item.S("k"), "v": item.N("1")}
	b := item.Item{"pk": item.S("k"), "v": item.N("2")}
	writes := [][2]item.Item{{nil, a}, {a, b}, {a, a}, {a, nil}, {nil, nil}}
	for _, view := range []string{"", ViewKeysOnly, ViewNewImage, ViewOldImage, ViewNewAndOldImage} {
		for _, pitr := range []bool{false, true} {
			tb := &Table{ID: "t", KeySchema: []KeyElement{{AttributeName: "pk", KeyType: "HASH"}}}
			if view != "" {
				tb.Stream = StreamSpecification{StreamEnabled: true, StreamViewType: view}
				tb.LatestStreamLabel = "2026-01-01T00:00:00.000"
			}
			if pitr {
				tb.PointInTimeRecovery = &PointInTimeRecovery{RecoveryPeriodInDays: 35}
			}
			for _, w := range writes {
				gotS, gotH := ChangeRecords(tb, w[0], w[1], TTLService, now)
				wantS, wantH := StreamRecordFor(tb, w[0], w[1], TTLService, now), HistoryRecordFor(tb, w[0], w[1], now)
				if !reflect.DeepEqual(gotS, wantS) || !reflect.DeepEqual(gotH, wantH) {
					t.Errorf("view %q pitr %v write %v: ChangeRecords = %+v, %+v; want %+v, %+v", view, pitr, w, gotS, gotH, wantS, wantH)
				}
			}
		}
	}
}
