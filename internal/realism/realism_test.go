package realism

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/internal/item"
	"github.com/extenddb/extenddb/internal/storage"
)

func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    Options
		wantErr string
	}{
		{in: "", want: Options{}},
		{in: "off", want: Options{}},
		{in: "on", want: Options{Enabled: true}},
		{in: "gsi-lag=2s, stale-read-window=1s,stale-read-rate=0.5,capacity=on,burst=10s,seed=7",
			want: Options{Enabled: true, Seed: 7, Defaults: Settings{GSILag: 2 * time.Second, StaleReadWindow: time.Second,
				StaleReadRate: 0.5, Capacity: true, Burst: 10 * time.Second}}},
		{in: "internal-error-rate=0.01,transaction-conflict-rate=1",
			want: Options{Enabled: true, Defaults: Settings{InternalErrorRate: 0.01, TransactionConflictRate: 1}}},
		{in: "status-delay=0s", want: Options{Enabled: true, Defaults: Settings{HasStatusDelay: true}}},
		{in: "status-delay=x", wantErr: `realism setting status-delay: "x" is not a duration`},
		{in: "gsi-lag", wantErr: `realism setting "gsi-lag": want name=value`},
		{in: "gsi-lag=-1s", wantErr: `realism setting gsi-lag: "-1s" is not a duration`},
		{in: "stale-read-rate=2", wantErr: `realism setting stale-read-rate: "2" is not a rate between 0 and 1`},
		{in: "capacity=maybe", wantErr: `realism setting capacity: "maybe" is not on or off`},
		{in: "seed=x", wantErr: `realism setting seed: "x" is not a whole number`},
		{in: "speed=3", wantErr: `unknown realism setting "speed"`},
	} {
		got, err := ParseOptions(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// TestForTags: a table's tags override the defaults; a bad tag value and
// other tags leave them.
func TestForTags(t *testing.T) {
	defaults := Settings{GSILag: time.Second, StaleReadRate: 0.5}
	got := For(defaults, []storage.Tag{
		{Key: TagPrefix + "gsi-lag", Value: "3s"},
		{Key: TagPrefix + "stale-read-rate", Value: "lots"},
		{Key: TagPrefix + "capacity", Value: "on"},
		{Key: "team", Value: "x"},
	})
	want := Settings{GSILag: 3 * time.Second, StaleReadRate: 0.5, Capacity: true}
	if got != want {
		t.Fatalf("For = %+v, want %+v", got, want)
	}
}

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestBucketBurst: a bucket starts with its burst, goes into debt by what
// a request consumed, refuses while empty, and refills at its rate up to
// the burst, never beyond.
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html
func TestBucketBurst(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	r := New(Options{Enabled: true, Seed: 1}, clk.now)
	const key = "t/Write"
	admit := func() bool { return r.Admit(key, 10, 300*time.Second) }
	if !admit() {
		t.Fatal("a new bucket refuses")
	}
	r.Charge(key, 3000) // the whole burst: 10 units/s for 300 s
	if admit() {
		t.Fatal("an empty bucket admits")
	}
	clk.t = clk.t.Add(100 * time.Millisecond) // one unit back
	if !admit() {
		t.Fatal("a refilled bucket refuses")
	}
	r.Charge(key, 2) // one unit of debt
	if admit() {
		t.Fatal("a bucket in debt admits")
	}
	clk.t = clk.t.Add(time.Hour) // refills to the burst only
	r.Charge(key, 3000)
	if admit() {
		t.Fatal("the bucket kept more than 300 s of capacity")
	}
	if !r.Admit("other", 0, 0) {
		t.Fatal("no rate refuses")
	}
}

// TestRecentWrites: a write is recent for the duration asked, with the
// image it replaced.
func TestRecentWrites(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	r := New(Options{Enabled: true}, clk.now)
	v1 := item.Item{"v": item.N("1")}
	r.Wrote("k", v1)
	if old, ok := r.Recent("k", time.Second); !ok || len(old) != 1 {
		t.Fatalf("Recent = %v, %v", old, ok)
	}
	clk.t = clk.t.Add(time.Second)
	if _, ok := r.Recent("k", time.Second); ok {
		t.Fatal("recent after its window")
	}
	if _, ok := r.Recent("other", time.Hour); ok {
		t.Fatal("an item never written is recent")
	}
}

// TestRollSeeded: the same seed makes the same choices.
func TestRollSeeded(t *testing.T) {
	a, b := New(Options{Seed: 42}, nil), New(Options{Seed: 42}, nil)
	var sa, sb strings.Builder
	for range 64 {
		sa.WriteString(map[bool]string{true: "1", false: "0"}[a.Roll(0.5)])
		sb.WriteString(map[bool]string{true: "1", false: "0"}[b.Roll(0.5)])
	}
	if sa.String() != sb.String() || !strings.Contains(sa.String(), "1") || !strings.Contains(sa.String(), "0") {
		t.Fatalf("rolls %s and %s", sa.String(), sb.String())
	}
	if a.Roll(0) || !a.Roll(1) {
		t.Fatal("rates 0 and 1 are not never and always")
	}
}

// TestRecentBounded: the remembered writes stay within their bounds in
// count and in bytes, forgetting the oldest first.
func TestRecentBounded(t *testing.T) {
	r := New(Options{Enabled: true}, nil)
	big := item.Item{"v": item.S(strings.Repeat("x", 300<<10))}
	for i := range 1000 { // 300 MB of images
		r.Wrote("k"+strconv.Itoa(i), big)
	}
	if r.bytes > maxRecentBytes || len(r.recent) > 1000 {
		t.Fatalf("%d bytes in %d writes remembered", r.bytes, len(r.recent))
	}
	if _, ok := r.Recent("k999", time.Hour); !ok {
		t.Fatal("the newest write was forgotten")
	}
	if _, ok := r.Recent("k0", time.Hour); ok {
		t.Fatal("the oldest write was kept past the bound")
	}
	for i := range maxRecent + 10 {
		r.Wrote("n"+strconv.Itoa(i), nil)
	}
	if len(r.order) > maxRecent || len(r.recent) > maxRecent {
		t.Fatalf("%d writes remembered, bound %d", len(r.recent), maxRecent)
	}
}
