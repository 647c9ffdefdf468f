package clock

import (
	"testing"
	"time"
)

func TestManualMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := NewManual(start)
	if got := m.Now(); !got.Equal(start) {
		t.Fatalf("Now = %v, want %v", got, start)
	}
	got, err := m.Advance(36 * time.Hour)
	if err != nil || !got.Equal(start.Add(36*time.Hour)) || !m.Now().Equal(got) {
		t.Fatalf("Advance = %v, %v; Now %v", got, err, m.Now())
	}
	if _, err := m.Advance(-time.Second); err == nil {
		t.Fatal("Advance(-1s) succeeded")
	}
	back := time.Date(2020, 5, 1, 0, 0, 0, 0, time.UTC)
	if got, err := m.Set(back); err != nil || !got.Equal(back) || !m.Now().Equal(back) {
		t.Fatalf("Set = %v, %v; Now %v", got, err, m.Now())
	}
}

// TestManualStaysInRange: the clock refuses to leave 1970 to 9999 (times
// DynamoDB's epoch seconds and four-digit ISO 8601 years can carry), and
// day counts a duration cannot hold are bad durations, not wrapped ones.
func TestManualStaysInRange(t *testing.T) {
	m := NewManual(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))
	if _, err := m.Advance(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Advance(23 * time.Hour); err == nil || m.Now().Year() != 9999 {
		t.Fatalf("Advance past 9999: %v, now %v", err, m.Now())
	}
	for _, bad := range []time.Time{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := m.Set(bad); err == nil || m.Now().Year() != 9999 {
			t.Fatalf("Set(%v): %v, now %v", bad, err, m.Now())
		}
	}
	for _, s := range []string{"NaNd", "Infd", "200000d", "1e300d"} {
		if d, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) = %v", s, d)
		}
	}
}

func TestNewModes(t *testing.T) {
	for mode, want := range map[string]string{"": "system", "system": "system", "manual": "manual"} {
		c, err := New(mode)
		if err != nil || Mode(c) != want {
			t.Errorf("New(%q) = %v (%s), %v; want %s", mode, c, Mode(c), err, want)
		}
	}
	if _, err := New("fast"); err == nil {
		t.Error(`New("fast") succeeded`)
	}
}
